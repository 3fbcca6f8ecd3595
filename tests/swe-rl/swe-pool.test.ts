// The reference's own SWE servers (swe-rl/server/swe_env_pool_server.py in front of swe_exec_server.py at 0d034dd5,
// run from OPENCLAW_RL_REFERENCE with Debian's python3-flask and python3-requests; `docker` is our stand-in over
// folders, ./standins/bin) driven by the episode driver through SweEnvironmentClient: a bug fixed with bash (the
// patch from /diff, evaluated in a fresh container: resolved), a task whose image the node lacks (/allocate's 500,
// with its message), and an episode that changes nothing (no patch: 0 without an evaluation).
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SweEnvironmentClient } from "../../orchestrator/episodes/swe-environment-client.ts";
import { readTasks } from "../../orchestrator/episodes/task-file.ts";
import { testDriver } from "../episodes/test-driver.ts";
import { startHarness, type Harness } from "../proxy/harness.ts";
import { freePort } from "../support/loopback.ts";
import { blobId, referenceCheckout, startPythonServers, type PythonServers } from "../support/reference-checkout.ts";

const POOL = "swe-rl/server/swe_env_pool_server.py";
const EXEC = "swe-rl/server/swe_exec_server.py";
const checkout = referenceCheckout(POOL);
const root = "root" in checkout ? checkout.root : "";

const bash = (command: string) => `<think>\nI run it.\n</think>\n\n<tool_call>\n{"name": "bash", "arguments": {"command": ${JSON.stringify(command)}}}\n</tool_call>`;

/** The model: reads calc.py, fixes it and runs the test, then answers; for "Leave it" it answers at once. */
function script(prompt: string): string {
  if (prompt.includes("Leave it")) return "<think>\nNothing to do.\n</think>\n\nNothing changed.";
  const results = prompt.split("<tool_response>").length - 1;
  if (results === 0) return bash("cat calc.py");
  if (results === 1) return bash("sed -i 's/a - b/a + b/' calc.py && python3 test_calc.py");
  return "<think>\nThe test passes.\n</think>\n\nFixed: add adds.";
}

describe.skipIf(!root)("the reference's SWE pool and exec server (Gen-Verse/OpenClaw-RL@0d034dd5) through SweEnvironmentClient", () => {
  let exec: PythonServers;
  let pool: PythonServers;
  let poolUrl: string;
  let execUrl: string;
  let harness: Harness;
  beforeAll(async () => {
    const [execPort, poolPort] = [await freePort(), await freePort()];
    const standins = (work: string) => ({
      PATH: `${path.join(import.meta.dirname, "standins/bin")}${path.delimiter}${process.env.PATH ?? ""}`,
      STANDIN_CONTAINER_ROOT: path.join(work, "containers"),
      STANDIN_IMAGE_ROOT: path.join(import.meta.dirname, "images"),
    });
    // the exec server first: the pool checks its nodes' health once at start (then every 30 s)
    exec = await startPythonServers([{ port: execPort, args: [path.join(root, EXEC), "--host", "127.0.0.1", "--port", String(execPort)] }], standins);
    execUrl = `http://127.0.0.1:${execPort}`;
    pool = await startPythonServers([{ port: poolPort, args: [path.join(root, POOL), "--host", "127.0.0.1", "--port", String(poolPort), "--exec-server-urls", execUrl, "--max-containers-per-node", "2"] }], () => ({}));
    poolUrl = `http://127.0.0.1:${poolPort}`;
    harness = await startHarness({ script });
  });
  afterAll(async () => {
    await harness?.close();
    await pool?.close();
    await exec?.close();
  });

  it("are the files of 0d034dd5 (git blob ids)", () => {
    expect([blobId(path.join(root, POOL)), blobId(path.join(root, EXEC))]).toEqual(["2ccae97b7133852cb00393fe9dee2dc5a00492ab", "460115704e54c3e34a34b333cef8ca800dce4b29"]);
  });

  it("fixes a bug with bash and is resolved; a missing image fails at /allocate with their message; no change scores 0", async () => {
    const tasks = await readTasks(path.join(import.meta.dirname, "tasks.jsonl"));
    const environment = new SweEnvironmentClient(poolUrl, { retryDelayMs: 1 });
    const results = await testDriver(harness.url, poolUrl, tasks, { environment, samplesPerTask: 1 }).run();
    const byTask = Object.fromEntries(results.map((result) => [result.taskKey, result]));
    expect(byTask["calc:calc__add-1"]).toMatchObject({ steps: 3, ended: "no-tool-call", score: 1, failure: null });
    expect(environment.patch(byTask["calc:calc__add-1"]!.episodeId)).toMatch(/^diff --git a\/calc.py b\/calc.py\n[\s\S]*-    return a - b\n\+    return a \+ b\n$/);
    expect(byTask["calc:calc__untouched"]).toMatchObject({ steps: 1, ended: "no-tool-call", score: 0, failure: null });
    expect(environment.patch(byTask["calc:calc__untouched"]!.episodeId)).toBe("");
    expect(byTask["calc:calc__missing-image"]).toMatchObject({ steps: 0, ended: "failed", score: null });
    // their pool keeps only requests' words for the exec server's 500 (raise_for_status), not the node's "Unable to find image"
    expect(byTask["calc:calc__missing-image"]!.failure).toMatch(/\/allocate answered 500, ok false: 500 Server Error: INTERNAL SERVER ERROR for url: http:\/\/127\.0\.0\.1:\d+\/container\/create \(after 10 tries\)/);
    expect(exec.logs()).toContain("POST /container/create HTTP/1.1");
    // the observation of the first step: the file, as their exec server runs it in the container
    const first = harness.closed.find((turn) => turn.episode?.id.startsWith("calc:calc__add-1:") && turn.turn === 0);
    expect(first?.nextState?.text).toContain("returncode: 0\ndef add(a, b):\n    return a - b");
    // the evaluation ran in a fresh container (the agent's was closed first); every container is gone
    expect(pool.logs()).toMatch(/Allocated lease=swe-lease-\w+ .* image=calc:latest/);
    expect(((await (await fetch(`${poolUrl}/status`)).json()) as { pool: { total_leases: number } }).pool.total_leases).toBe(0);
    expect(((await (await fetch(`${execUrl}/status`)).json()) as { active_containers: number }).active_containers).toBe(0);
  });
});
