// Worker-thread entry of the prompt pool: loads the model's tokenizer files, then renders the chat template and
// tokenizes (segment cache per worker) for each job. Knows nothing of sessions or HTTP.
import { parentPort, workerData } from "node:worker_threads";
import { chatRequestSchema } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import type { PromptJob, PromptJobResult } from "./prompt-job.ts";

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  let template: ChatTemplate;
  let tokenizer: ModelTokenizer;
  try {
    const files = await loadTokenizerFiles((workerData as { source: string }).source);
    template = new ChatTemplate(files);
    tokenizer = new ModelTokenizer(files);
  } catch (error) {
    port.postMessage({ ready: false, error: (error as Error).message });
    return;
  }
  port.on("message", (job: PromptJob) => {
    try {
      if (job.kind === "segments") {
        const encoded = (job.segments ?? []).map((segment) => tokenizer.encode(segment));
        const ids = Int32Array.from(encoded.flat());
        const result: PromptJobResult = { id: job.id, ok: true, ids, tail: "", lengths: encoded.map((segment) => segment.length) };
        port.postMessage(result, [ids.buffer]);
        return;
      }
      let text: string;
      if (job.kind === "encode") text = job.text ?? "";
      else if (job.kind === "body") {
        const request = chatRequestSchema.parse(JSON.parse(new TextDecoder().decode(job.body)));
        text = template.render(request.messages, { tools: request.tools ?? null, addGenerationPrompt: true, extra: (request.chat_template_kwargs ?? undefined) });
      } else text = template.render(job.messages ?? [], { tools: job.tools ?? null, addGenerationPrompt: true, extra: job.extra });
      const ids = Int32Array.from(tokenizer.encode(text));
      const result: PromptJobResult = { id: job.id, ok: true, ids, tail: text.slice(-200) };
      port.postMessage(result, [ids.buffer]);
    } catch (error) {
      const code = (error as { code?: string }).code ?? "INTERNAL";
      port.postMessage({ id: job.id, ok: false, code, message: (error as Error).message } satisfies PromptJobResult);
    }
  });
  port.postMessage({ ready: true });
}

void main();
