// The sample gate: each detector alone (Qwen3's real tokenizer on loops and on legitimately repetitive text: tables,
// numbers, code, prose), then in the judge pipeline: a looping answer cut at the limit and thanked is not trained.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { answerCharCount, gateTurn, measureRepetition } from "../../orchestrator/samples/sample-gate.ts";
import { makeTurn, qwen3, startHarness, type Harness } from "./judge-harness.ts";

const settings = recipeSchema.parse({}).training.sample_gate;
const root = path.join(import.meta.dirname, "../..");

const LOOPS: Record<string, string> = {
  "a sentence repeated": "Let me check the configuration.\n" + "I need to verify the file again to be sure it is correct.\n".repeat(80),
  "one word repeated": "Answer: " + "the ".repeat(600),
  "a long paragraph repeated": "Intro.\n" + "This paragraph explains step one, then step two, then step three of the installation, which is followed by a check of the logs and a restart of the service if the logs show any error at all. ".repeat(20),
};

const LEGITIMATE: Record<string, () => string> = {
  "a markdown table": () => ["| id | name | score |", "| --- | --- | --- |", ...Array.from({ length: 80 }, (_, index) => `| ${index} | user${index} | ${(index * 37) % 101} |`)].join("\n"),
  "a list of numbers": () => Array.from({ length: 400 }, (_, index) => index + 100).join(", "),
  "an array of zeros with row comments": () => "x = [\n" + Array.from({ length: 100 }, (_, index) => `    0, 0, 0, 0,  # row ${index}`).join("\n"),
  "near-identical assertions": () => Array.from({ length: 60 }, (_, index) => `    assert parse("${index}") == ${index}`).join("\n"),
  "prose with tables (docs/architecture.md)": () => readFileSync(path.join(root, "docs/architecture.md"), "utf8"),
  "TypeScript source (judge-pipeline.ts)": () => readFileSync(path.join(root, "orchestrator/judging/judge-pipeline.ts"), "utf8"),
};

async function ids(text: string): Promise<number[]> {
  return (await qwen3()).tokenizer.encode(text);
}

describe("repetition detector", () => {
  for (const [name, text] of Object.entries(LOOPS)) {
    it(`trips on ${name}`, async () => {
      const measure = measureRepetition(await ids(text), settings.loop_window_tokens, settings.loop_ngram_tokens);
      expect(measure.window).toBeGreaterThanOrEqual(settings.loop_min_tokens);
      expect(measure.repeatFraction).toBeGreaterThanOrEqual(settings.max_repeat_fraction);
    });
  }
  for (const [name, text] of Object.entries(LEGITIMATE)) {
    it(`does not trip on ${name}`, async () => {
      const tokens = await ids(text());
      expect(tokens.length).toBeGreaterThan(600); // long enough to be checked
      expect(measureRepetition(tokens, settings.loop_window_tokens, settings.loop_ngram_tokens).repeatFraction).toBeLessThan(settings.max_repeat_fraction - 0.15);
    });
  }
  it("looks only at the tail: a loop that ended long before the end is not one", async () => {
    const tokens = await ids("word ".repeat(400) + readFileSync(path.join(root, "docs/architecture.md"), "utf8"));
    expect(measureRepetition(tokens, 1024, 8).repeatFraction).toBeLessThan(0.1);
  });
  it("a window shorter than the n-gram has no repeats", () => {
    expect(measureRepetition([1, 1, 1], 1024, 8)).toEqual({ window: 3, repeatFraction: 0 });
    expect(measureRepetition([5, 5, 5, 5], 1024, 2)).toEqual({ window: 4, repeatFraction: 2 / 3 });
  });
});

