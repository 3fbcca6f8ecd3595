// The reference renderer for parity tests: one long-lived Debian /usr/bin/python3 running
// transformers_chat_template.py (jinja2 set up as transformers does, JSON decoded as SGLang does), spoken to in JSON
// lines. Ignores tokenizing.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";

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
  private readonly child: ResultPromise<{ stdin: "pipe"; stdout: "pipe"; stderr: "pipe"; buffer: false }>;
  private readonly waiting: Array<{ resolve: (answer: RenderAnswer) => void; reject: (error: Error) => void }> = [];
  private pending = "";
  private stderr = "";

  constructor() {
    this.child = execa(PYTHON, [SCRIPT], { stdin: "pipe", stdout: "pipe", stderr: "pipe", buffer: false, env: { PYTHONIOENCODING: "utf-8" } });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.take(chunk));
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.child.catch(() => undefined);
    // a crash answers every request still waiting, instead of leaving it to the test's timeout
    this.child.on("exit", (code) => {
      for (const waiter of this.waiting.splice(0)) waiter.reject(new Error(`${PYTHON} ${SCRIPT} exited with ${code}: ${this.stderr}`));
    });
  }

  /** Answers in request order; all requests are written at once and answered as Python gets to them. */
  renderAll(requests: readonly ReferenceRequest[]): Promise<RenderAnswer[]> {
    return Promise.all(requests.map((request) => this.render(request)));
  }

  render(request: ReferenceRequest): Promise<RenderAnswer> {
    return new Promise((resolve, reject) => {
      if (this.child.exitCode !== null) {
        reject(new Error(`${PYTHON} ${SCRIPT} exited: ${this.stderr}`));
        return;
      }
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(JSON.stringify(request) + "\n");
    });
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await this.child.catch(() => undefined);
    if (this.waiting.length > 0) throw new Error(`${PYTHON} ${SCRIPT} left ${this.waiting.length} requests unanswered: ${this.stderr}`);
  }

  private take(chunk: string): void {
    this.pending += chunk;
    for (let end = this.pending.indexOf("\n"); end >= 0; end = this.pending.indexOf("\n")) {
      const line = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 1);
      this.waiting.shift()?.resolve(JSON.parse(line) as RenderAnswer);
    }
  }
}
