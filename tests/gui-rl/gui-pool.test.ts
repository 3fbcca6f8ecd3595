// The reference's own GUI pool (gui-rl/env_pool_server.py at 0d034dd5, run from OPENCLAW_RL_REFERENCE with Debian's
// python3-flask; desktop_env is our text-desktop stand-in, ./standins) driven by the episode driver through
// GuiEnvironmentClient: a task solved with pyautogui actions and DONE, one left undone (FAIL is sent before the
// evaluation, as the reference's generate does), a task config the desktop refuses (/reset's 500, with its message),
// a pool of one desktop for two episodes (its 500 "Pool exhausted" waited out), and a screenshot pool refused by name.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GuiEnvironmentClient } from "../../orchestrator/episodes/gui-environment-client.ts";
import { readTasks } from "../../orchestrator/episodes/task-file.ts";
import { testDriver } from "../episodes/test-driver.ts";
import { startHarness, type Harness } from "../proxy/harness.ts";
import { freePort } from "../support/loopback.ts";
import { blobId, referenceCheckout, startPythonServers, type PythonServers } from "../support/reference-checkout.ts";

const SERVER = "gui-rl/env_pool_server.py";
const checkout = referenceCheckout(SERVER);
const root = "root" in checkout ? checkout.root : "";

const act = (action: string) => `<think>\nI act.\n</think>\n\n<tool_call>\n{"name": "computer", "arguments": {"action": ${JSON.stringify(action)}}}\n</tool_call>`;

/** The model: types hello and says DONE when asked to type hello; answers in words otherwise. */
function script(prompt: string): string {
  if (!prompt.includes("Type hello")) return "<think>\nNo.\n</think>\n\nI will not.";
  const results = prompt.split("<tool_response>").length - 1;
  return results === 0 ? act("pyautogui.typewrite('hello')") : results === 1 ? act("DONE") : "<think>\nDone.\n</think>\n\nDone.";
}

async function startPool(observationType: string, maxEnvs: number): Promise<{ url: string; servers: PythonServers }> {
  const port = await freePort();
  // run_path, not `python3 gui-rl/env_pool_server.py`: the script's folder would come first on sys.path, and with it the
  // reference's own desktop_env (virtual machines) before our stand-in
  const launch = "import runpy, sys; path = sys.argv[1]; sys.argv = [path, *sys.argv[2:]]; runpy.run_path(path, run_name='__main__')";
  const servers = await startPythonServers([{ port, args: ["-c", launch, path.join(root, SERVER), "--host", "127.0.0.1", "--port", String(port), "--max-envs", String(maxEnvs), "--observation-type", observationType] }], () => ({
    PYTHONPATH: path.join(import.meta.dirname, "standins"),
  }));
  return { url: `http://127.0.0.1:${port}`, servers };
}

describe.skipIf(!root)("the reference's GUI pool (Gen-Verse/OpenClaw-RL@0d034dd5 gui-rl/env_pool_server.py) through GuiEnvironmentClient", () => {
  let harness: Harness | null = null;
  let pool: PythonServers | null = null;
  afterEach(async () => {
    await harness?.close();
    await pool?.close();
    harness = pool = null;
  });

  it("is the file of 0d034dd5 (git blob id)", () => {
    expect(blobId(path.join(root, SERVER))).toBe("8c8ce61c74a7c8f850be99f2bc9f8a60fe27c1f7");
  });

  it("runs episodes on text observations (the accessibility tree): solved with DONE, undone, refused at /reset; one desktop for two episodes", async () => {
    const started = await startPool("a11y_tree", 1);
    pool = started.servers;
    harness = await startHarness({ script });
    const tasks = await readTasks(path.join(import.meta.dirname, "tasks.jsonl"));
    const environment = new GuiEnvironmentClient(started.url, { retryDelayMs: 1, capacityBackoffMs: 20 });
    const results = await testDriver(harness.url, started.url, tasks, { environment, samplesPerTask: 1 }).run();
    const byTask = Object.fromEntries(results.map((result) => [result.taskKey, result]));
    expect(byTask["editor:type-hello"]).toMatchObject({ steps: 2, ended: "environment-done", score: 1, failure: null });
    expect(byTask["editor:type-bye"]).toMatchObject({ steps: 1, ended: "no-tool-call", score: 0, failure: null });
    expect(byTask["editor:no-evaluator"]).toMatchObject({ steps: 0, ended: "failed", score: null });
    expect(byTask["editor:no-evaluator"]!.failure).toMatch(/\/reset answered 500, ok false: task config has no evaluator \(after 10 tries\)/);
    // the first step's next state is the tree after typing
    const first = harness.closed.find((turn) => turn.episode?.id.startsWith("editor:type-hello:") && turn.turn === 0);
    expect(first?.nextState?.text).toContain('<text-area name="document">hello</text-area>');
    expect(pool.logs()).toMatch(/POST \/allocate HTTP\/1.1\S*" 500/); // the second episode met "Pool exhausted: 1/1" and waited
    const status = (await (await fetch(`${started.url}/status`)).json()) as { pool: { leases: number; total_envs: number } };
    expect(status.pool).toMatchObject({ leases: 0, total_envs: 1 });
  });

  it("refuses a pool that gives screenshots only, by name", async () => {
    const started = await startPool("screenshot", 2);
    pool = started.servers;
    harness = await startHarness({ script });
    const tasks = (await readTasks(path.join(import.meta.dirname, "tasks.jsonl"))).slice(0, 1);
    const environment = new GuiEnvironmentClient(started.url, { retryDelayMs: 1 });
    const [result] = await testDriver(harness.url, started.url, tasks, { environment, samplesPerTask: 1 }).run();
    expect(result).toMatchObject({ steps: 0, ended: "failed", score: null });
    expect(result!.failure).toMatch(/a screenshot and no accessibility tree: screenshot observations are not supported \(the proxy does not capture images yet\)/);
  });
});
