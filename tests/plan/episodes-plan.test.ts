// Episodes in the plan: the built-in environment server is a supervised process on its loopback port; on the fork,
// slime trains episode steps through its own step_wise estimator (normalisation off: the orchestrator standardised
// the buckets over whole task groups), on upstream (no step_wise) through GRPO without normalisation. Recipe rules.
import { describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { defineChildren } from "../../launchers/supervisor/plan-children.ts";
import { goldenPlan, trainArgv } from "../golden/golden-plan.ts";

const estimator = (argv: string[]) => argv[argv.indexOf("--advantage-estimator") + 1];

describe("episodes in the launch plan", () => {
  it("the fork trains through step_wise, upstream through GRPO, both without rewards normalisation", async () => {
    const fork = trainArgv(await goldenPlan("qwen3-4b-toolcall-episodes"));
    expect(estimator(fork)).toBe("step_wise");
    expect(fork).toContain("--disable-rewards-normalization");
    const upstream = trainArgv(await goldenPlan("qwen3-4b-toolcall-episodes", ["engine.slime.flavor=upstream", "judge.launch=standalone"]));
    expect(estimator(upstream)).toBe("grpo");
    expect(upstream).toContain("--disable-rewards-normalization");
    // chat-only recipes keep GRPO on the fork
    expect(estimator(trainArgv(await goldenPlan("qwen3-4b-binary")))).toBe("grpo");
  });

  it("runs the built-in environment as a supervised child on its port, with the recipe's task file", async () => {
    const plan = await goldenPlan("rehearsal", ["method=binary", "episodes.environment=terminal", "episodes.environment_port=18123", "episodes.tasks=/data/tasks.jsonl", "episodes.concurrency=3"]);
    const environment = plan.processes.find((process) => process.role === "environment-server")!;
    expect(environment).toMatchObject({ name: "environment-terminal", port: 18123, node: 0 });
    expect(environment.argv.slice(3)).toEqual(["/opt/openclaw-rl/environments/serve.ts", "--kind", "terminal", "--host", "127.0.0.1", "--port", "18123", "--slots", "3", "--tasks", "/data/tasks.jsonl"]);
    const recipe = recipeSchema.parse({ method: "binary", engine: { kind: "rehearsal" }, episodes: { environment: "terminal", environment_port: 18123 } });
    const child = defineChildren(plan, recipe, { bridgeHello: () => null, baseEnvironment: {} }).find((definition) => definition.name === "environment-terminal")!;
    expect(child).toMatchObject({ lifetime: "service", gatesTraffic: false });
    // swe: each episode's final patch goes to the run folder's patches.jsonl
    const swe = (await goldenPlan("rehearsal", ["method=binary", "episodes.environment=swe"])).processes.find((process) => process.role === "environment-server")!;
    expect(swe.argv.slice(3, 5)).toEqual(["/opt/openclaw-rl/environments/serve.ts", "--kind"]);
    expect(swe.argv.slice(5, 6)).toEqual(["swe"]);
    expect(swe.argv.at(-2)).toBe("--patches");
    expect(swe.argv.at(-1)).toMatch(/\/patches\.jsonl$/);
    expect(environment.argv).not.toContain("--patches");
    // without episodes, no environment process
    expect((await goldenPlan("rehearsal")).processes.some((process) => process.role === "environment-server")).toBe(false);
  });

  it("the recipe refuses env_url together with environment, and opd with episodes, naming the keys", () => {
    const both = recipeSchema.safeParse({ method: "binary", episodes: { environment: "toolcall", env_url: "http://127.0.0.1:18090", tasks: "t.jsonl" } });
    expect(both.success).toBe(false);
    expect(both.error!.issues.map((issue) => issue.path.join("."))).toContain("episodes.environment");
    const opd = recipeSchema.safeParse({ method: "opd", episodes: { environment: "toolcall" } });
    expect(opd.success).toBe(false);
    expect(opd.error!.issues[0]).toMatchObject({ path: ["method"], message: expect.stringContaining("binary or combine") });
  });
});
