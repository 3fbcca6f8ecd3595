// The stand-in's terminal episodes (rehearsal/policy/shell-skills.ts, agent-approach.ts) against the real terminal
// environment and its sandbox: for every default task, the command the stand-in runs with the tool passes the task's
// check, the answer from memory leaves it undone (score 0), and the second step ends the episode.
import { describe, expect, it } from "vitest";
import type { ChatMessage, Tool } from "../../../contracts/chat.ts";
import { TaskCatalogue } from "../../../environments/task-catalogue.ts";
import { shellTaskSchema } from "../../../environments/terminal/shell-task.ts";
import { TERMINAL_TASKS, TerminalEnvironment } from "../../../environments/terminal/terminal-environment.ts";
import { ChatTemplate } from "../../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../../lib/model/model-files.ts";
import { planEpisodeStep } from "../../../rehearsal/policy/agent-approach.ts";
import { lastConversationTurn, readPrompt } from "../../../rehearsal/model/prompt-reader.ts";
import { shellCommandFor } from "../../../rehearsal/policy/shell-skills.ts";

/** The tool call's arguments in a planned text (qwen25's `<tool_call>` JSON), or null when it calls none. */
function calledCommand(text: string): string | null {
  const call = /<tool_call>\n(.*)\n<\/tool_call>/.exec(text);
  return call ? (JSON.parse(call[1]!) as { name: string; arguments: { command: string } }).arguments.command : null;
}

describe("the stand-in in the terminal environment", () => {
  it("does every default task with the tool, and none from memory", async () => {
    const template = new ChatTemplate(await loadTokenizerFiles("builtin:qwen3"));
    const environment = await TerminalEnvironment.open();
    const catalogue = await TaskCatalogue.read(TERMINAL_TASKS, shellTaskSchema);
    expect(catalogue.tasks.length).toBeGreaterThanOrEqual(12);
    for (const task of catalogue.tasks) {
      const scores: number[] = [];
      for (const approach of [0, 1]) {
        const start = await environment.reset(task);
        const messages: ChatMessage[] = [{ role: "user", content: start.userMessage }];
        const prompt = readPrompt(template.render(messages, { tools: start.toolSchemas as Tool[], addGenerationPrompt: true }));
        const plan = planEpisodeStep(prompt, lastConversationTurn(prompt));
        expect(plan?.kind, task.task_path).toBe("approach");
        const text = (plan as { text: (choice: number) => string }).text(approach);
        const command = calledCommand(text);
        if (command !== null) {
          const observation = await environment.execTool(start.state, { name: "run_command", arguments: { command } });
          expect(observation, task.task_path).not.toMatch(/error/i);
          const after = readPrompt(
            template.render([...messages, { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "run_command", arguments: JSON.stringify({ command }) } }] }, { role: "tool", tool_call_id: "c1", content: observation }], {
              tools: start.toolSchemas as Tool[],
              addGenerationPrompt: true,
            }),
          );
          const done = planEpisodeStep(after, lastConversationTurn(after));
          expect(done?.kind).toBe("fixed");
          expect(calledCommand((done as { text: string }).text)).toBeNull();
        }
        scores.push(await environment.evaluate(start.state));
        await environment.close(start.state);
      }
      expect(scores, task.task_path).toEqual([1, 0]);
    }
  }, 120_000);

  it("knows no command for a task of another shape", () => {
    expect(shellCommandFor("Compile the kernel and boot it.")).toBeNull();
    expect(shellCommandFor("Create a file a.txt containing the single line 'it''s'.")).toBeNull();
  });
});
