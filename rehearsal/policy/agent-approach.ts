// The stand-in policy's second learnable decision, for agent episodes of the built-in environments: use the tool, or
// answer from memory. The decision is the first token after `<think>\nI will` ( use |  answer) and carries its
// log-prob. Tool-call (an arithmetic task, `python` and `submit_answer` offered): python computes it; from memory
// sums come out right and products wrong, as in mental arithmetic. Terminal (a task of a shape shell-skills.ts
// knows, `run_command` offered): the command is run; from memory it is only told, so nothing is done. Everything
// else in an episode is fixed text: submit what python printed, or say the command ran; then done. SWE (a repository
// whose tests fail, read_file, edit_file, run_tests and submit offered): the file under test is read and its first
// suspect edited (swe-skills.ts), then the tests are run and the next suspect tried until they pass, or, from memory,
// the first edit is submitted untested.
import type { OfferedTool, PromptTurn, ReadPrompt } from "../model/prompt-reader.ts";
import { toolResultText } from "../model/prompt-reader.ts";
import { decisionPositions, decisionTokens, type DecisionTokens } from "./decision-tokens.ts";
import { shellCommandFor } from "./shell-skills.ts";
import { candidateFixes, listedFiles, moduleUnderTest, type CandidateFix } from "./swe-skills.ts";
import type { StandinTokenizer } from "../model/responder.ts";

export interface Approach {
  name: "tool" | "memory";
  /** The words after "I will" (in the tool-call environment); their first token is the decision token. */
  words: string;
}

export const APPROACHES: readonly Approach[] = [
  { name: "tool", words: "use python to compute it." },
  { name: "memory", words: "answer from memory." },
];

/** The terminal environment's words for using the tool: the same first token as APPROACHES[0]'s. */
const TERMINAL_TOOL_WORDS = "use run_command to do it.";
/** The SWE environment's words for testing before submitting: the same first token as APPROACHES[0]'s. */
const SWE_TOOL_WORDS = "use run_tests to check each fix before I submit.";

/** What a reply from memory says before submitting: the cue the stand-in judge reads as an unchecked guess. */
export const GUESS_OPENER = "From memory, it is";

/** Text right before the decision token. */
export const APPROACH_MARKER = "<think>\nI will";

export type ApproachTokens = DecisionTokens;

export function approachTokens(tokenizer: StandinTokenizer): Promise<ApproachTokens> {
  return decisionTokens(tokenizer, APPROACH_MARKER, APPROACHES.map((approach) => ` ${approach.words}`), "approach");
}

/** Positions p of `ids` holding an approach decision, with the approach index. */
export function approachPositions(ids: readonly number[], tokens: ApproachTokens): Array<{ position: number; choice: number }> {
  return decisionPositions(ids, tokens);
}

const TASK = /What is (-?\d+) ([+*−-]) (-?\d+)\?/;

/** The arithmetic task of an episode's first user message, if it is one. */
export function readTask(text: string): { a: number; op: "+" | "*" | "-"; b: number } | null {
  const match = TASK.exec(text);
  if (!match) return null;
  const op = match[2] === "*" ? "*" : match[2] === "+" ? "+" : "-";
  return { a: Number(match[1]), op, b: Number(match[3]) };
}

/** From memory: sums and differences right, products off by one digit's worth (what the stand-in "remembers"). */
export function answerFromMemory(task: { a: number; op: "+" | "*" | "-"; b: number }): number {
  if (task.op === "+") return task.a + task.b;
  if (task.op === "-") return task.a - task.b;
  return task.a * task.b + 10;
}

function firstParameter(tool: OfferedTool): string {
  return tool.parameters.required?.[0] ?? Object.keys(tool.parameters.properties ?? {})[0] ?? "input";
}

function call(tool: OfferedTool, value: unknown): string {
  return callWith(tool.name, { [firstParameter(tool)]: value });
}

function callWith(name: string, args: Record<string, unknown>): string {
  return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
}

export type EpisodePlan = { kind: "approach"; text: (approach: number) => string } | { kind: "fixed"; text: string };

/** The plan for a prompt of an episode of a built-in environment the stand-in can do, or null for any other prompt. */
export function planEpisodeStep(prompt: ReadPrompt, last: PromptTurn | undefined): EpisodePlan | null {
  return planArithmeticStep(prompt, last) ?? planShellStep(prompt, last) ?? planRepositoryStep(prompt, last);
}

/**
 * An arithmetic episode (python and submit_answer offered, the task in the first user message). First step: the
 * approach decision; after python's output: submit it; after the submission: a closing sentence.
 */
function planArithmeticStep(prompt: ReadPrompt, last: PromptTurn | undefined): EpisodePlan | null {
  const python = prompt.tools.find((tool) => tool.name === "python");
  const submit = prompt.tools.find((tool) => tool.name === "submit_answer");
  const question = prompt.turns.find((turn) => turn.role === "user" && !turn.toolResult);
  const task = question ? readTask(question.text) : null;
  if (!python || !submit || !task || !last) return null;
  if (!last.toolResult) {
    const expression = `${task.a} ${task.op} ${task.b}`;
    return {
      kind: "approach",
      text: (approach) =>
        APPROACHES[approach]?.name === "memory"
          ? `${APPROACH_MARKER} ${APPROACHES[approach]!.words}\n</think>\n\n${GUESS_OPENER} ${answerFromMemory(task)}.\n${call(submit, String(answerFromMemory(task)))}`
          : `${APPROACH_MARKER} ${APPROACHES[0]!.words}\n</think>\n\n${call(python, `print(${expression})`)}`,
    };
  }
  const output = toolResultText(last).trim();
  const printed = /^-?\d+$/.exec(output.split("\n")[0]?.trim() ?? "");
  const submittedCall = new RegExp(`"name":\\s*"${submit.name}"`);
  const submitted = prompt.turns.some((turn) => turn.role === "assistant" && submittedCall.test(turn.text));
  if (printed && !submitted) return { kind: "fixed", text: `<think>\nPython printed ${printed[0]}.\n</think>\n\nPython printed ${printed[0]}.\n${call(submit, printed[0])}` };
  return { kind: "fixed", text: "<think>\nSubmitted.\n</think>\n\nDone: I submitted my answer." };
}

