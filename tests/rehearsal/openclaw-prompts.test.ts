// The stand-in policy reads OpenClaw's real requests (recorded from stock openclaw@2026.9.6) as a model would:
// OpenClaw's trailing internal-context block and its Runtime line are not the user's words, and a tool result is
// answered, not met with another tool call (which once sent stock OpenClaw into an endless tool loop).
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { chatRequestSchema } from "../../contracts/chat.ts";
import { readPrompt } from "../../rehearsal/prompt-reader.ts";
import { planReply } from "../../rehearsal/reply-composer.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { BUILTIN_QWEN3, loadTokenizerFiles } from "../../lib/model/model-files.ts";

let template: ChatTemplate;

function promptOf(fixture: string): string {
  const recorded = JSON.parse(readFileSync(path.join(import.meta.dirname, "../fixtures/openclaw", fixture), "utf8")) as { body: unknown };
  const request = chatRequestSchema.parse(recorded.body);
  return template.render(request.messages, { tools: request.tools ?? null, addGenerationPrompt: true });
}

describe("stand-in policy on stock OpenClaw requests", () => {
  beforeAll(async () => {
    template = new ChatTemplate(await loadTokenizerFiles(BUILTIN_QWEN3));
  });

  it("answers a greeting (the Runtime line and internal context do not ask for a tool)", () => {
    expect(planReply(readPrompt(promptOf("main-turn-1.json"))).kind).toBe("answer");
    expect(planReply(readPrompt(promptOf("main-turn-2.json"))).kind).toBe("answer");
  });

  it("calls a tool when the user asks to list files", () => {
    const plan = planReply(readPrompt(promptOf("tool-turn-1.json")));
    expect(plan.kind).toBe("tool");
    expect(plan.kind === "tool" && plan.text).toContain('"name": "ls"');
  });

  it("answers after the tool result instead of calling the tool again", () => {
    const plan = planReply(readPrompt(promptOf("tool-turn-2.json")));
    expect(plan.kind).toBe("answer");
  });
});
