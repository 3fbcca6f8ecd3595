// The stand-in's SWE episodes (rehearsal/policy/swe-skills.ts, agent-approach.ts) against the real SWE environment and its
// sandbox, each prompt rendered with Qwen3's template as the proxy renders it: testing before submitting fixes every
// shipped task (the first suspect, or the next one after the tests fail), submitting right away fixes only the tasks
// whose first suspect is the bug (4 of 12), and the suspects of a file are found in its order.
import { describe, expect, it } from "vitest";
import type { ChatMessage, Tool } from "../../../contracts/chat.ts";
import type { Evaluation } from "../../../environments/environment.ts";
import { SweEnvironment } from "../../../environments/swe/swe-environment.ts";
import { ChatTemplate } from "../../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../../lib/model/model-files.ts";
import { planEpisodeStep } from "../../../rehearsal/policy/agent-approach.ts";
import { lastConversationTurn, readPrompt } from "../../../rehearsal/model/prompt-reader.ts";
import { candidateFixes, listedFiles, moduleUnderTest } from "../../../rehearsal/policy/swe-skills.ts";

/** The tool calls of a planned text (qwen25's `<tool_call>` JSON lines). */
function calls(text: string): Array<{ name: string; arguments: Record<string, unknown> }> {
  return [...text.matchAll(/<tool_call>\n(.*)\n<\/tool_call>/g)].map((match) => JSON.parse(match[1]!) as { name: string; arguments: Record<string, unknown> });
}

describe("the stand-in in the SWE environment", () => {
  it("fixes every shipped task when it runs the tests before submitting, and 4 of 12 when it submits right away", async () => {
    const template = new ChatTemplate(await loadTokenizerFiles("builtin:qwen3"));
    const environment = await SweEnvironment.open();
    const outcomes: Record<string, { tool: number; memory: number; toolSteps: number; toolNames: string[] }> = {};
    for (const taskPath of ["grades", "pages", "countdown", "windows", "shipping", "primes", "retry", "weather", "stack", "marks", "series", "password"]) {
      const result = { tool: -1, memory: -1, toolSteps: 0, toolNames: [] as string[] };
      for (const approach of [0, 1]) {
        const start = await environment.reset({ task_name: "swe", task_path: taskPath });
        const messages: ChatMessage[] = [{ role: "user", content: start.userMessage }];
        let steps = 0;
        const names: string[] = [];
        for (; steps < 10; steps++) {
          const prompt = readPrompt(template.render(messages, { tools: start.toolSchemas as Tool[], addGenerationPrompt: true }));
          const plan = planEpisodeStep(prompt, lastConversationTurn(prompt));
          expect(plan, `${taskPath} step ${steps}`).not.toBeNull();
          expect(plan!.kind, `${taskPath} step ${steps}`).toBe(steps === 1 ? "approach" : "fixed");
          const text = plan!.kind === "approach" ? plan!.text(approach) : plan!.text;
          const planned = calls(text);
          const content = text.replace(/^<think>[\s\S]*?<\/think>\n\n/, "").replace(/<tool_call>[\s\S]*$/, "").trim();
          if (planned.length === 0) break;
          const toolCalls = planned.map((call, index) => ({ id: `c${steps}-${index}`, type: "function" as const, function: { name: call.name, arguments: JSON.stringify(call.arguments) } }));
          messages.push({ role: "assistant", content, tool_calls: toolCalls });
          for (const [index, call] of planned.entries()) {
            names.push(call.name);
            const observation = await environment.execTool(start.state, call);
            if (call.name !== "run_tests") expect(observation, `${taskPath}: ${call.name}`).not.toMatch(/^error/m);
            messages.push({ role: "tool", tool_call_id: toolCalls[index]!.id, content: observation });
          }
        }
        const score = ((await environment.evaluate(start.state)) as Evaluation).score;
        if (approach === 0) Object.assign(result, { tool: score, toolSteps: steps + 1, toolNames: names });
        else result.memory = score;
        await environment.close(start.state);
      }
      outcomes[taskPath] = result;
    }
    for (const [taskPath, result] of Object.entries(outcomes)) {
      expect(result.tool, taskPath).toBe(1);
      expect(result.toolSteps, taskPath).toBeLessThanOrEqual(5);
      expect(result.toolNames.at(-1), taskPath).toBe("submit");
      expect(result.toolNames.indexOf("run_tests"), taskPath).toBeLessThan(result.toolNames.indexOf("submit"));
    }
    const rightFromMemory = Object.entries(outcomes).filter(([, result]) => result.memory === 1).map(([taskPath]) => taskPath);
    expect(rightFromMemory.sort()).toEqual(["pages", "retry", "stack", "windows"]);
    // a wrong first suspect: read | edit, tests fail | undo, next edit, tests pass | submit | done (5 steps)
    expect(outcomes.grades!.toolNames).toEqual(["read_file", "edit_file", "run_tests", "edit_file", "edit_file", "run_tests", "submit"]);
    expect(outcomes.grades!.toolSteps).toBe(5);
    expect(outcomes.pages!.toolSteps).toBe(4);
  }, 180_000);

  it("finds the module under test and its suspects in the file's order", () => {
    expect(moduleUnderTest(listedFiles("x\n\nFiles: flaky.sh, retry.sh, test_retry.sh\n\nmore"))).toBe("retry.sh");
    expect(moduleUnderTest(["a.py", "b.py"])).toBeNull();
    const code = 'def f(n):\n    """n < 3"""\n    # n > 2\n    if n >= 2:\n        return n - 1\n    return range(0, n)\n';
    expect(candidateFixes("f.py", code).map((fix) => fix.newText.trim())).toEqual(["if n > 2:", "return n", "return range(0, n + 1)"]);
    expect(candidateFixes("f.sh", 'if [ "$a" -lt 3 ]; then echo x >&2; fi\n').map((fix) => fix.newText)).toEqual(['if [ "$a" -le 3 ]; then echo x >&2; fi']);
  });
});
