// Test harness of the supervisor tests: a temp run folder, the fixture executables first on PATH, the
// fixture event log, free ports, and the ProcessSpecs a launch plan would produce for them.
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BridgeHello } from "../../contracts/bridge.ts";
import type { ProcessSpec } from "../../contracts/plan.ts";
import { recipeSchema, type Recipe, type RecipeInput } from "../../contracts/recipe.ts";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";

export const FIXTURE_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/bin");

export interface FixtureEvent {
  who: string;
  event: string;
  pid: number;
  at: number;
  argv?: string[];
  env?: Record<string, string>;
  [key: string]: unknown;
}

export class Harness {
  readonly root = mkdtempSync(path.join(tmpdir(), "openclaw-rl-supervisor-"));
  readonly runDir = path.join(this.root, "run");
  readonly fixtureLog = path.join(this.root, "fixtures.log");
  readonly environment: Record<string, string | undefined> = {
    PATH: `${FIXTURE_BIN}:${process.env.PATH}`,
    HOME: process.env.HOME,
    FIXTURE_LOG: this.fixtureLog,
    FIXTURE_DIR: this.root,
    FAKE_RAY_STATE: path.join(this.root, "ray-state"),
    FAKE_SLIME_HELLO_FILE: path.join(this.root, "hello.json"),
  };

  events(): FixtureEvent[] {
    if (!existsSync(this.fixtureLog)) return [];
    return readFileSync(this.fixtureLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as FixtureEvent);
  }

  find(predicate: (event: FixtureEvent) => boolean): FixtureEvent | undefined {
    return this.events().find(predicate);
  }

  /** Index in the fixture log of the first event matching, for order assertions (-1 when absent). */
  indexOf(predicate: (event: FixtureEvent) => boolean): number {
    return this.events().findIndex(predicate);
  }

  crash(role: "judge" | "slime"): void {
    writeFileSync(path.join(this.root, `crash-${role}`), "");
  }

  hello(): (BridgeHello & { load: string | null }) | null {
    const file = this.environment.FAKE_SLIME_HELLO_FILE!;
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
  }
}

export { freePort } from "../support/loopback.ts";

/** A slime recipe whose every listening port is one the caller chose free: no test may depend on the defaults (a `start`
 * on this machine holds 30000/30001). */
export function slimeRecipe(overrides: { rayPort: number; dashboardPort: number; judgePort: number; proxyPort: number; adminPort: number; restartOnCrash?: boolean; nodes?: number; runDir: string }): Recipe {
  const input: RecipeInput = {
    method: "binary",
    proxy: { port: overrides.proxyPort, admin_port: overrides.adminPort },
    cluster: { ray_port: overrides.rayPort, dashboard_port: overrides.dashboardPort, nodes: overrides.nodes ?? 1, gpus_per_node: 8 },
    judge: { launch: "standalone", port: overrides.judgePort },
    training: { restart_on_crash: overrides.restartOnCrash ?? false },
    engine: { kind: "slime", slime: { ray: "ray", python: "python3" } },
    records: { dir: overrides.runDir },
  };
  return recipeSchema.parse(input);
}

/** The processes a slime plan holds: Ray head, the job (train_async.py through `ray job submit`), a standalone judge. */
export function slimeProcesses(recipe: Recipe, cwd: string, submissionId = "openclaw-rl-test"): ProcessSpec[] {
  const dashboard = `http://127.0.0.1:${recipe.cluster.dashboard_port}`;
  return [
    {
      name: "ray-head",
      role: "ray-head",
      // --block as the plan's (launchers/slime/ray-cluster.ts): the leader stays and stops its Ray processes on SIGTERM
      argv: ["ray", "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", String(recipe.cluster.ray_port), "--num-gpus", "8", "--disable-usage-stats", "--dashboard-host=127.0.0.1", "--dashboard-port", String(recipe.cluster.dashboard_port)],
      env: { RAY_health_check_failure_threshold: "20", PYTHONUNBUFFERED: "1" },
      cwd,
      node: 0,
    },
    {
      name: "slime-job",
      role: "slime-job",
      argv: [
        "ray", "job", "submit", "--address", dashboard, "--submission-id", submissionId,
        "--runtime-env-json", JSON.stringify({ env_vars: { PYTHONPATH: "/opt/Megatron-LM", CUDA_DEVICE_MAX_CONNECTIONS: "1", OPENCLAW_RL_BRIDGE_TOKEN: "secret-token" } }),
        "--", "python3", "train_async.py", "--actor-num-gpus-per-node", "4", "--save", path.join(cwd, "checkpoints"), "--rollout-batch-size", "16",
      ],
      env: { PYTHONUNBUFFERED: "1" },
      cwd,
      node: 0,
      secretEnv: [],
    },
    {
      name: "judge",
      role: "judge-server",
      port: recipe.judge.port,
      argv: ["python3", "-m", "sglang.launch_server", "--model-path", "/models/judge", "--port", String(recipe.judge.port), "--host", "127.0.0.1", "--tp", "2"],
      env: { CUDA_VISIBLE_DEVICES: "6,7", SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION: "false" },
      cwd,
      node: 0,
    },
  ];
}

/** Polls `check` every 50 ms until it returns something truthy (that value); throws naming `what` after HANG_GUARD_MS. */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what = "condition"): Promise<T> {
  const deadline = Date.now() + HANG_GUARD_MS;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