/**
 * A terminal episode (run_command offered, a task shell-skills.ts knows in the first user message). First step: the
 * approach decision (run the command, or only say it from memory: then the episode ends undone); after the
 * command's output: done.
 */
function planShellStep(prompt: ReadPrompt, last: PromptTurn | undefined): EpisodePlan | null {
  const shell = prompt.tools.find((tool) => tool.name === "run_command");
  const instruction = prompt.turns.find((turn) => turn.role === "user" && !turn.toolResult)?.text.split("\n\n")[0] ?? "";
  const command = shell ? shellCommandFor(instruction) : null;
  if (!shell || command === null || !last) return null;
  if (last.toolResult) return { kind: "fixed", text: "<think>\nThe command ran.\n</think>\n\nDone: I ran the command for the task." };
  return {
    kind: "approach",
    text: (approach) =>
      APPROACHES[approach]?.name === "memory"
        ? `${APPROACH_MARKER} ${APPROACHES[approach]!.words}\n</think>\n\n${GUESS_OPENER} done with: \`${command}\``
        : `${APPROACH_MARKER} ${TERMINAL_TOOL_WORDS}\n</think>\n\n${call(shell, command)}`,
  };
}

/** The names of the tools an assistant turn called, in order (qwen25's `<tool_call>` JSON lines). */
function calledTools(text: string): string[] {
  return [...text.matchAll(/<tool_call>\n(.*)\n<\/tool_call>/g)].map((match) => {
    try {
      return String((JSON.parse(match[1]!) as { name?: unknown }).name);
    } catch {
      return "";
    }
  });
}

const editCall = (fix: CandidateFix, undo = false) => callWith("edit_file", { path: fix.path, old_text: undo ? fix.newText : fix.oldText, new_text: undo ? fix.oldText : fix.newText });

/**
 * An SWE episode (read_file, edit_file, run_tests and submit offered, a test_X file and X in the first message's file
 * list). Read X; then the approach decision, with the first suspect's edit either way: run the tests with it, or from
 * memory submit it untested; after failing tests: undo the edit, make the next suspect's and run the tests again, or
 * submit when none is left; after passing tests: submit; after the submission: done. (Calls go two or three to a
 * turn, so that a task group's samples fit in the staleness window of configs/rehearsal.yaml.)
 */
function planRepositoryStep(prompt: ReadPrompt, last: PromptTurn | undefined): EpisodePlan | null {
  const offered = new Set(prompt.tools.map((tool) => tool.name));
  const issue = prompt.turns.find((turn) => turn.role === "user" && !turn.toolResult);
  const target = issue ? moduleUnderTest(listedFiles(issue.text)) : null;
  if (!["read_file", "edit_file", "run_tests", "submit"].every((name) => offered.has(name)) || target === null || !last) return null;
  const [submit, runTests] = [callWith("submit", {}), callWith("run_tests", {})];
  if (!last.toolResult) return { kind: "fixed", text: `<think>\nThe tests of ${target} fail; first I read it.\n</think>\n\n${callWith("read_file", { path: target })}` };
  const assistantTurns = prompt.turns.filter((turn) => turn.role === "assistant");
  const lastCalls = calledTools(assistantTurns.at(-1)?.text ?? "");
  const readResult = prompt.turns.find((turn) => turn.toolResult);
  const fixes = readResult ? candidateFixes(target, toolResultText(readResult)) : [];
  if (lastCalls.includes("submit")) return { kind: "fixed", text: "<think>\nSubmitted.\n</think>\n\nDone: I submitted my fix." };
  if (lastCalls.includes("read_file")) {
    const first = fixes[0];
    if (!first) return { kind: "fixed", text: `<think>\nI know no fix for this code.\n</think>\n\nI see no bug I know how to fix in ${target}.` };
    const line = first.oldText.trim();
    return {
      kind: "approach",
      text: (approach) =>
        APPROACHES[approach]?.name === "memory"
          ? `${APPROACH_MARKER} ${APPROACHES[approach]!.words}\n</think>\n\nFrom memory, the bug is \`${line}\`; I fix it and submit.\n${editCall(first)}\n${submit}`
          : `${APPROACH_MARKER} ${SWE_TOOL_WORDS}\n</think>\n\nA likely bug: \`${line}\`.\n${editCall(first)}\n${runTests}`,
    };
  }
  if (lastCalls.includes("run_tests") && /^PASSED: /m.test(toolResultText(last))) {
    return { kind: "fixed", text: `<think>\nThe tests pass.\n</think>\n\nThe tests pass.\n${submit}` };
  }
  const tried = assistantTurns.filter((turn) => calledTools(turn.text).includes("edit_file")).length;
  const [applied, next] = [fixes[tried - 1], fixes[tried]];
  if (!applied || !next) return { kind: "fixed", text: `<think>\nNo fix I know makes the tests pass.\n</think>\n\n${submit}` };
  return {
    kind: "fixed",
    text: `<think>\nThe tests fail; I undo that edit and try the next suspect.\n</think>\n\nNext: \`${next.oldText.trim()}\`.\n${editCall(applied, true)}\n${editCall(next)}\n${runTests}`,
  };
}