describe("near-empty detector", () => {
  it("counts visible answer characters, not reasoning or whitespace; a tool call is an answer", () => {
    expect(answerCharCount({ role: "assistant", content: " \n a \t", reasoning_content: "long thoughts" })).toBe(1);
    expect(answerCharCount({ role: "assistant", content: null })).toBe(0);
    expect(answerCharCount({ role: "assistant", content: "", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] })).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("gateTurn", () => {
  const base = { finishReason: "stop" as const, responseIds: [1, 2, 3, 4], response: { role: "assistant" as const, content: "About 8 km." } };
  it("passes an ordinary answer, and everything when disabled", () => {
    expect(gateTurn(base, settings)).toEqual({ pass: true });
    expect(gateTurn({ ...base, finishReason: "length", response: { role: "assistant", content: "." } }, { ...settings, enabled: false })).toEqual({ pass: true });
  });
  it("refuses a response cut at the token limit unless drop_truncated is off", () => {
    expect(gateTurn({ ...base, finishReason: "length" }, settings)).toMatchObject({ pass: false, category: "truncated", reason: expect.stringContaining("finish reason length") });
    expect(gateTurn({ ...base, finishReason: "length" }, { ...settings, drop_truncated: false })).toEqual({ pass: true });
  });
  it("refuses a one-character answer (the reference's garbage samples) and an empty one", () => {
    expect(gateTurn({ ...base, response: { role: "assistant", content: "a" } }, settings)).toMatchObject({ pass: false, category: "near-empty" });
    expect(gateTurn({ ...base, response: { role: "assistant", content: "  " } }, settings)).toMatchObject({ pass: false, category: "near-empty" });
    expect(gateTurn({ ...base, response: { role: "assistant", content: "a" } }, { ...settings, min_answer_chars: 0 })).toEqual({ pass: true });
  });
  it("refuses a loop that stopped on its own (finish reason stop)", async () => {
    const responseIds = await ids(LOOPS["a sentence repeated"]!);
    expect(gateTurn({ ...base, responseIds }, settings)).toMatchObject({ pass: false, category: "repetition", reason: expect.stringMatching(/^repetition loop: 9\d% of the 8-token sequences in the last 1024 tokens/) });
  });
});

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe("the gate in the judge pipeline", () => {
  const loopingAnswer = LOOPS["a sentence repeated"]!;

  it("a looping answer cut at the limit, then thanked: trained +1 without the gate, no sample with it", async () => {
    harness = await startHarness({ method: "binary", training: { sample_gate: { enabled: false } } });
    harness.judge.script("CASE-loop", "eval", ["The user thanked the assistant. \\boxed{1}"]);
    const thanked = "[Sun 2026-11-22 06:26 UTC] CASE-loop thanks, that's great!"; // (the judge is shown the answer's tail and the reply)
    const ungated = await harness.judgeTurn(await makeTurn({ marker: "CASE-loop", answer: loopingAnswer, finishReason: "length", next: thanked }));
    expect(ungated.skipped).toBeNull();
    expect(ungated).toMatchObject({ score: 1, sample: { kind: "rl", reward: 1 } }); // what the issue saw
    await harness.close();

    harness = await startHarness({ method: "binary" });
    harness.judge.script("CASE-loop", "eval", ["The user thanked the assistant. \\boxed{1}"]);
    const gated = await harness.judgeTurn(await makeTurn({ marker: "CASE-loop", answer: loopingAnswer, finishReason: "length", next: thanked }));
    expect(gated).toMatchObject({ sample: null, skipCategory: "truncated", skipped: expect.stringMatching(/^sample gate: cut at the token limit/) });
    expect(harness.judge.callsFor("CASE-loop")).toBe(0); // refused before any judge call
    expect(harness.sink.samples).toHaveLength(0);
    const [record] = await harness.records();
    expect(record).toMatchObject({ sample: null, gate: { category: "truncated" }, evaluation: null });
  });

  it("explicit 👍 on a loop that stopped by itself, and a one-character answer: no sample, each reason counted", async () => {
    harness = await startHarness({ method: "binary" });
    harness.judge.script("CASE-ok", "eval", ["\\boxed{1}"]);
    const loop = await harness.judgeTurn(await makeTurn({ marker: "CASE-thumbs", sessionId: "s-loop", answer: loopingAnswer, next: "👍" }));
    const garbage = await harness.judgeTurn(await makeTurn({ marker: "CASE-tiny", sessionId: "s-tiny", answer: "x", next: "👍" }));
    const fine = await harness.judgeTurn(await makeTurn({ marker: "CASE-ok", sessionId: "s-ok" }));
    expect(loop).toMatchObject({ sample: null, skipCategory: "repetition" });
    expect(garbage).toMatchObject({ sample: null, skipCategory: "near-empty" });
    expect(fine).toMatchObject({ sample: { reward: 1 } });
    expect((await harness.stats()).skipped).toEqual({ repetition: 1, "near-empty": 1 });
    const records = await harness.records();
    console.log(records.map((record) => `${record.sessionId}:${record.turn} → ${record.sample ? `sample reward ${record.sample.reward}` : record.skipped}`).join("\n"));
  });
});
