// The stand-in policy reads OpenClaw's real requests (recorded from stock openclaw@2026.9.6) as a model would:
// OpenClaw's trailing internal-context block and its Runtime line are not the user's words, and a tool result is
// answered, not met with another tool call (which once sent stock OpenClaw into an endless tool loop).
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { chatRequestSchema } from "../../contracts/chat.ts";
import { lastConversationTurn, readPrompt, type OfferedTool, type ReadPrompt } from "../../rehearsal/model/prompt-reader.ts";
import { planReply } from "../../rehearsal/policy/reply-composer.ts";
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

describe("stand-in policy on a coding agent's tools", () => {
  const tool = (name: string, description: string, required: string): OfferedTool => ({ name, description, parameters: { properties: { [required]: { type: "string" } }, required: [required] } });
  // Codex 0.171's tools: no name says "list"; create_goal's description says "goals", which must not read as "ls"
  const codexTools = [tool("exec_command", "Runs a command in a PTY, returning output or a session ID.", "cmd"), tool("create_goal", "do not infer goals from ordinary tasks", "objective")];
  const prompt = (text: string): ReadPrompt => ({ tools: codexTools, turns: [{ role: "user", text, toolResult: false }], partialReply: "", head: "" }) as ReadPrompt;

  it("matches a tool's description by whole words only, so a run request reaches the shell tool", () => {
    const list = planReply(prompt("List the files in the current folder."));
    expect(list.kind === "tool" && list.text, "no tool lists files: answer instead of calling create_goal").toBe(false);
    const run = planReply(prompt("Run `ls` in the current folder."));
    expect(run.kind === "tool" && run.text).toContain('{"name": "exec_command", "arguments": {"cmd": "ls"}}');
  });

  it("reads Claude Code's user turn past its <system-reminder> block and the environment system turn after it", () => {
    const reminder = "<system-reminder>\nEnd git commit messages with: Co-Authored-By: Claude Code\n</system-reminder>\n";
    const turns = [
      { role: "system", text: "You are a Claude agent.", toolResult: false },
      { role: "user", text: `${reminder}Read /tmp/w/notes.txt`, toolResult: false },
      { role: "system", text: "# Environment\nRun any Python with -I.", toolResult: false },
    ];
    const claude = { tools: [tool("Read", "Reads a file from the local filesystem.", "file_path")], turns, partialReply: "", head: "" } as ReadPrompt;
    expect(lastConversationTurn(claude)).toEqual({ role: "user", text: "Read /tmp/w/notes.txt", toolResult: false });
    const plan = planReply(claude);
    expect(plan.kind === "tool" && plan.text).toContain('{"name": "Read", "arguments": {"file_path": "/tmp/w/notes.txt"}}');
    expect(lastConversationTurn({ ...claude, turns: turns.slice(0, 1) })?.role, "a lone system prompt is still the last turn").toBe("system");
  });
});
