// The rehearsal engine's process plan, and the planned stand-in servers actually starting from that argv:
// banner ("the model is a stand-in"), /health, and the policy's stand-in state on the recipe's port.
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { PlanContext } from "../../contracts/plan.ts";
import { recipeSchema, recipeSettingsOf } from "../../contracts/recipe.ts";
import { rehearsalProcesses } from "../../launchers/rehearsal-plan.ts";
import { freePort } from "../support/loopback.ts";
import { untilListening } from "./stand-in-start.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const context: PlanContext = { packageRoot: root, runDir: "/tmp/run", bridgeUrl: "http://127.0.0.1:4567", bridgeToken: "sekret", environment: {} };

describe("rehearsalProcesses", () => {
  it("plans the policy and judge stand-ins on the recipe's ports and the trainer with the bridge env", () => {
    const recipe = recipeSchema.parse({ method: "opd", engine: { kind: "rehearsal", rehearsal: { policy_port: 4100, judge_port: 4101, train_seconds: 0.5, seed: 9 } }, training: { batch_size: 6 }, model: { path: "builtin:qwen3" } });
    const [policy, judge, trainer] = rehearsalProcesses(recipe, context);
    expect([policy!.name, judge!.name, trainer!.name]).toEqual(["rehearsal-policy", "rehearsal-judge", "rehearsal-trainer"]);
    expect(policy!.argv.slice(1, 4)).toEqual(["--import", "tsx/esm", path.join(root, "rehearsal/sglang/main.ts")]);
    expect(policy!.argv.join(" ")).toContain("--role policy --port 4100 --tokenizer builtin:qwen3");
    expect(judge!.argv.join(" ")).toContain("--role judge --port 4101");
    expect(trainer!.argv[0]).toBe("/usr/bin/python3");
    expect(trainer!.argv.join(" ")).toContain("--policy-url http://127.0.0.1:4100 --judge-url http://127.0.0.1:4101 --method opd --batch-size 6 --train-seconds 0.5 --learn auto");
    expect(trainer!.argv.join(" ")).toContain("--run-dir /tmp/run");
    expect(trainer!.env).toEqual({ OPENCLAW_RL_BRIDGE: "http://127.0.0.1:4567", OPENCLAW_RL_BRIDGE_TOKEN: "sekret", PYTHONPATH: path.join(root, "native"), PYTHONUNBUFFERED: "1" });
    expect(trainer!.secretEnv).toEqual(["OPENCLAW_RL_BRIDGE_TOKEN"]);
    expect(trainer!.argv.join(" ")).not.toContain("sekret");
    expect(trainer!.argv.join(" ")).toContain("--opd-teacher trainer --teacher-temperature 0.6"); // opd.teacher unset: the trainer scores the teacher where it can
    const engine = recipeSchema.parse({ ...recipeSettingsOf(recipe), opd: { ...recipe.opd, teacher: "engine" } });
    expect(rehearsalProcesses(engine, context).find((process) => process.name === "rehearsal-trainer")!.argv).not.toContain("--opd-teacher"); // the judge stand-in scores it
  });

  it("opd.teacher trainer: the stand-in trainer scores the teacher tokens itself at the teacher temperature", () => {
    const recipe = recipeSchema.parse({ method: "combine", opd: { teacher: "trainer" }, sampling: { temperature: 0.7 }, engine: { kind: "rehearsal" }, model: { path: "builtin:qwen3" } });
    const trainer = rehearsalProcesses(recipe, context).find((process) => process.name === "rehearsal-trainer");
    expect(trainer!.argv.join(" ")).toContain("--opd-teacher trainer --teacher-temperature 0.7 --run-dir /tmp/run");
  });

  it("plans no trainer with sink.kind jsonl (no bridge to read samples from; they go to the file)", () => {
    const recipe = recipeSchema.parse({ engine: { kind: "rehearsal" }, sink: { kind: "jsonl", path: "samples.jsonl" }, model: { path: "builtin:qwen3" } });
    expect(rehearsalProcesses(recipe, { ...context, bridgeUrl: "", bridgeToken: "" }).map((process) => process.name)).toEqual(["rehearsal-policy", "rehearsal-judge"]);
  });

  it("starts the planned policy stand-in: banner, health, stand-in state", async () => {
    const port = await freePort();
    const recipe = recipeSchema.parse({ engine: { kind: "rehearsal", rehearsal: { policy_port: port, judge_port: await freePort() } }, model: { path: "builtin:qwen3" } });
    const [policy] = rehearsalProcesses(recipe, context);
    const child = execa(policy!.argv[0]!, policy!.argv.slice(1), { cwd: policy!.cwd, env: policy!.env, reject: false });
    try {
      const banner = await untilListening(child);
      expect(banner).toContain("[standin-policy] the model is a stand-in");
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      const state = (await (await fetch(`http://127.0.0.1:${port}/standin/state`)).json()) as { role: string; weight_version: string; responder: { style_token_ids: number[] } };
      expect(state.role).toBe("policy");
      expect(state.weight_version).toBe("default");
      expect(state.responder.style_token_ids).toHaveLength(3);
    } finally {
      child.kill("SIGTERM");
      await child;
    }
  });

  it("refuses a bad --role with exit 2 and a message", async () => {
    const result = await execa(process.execPath, ["--import", "tsx/esm", "rehearsal/sglang/main.ts", "--role", "teacher", "--port", "0"], { cwd: root, reject: false });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/--role/);
  });
});
