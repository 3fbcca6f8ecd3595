// Explicit approval / disapproval in a next-state message, after OpenClaw's timestamp prefix; the endpoint body schema.
import { describe, expect, it } from "vitest";
import { detectExplicitScore, feedbackBodySchema, stripTimestampPrefix } from "../../orchestrator/judging/explicit-feedback.ts";

describe("detectExplicitScore", () => {
  it.each([
    ["👍", 1],
    ["👍🏽", 1],
    ["👍👍!", 1],
    ["+1", 1],
    ["  Thumbs up ", 1],
    [":+1:", 1],
    ["[Sun 2026-11-22 06:25 UTC] 👍", 1],
    ["[Mon 2026-11-23 18:05:09 GMT+1] thumbs-up.", 1],
    ["👎", -1],
    ["-1", -1],
    ["[Sun 2026-11-22 06:25 UTC] thumbs down", -1],
    ["👎👎", -1],
  ])("%s → %s", (text, score) => {
    expect(detectExplicitScore(text)).toBe(score);
  });

  it.each(["👍 but please also add the tests", "👍👎", "+1 for the idea, now do it again", "1", "", "[Sun 2026-11-22 06:25 UTC] ", "thanks!", "I give it a -1 honestly"])("%s → null", (text) => {
    expect(detectExplicitScore(text)).toBeNull();
  });

  it("strips only the leading timestamp", () => {
    expect(stripTimestampPrefix("[Sun 2026-11-22 06:25 UTC] hello [x]")).toBe("hello [x]");
    expect(stripTimestampPrefix("hello")).toBe("hello");
  });
});

describe("feedbackBodySchema", () => {
  it("accepts score, hint, turn", () => {
    expect(feedbackBodySchema.parse({ session_id: "s", turn: 2, score: -1, hint: "Use metric." })).toEqual({ session_id: "s", turn: 2, score: -1, hint: "Use metric." });
  });
  it("names the bad field", () => {
    expect(feedbackBodySchema.safeParse({ session_id: "s", score: 2 }).error?.issues[0]?.path).toEqual(["score"]);
    expect(feedbackBodySchema.safeParse({ session_id: "", score: 1 }).error?.issues[0]?.path).toEqual(["session_id"]);
    expect(feedbackBodySchema.safeParse({ session_id: "s" }).error?.issues[0]?.message).toMatch(/score, a hint, or both/);
    expect(feedbackBodySchema.safeParse({ session_id: "s", score: 1, extra: 1 }).success).toBe(false);
  });
});
