// The external judge's URL, resolved once (recipe.derived.judgeUrl): judge.url wins over engine.judge_url;
// the engine URLs start hands the orchestrator, the plan's note and the supervisor's endpoint all read it there.
import { describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";

const external = (judge: Record<string, unknown>, engine: Record<string, unknown>) =>
  recipeSchema.parse({ engine: { kind: "external", policy_url: "http://127.0.0.1:9001", ...engine }, judge: { launch: "external", ...judge } });

describe("recipe.derived.judgeUrl", () => {
  it("judge.url first, then engine.judge_url; null for a judge we launch", () => {
    expect(external({ url: "http://127.0.0.1:9002" }, { judge_url: "http://127.0.0.1:9003" }).derived.judgeUrl).toBe("http://127.0.0.1:9002");
    expect(external({}, { judge_url: "http://127.0.0.1:9003" }).derived.judgeUrl).toBe("http://127.0.0.1:9003");
    expect(recipeSchema.parse({ engine: { kind: "rehearsal" } }).derived.judgeUrl).toBeNull();
  });

  it("the engine URLs start hands the orchestrator use it", () => {
    expect(external({ url: "http://127.0.0.1:9002" }, { judge_url: "http://127.0.0.1:9003" }).derived.engineUrls).toEqual({ policy: "http://127.0.0.1:9001", judge: "http://127.0.0.1:9002" });
  });
});
