// The reference renderer for parity tests: one long-lived Debian /usr/bin/python3 running
// transformers_chat_template.py (jinja2 set up as transformers does, JSON decoded as SGLang does), spoken to in JSON
// lines. Ignores tokenizing.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PythonLines } from "./python-lines.ts";

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "transformers_chat_template.py");
/** Debian's interpreter and its python3-jinja2, never a `python3` found on PATH (tests put a fake one there). */
export const PYTHON = "/usr/bin/python3";

/** An OpenAI chat request as transformers (through SGLang's message handling) renders it. */
export interface ChatRenderRequest {
  template: string;
  tokenizer_config: Record<string, unknown>;
  chat: { messages: unknown[]; tools: unknown[] | null; add_generation_prompt: boolean; chat_template_kwargs?: Record<string, unknown> };
}

/** A bare template and its variables; those named in `decode` are JSON texts Python decodes as SGLang does first. */
export interface TemplateRenderRequest {
  template: string;
  context: Record<string, unknown>;
  decode?: string[];
}

/** json.dumps(sglang_loads(json), **dumps): a JSON text decoded as SGLang decodes arguments, dumped as tojson dumps. */
export interface JsonRequest {
  json: string;
  dumps?: { ensure_ascii?: boolean; indent?: number | string | null; separators?: [string, string] | null; sort_keys?: boolean };
}

/** datetime(*strftime).strftime(format): a fixed naive local time. */
export interface StrftimeRequest {
  strftime: number[];
  format: string;
}

type ReferenceRequest = ChatRenderRequest | TemplateRenderRequest | JsonRequest | StrftimeRequest;

/** The rendered text, or the Python exception as "TypeName: message". */
export type RenderAnswer = { text: string } | { error: string };

export class TransformersRenderer {
  private readonly lines = new PythonLines<RenderAnswer>(PYTHON, SCRIPT, { hello: false });

  /** Answers in request order; all requests are written at once and answered as Python gets to them. */
  renderAll(requests: readonly ReferenceRequest[]): Promise<RenderAnswer[]> {
    return this.lines.askAll(requests);
  }

  render(request: ReferenceRequest): Promise<RenderAnswer> {
    return this.lines.ask(request);
  }

  close(): Promise<void> {
    return this.lines.close();
  }
}
