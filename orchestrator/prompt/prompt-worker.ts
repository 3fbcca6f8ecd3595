// Worker-thread entry of the prompt pool: loads the model's chat template, then renders it for each job (a
// template interpreted by @huggingface/jinja costs milliseconds per long conversation). Knows nothing of sessions,
// HTTP or tokens.
import { parentPort, workerData } from "node:worker_threads";
import { chatRequestSchema } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import type { PromptJob, PromptJobResult } from "./prompt-job.ts";

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  let template: ChatTemplate;
  try {
    template = new ChatTemplate(await loadTokenizerFiles((workerData as { source: string }).source));
  } catch (error) {
    port.postMessage({ ready: false, error: (error as Error).message });
    return;
  }
  port.on("message", (job: PromptJob) => {
    try {
      let text: string;
      if (job.kind === "body") {
        const request = chatRequestSchema.parse(JSON.parse(new TextDecoder().decode(job.body)));
        text = template.render(request.messages, { tools: request.tools ?? null, addGenerationPrompt: true, extra: (request.chat_template_kwargs ?? undefined) });
      } else text = template.render(job.messages ?? [], { tools: job.tools ?? null, addGenerationPrompt: true, extra: job.extra });
      port.postMessage({ id: job.id, ok: true, text } satisfies PromptJobResult);
    } catch (error) {
      const code = (error as { code?: string }).code ?? "INTERNAL";
      port.postMessage({ id: job.id, ok: false, code, message: (error as Error).message } satisfies PromptJobResult);
    }
  });
  port.postMessage({ ready: true });
}

void main();
