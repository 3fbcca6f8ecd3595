// The reference's own terminal servers (terminal-rl/remote/pool_server.py behind terminal-rl/router_server.py at
// 0d034dd5, reference-servers.ts) against our side: our lease test server answers every request as they do, and the
// episode driver runs episodes against them: solved, a tool error on the way, a task missing from their dataset.
// Needs a checkout of the reference named by OPENCLAW_RL_REFERENCE (`npm run test:reference` names the one on a
// developer machine); without it the suite is skipped, saying why, and CI (OPENCLAW_RL_REFERENCE_REQUIRED=1) fails.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../contracts/events.ts";
import { readTasks } from "../../orchestrator/episodes/task-file.ts";
import { LeaseEnvServer } from "../episodes/lease-env-server.ts";
import { testDriver } from "../episodes/test-driver.ts";
import { startHarness, type Harness } from "../proxy/harness.ts";
import { blobId, referenceCheckout } from "../support/reference-checkout.ts";
import { REFERENCE_BLOBS, startReferenceServers, type ReferenceServers } from "./reference-servers.ts";

const checkout = referenceCheckout("terminal-rl/router_server.py");
const root = "root" in checkout ? checkout.root : "";

describe.skipIf(!root)("the reference's terminal servers (Gen-Verse/OpenClaw-RL@0d034dd5, run from OPENCLAW_RL_REFERENCE)", () => {
  it("are the files of 0d034dd5 (git blob ids)", () => {
    for (const [file, blob] of Object.entries(REFERENCE_BLOBS)) expect(`${file} ${blobId(path.join(root, file))}`).toBe(`${file} ${blob}`);
  });

  describe("our lease test server answers every request as they do", () => {
    const limits = { maxTasks: 2, maxRunsPerTask: 2 };
    let theirs: ReferenceServers;
    let ours: LeaseEnvServer;
    let oursUrl: string;
    beforeAll(async () => {
      theirs = await startReferenceServers(root, limits);
      ours = new LeaseEnvServer(limits);
      oursUrl = await ours.start();
    });
    afterAll(async () => {
      await theirs?.close();
      await ours?.close();
    });

    /** The same requests to one server; lease ids read "<lease>" in the answers. */
    async function exchange(url: string, taskMeta: Record<string, unknown>, toolName: string): Promise<unknown[]> {
      const answers: unknown[] = [];
      let lease = "";
      const held: string[] = [];
      const send = async (route: string, body: unknown, method = "POST") => {
        const response = await fetch(`${url}${route}`, method === "GET" ? {} : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        const json = (await response.json()) as Record<string, unknown>;
        if (route === "/allocate" && typeof json.lease_id === "string") {
          lease ||= json.lease_id;
          held.push(json.lease_id);
        }
        const text = JSON.stringify(json).replaceAll(lease || "\u0000", "<lease>").replaceAll(lease.slice(2) || "\u0000", "<pool lease>");
        answers.push([route, response.status, JSON.parse(text)]);
        return json;
      };
      await send("/allocate", {});
      await send("/allocate", { task_key: "k:1", request_id: "r1" });
      await send("/allocate", { task_key: "k:1", request_id: "r1" });
      await send("/exec_tool", { lease_id: lease, tool_call: { name: toolName, arguments: {} } });
      await send("/evaluate", { lease_id: lease });
      await send("/heartbeat", { lease_id: lease });
      for (const leaseId of [undefined, "no-colon", "x:abc", "5:abc", "0:run-gone"]) await send("/heartbeat", { lease_id: leaseId });
      await send("/reset", { lease_id: lease, task_meta: "not a dict" });
      await send("/exec_tool", { lease_id: lease });
      await send("/exec_tool", { lease_id: lease, tool_call: {} });
      await send("/exec_tool", { lease_id: lease, tool_call: { name: toolName, arguments: [1] } });
      const reset = await send("/reset", { lease_id: lease, task_meta: taskMeta, run_ctx: { uid: "u1", group_index: 0, sample_index: 0 } });
      answers.pop(); // their user message and tools are their environment's, not the protocol's
      answers.push(["reset keys", Object.keys(reset)]);
      await send("/exec_tool", { lease_id: lease, tool_call: { name: "nope", arguments: {} } });
      const raised = await send("/exec_tool", { lease_id: lease, tool_call: { name: toolName, arguments: { x: 1 } } });
      answers.pop();
      answers.push(["a tool that raises", String(raised.observation).replace(/^\[TOOL_ERROR\] \w+: TypeError: .*\(\) got an unexpected keyword argument 'x'$/, "[TOOL_ERROR] <tool>: TypeError: <tool>() got an unexpected keyword argument 'x'")]);
      const evaluation = await send("/evaluate", { lease_id: lease });
      answers.pop();
      answers.push(["evaluate keys", Object.keys(evaluation), typeof evaluation.score]);
      // capacity: k:1 holds one lease; a second of k:1 fills its runs, k:2 fills the tasks
      await send("/allocate", { task_key: "k:1", request_id: "r2" });
      await send("/allocate", { task_key: "k:1", request_id: "r3" });
      await send("/allocate", { task_key: "k:2", request_id: "r4" });
      await send("/allocate", { task_key: "k:3", request_id: "r5" });
      await send("/close", { lease_id: lease });
      await send("/close", { lease_id: lease });
      await send("/nowhere", {});
      await send("/healthz", undefined, "GET");
      for (const leaseId of held) await fetch(`${url}/close`, { method: "POST", body: JSON.stringify({ lease_id: leaseId }) });
      return answers.map((answer) => JSON.parse(JSON.stringify(answer).replace(/run-[0-9a-f]{16}/g, "run-<id>")));
    }

    it("errors included, route by route", async () => {
      const theirAnswers = await exchange(theirs.url, { task_name: "hello-file", task_path: "hello-file", instruction: "Say hi." }, "shell_exec");
      const ourAnswers = await exchange(oursUrl, { task_name: "math", task_path: "add", a: 2, b: 3 }, "add");
      expect(ourAnswers).toEqual(theirAnswers);
      // and what they are, so a change on either side shows here
      expect(theirAnswers).toContainEqual(["/heartbeat", 500, { ok: false, error: "'Unknown run_lease_id: run-gone'" }]);
      expect(theirAnswers).toContainEqual(["/close", 200, { ok: true, found: false }]);
      expect(theirAnswers).toContainEqual(["/exec_tool", 200, { ok: true, observation: "[TOOL_ERROR] unknown tool: nope" }]);
      expect(theirAnswers).toContainEqual(["/allocate", 429, { ok: false, error: "Task k:1 at run capacity: 2/2", code: "RUN_SLOTS_EXHAUSTED" }]);
    });

    it("tool schemas: camel's strict form on both (every parameter required, a parameter with a default nullable)", async () => {
      for (const [url, taskMeta] of [[theirs.url, { task_name: "hello-file", task_path: "hello-file", instruction: "Say hi." }], [oursUrl, { task_name: "math", task_path: "add", a: 1, b: 1 }]] as const) {
        const { lease_id } = (await (await fetch(`${url}/allocate`, { method: "POST", body: JSON.stringify({ task_key: "s:1", request_id: url }) })).json()) as { lease_id: string };
        const { tool_schemas } = (await (await fetch(`${url}/reset`, { method: "POST", body: JSON.stringify({ lease_id, task_meta: taskMeta }) })).json()) as { tool_schemas: { type: string; function: { strict: boolean; parameters: { properties: Record<string, { type: unknown }>; required: string[]; additionalProperties: boolean } } }[] };
        await fetch(`${url}/close`, { method: "POST", body: JSON.stringify({ lease_id }) });
        expect(tool_schemas.length).toBeGreaterThan(0);
        for (const tool of tool_schemas) {
          expect(tool).toMatchObject({ type: "function", function: { strict: true, parameters: { type: "object", additionalProperties: false } } });
          expect(tool.function.parameters.required).toEqual(Object.keys(tool.function.parameters.properties));
        }
        expect(tool_schemas.some((tool) => Object.values(tool.function.parameters.properties).some((property) => Array.isArray(property.type) && property.type.includes("null")))).toBe(true);
      }
    });
  });

  describe("the episode driver against them", () => {
    let servers: ReferenceServers;
    let harness: Harness;
    beforeAll(async () => {
      servers = await startReferenceServers(root);
      // the model: a call with a wrong argument name first (the toolkit raises), then the right call, then it answers
      harness = await startHarness({
        script: (prompt) => {
          const results = prompt.split("<tool_response>").length - 1;
          if (results === 0) return '<think>\nI write the file.\n</think>\n\n<tool_call>\n{"name": "shell_exec", "arguments": {"id": "main", "cmd": "echo hi > hello.txt"}}\n</tool_call>';
          if (results === 1) return '<think>\nThe argument is called command.\n</think>\n\n<tool_call>\n{"name": "shell_exec", "arguments": {"id": "main", "command": "echo hi > hello.txt", "block": null, "timeout": null}}\n</tool_call>';
          return "<think>\nDone.\n</think>\n\nhello.txt says hi.";
        },
      });
    });
    afterAll(async () => {
      await harness?.close();
      await servers?.close();
    });

    it("solves a task through a tool error, and fails the task missing from their dataset at /reset with their message", async () => {
      const tasks = await readTasks(path.join(import.meta.dirname, "dataset/tasks.jsonl"));
      const results = await testDriver(harness.url, servers.url, tasks).run();
      const solved = results.filter((result) => result.taskKey === "hello-file:hello-file");
      expect(solved.map((result) => [result.steps, result.ended, result.score, result.failure])).toEqual([
        [3, "no-tool-call", 1, null],
        [3, "no-tool-call", 1, null],
      ]);
      const missing = results.filter((result) => result.taskKey === "missing:missing");
      expect(missing).toHaveLength(2);
      for (const result of missing) {
        expect(result).toMatchObject({ steps: 0, ended: "failed", score: null });
        expect(result.failure).toMatch(/\/reset answered 500, ok false: \[Errno 2\] No such file or directory: '.*\/dataset\/missing\/task\.yaml' \(after 10 tries\)/);
      }
      // the tool error was the first step's next state, as their toolkit raised it
      const firstSteps = harness.closed.filter((turn) => turn.turn === 0 && turn.episode?.id.startsWith("hello-file:"));
      expect(firstSteps.map((turn) => turn.nextState?.text)).toEqual([0, 1].map(() => expect.stringContaining("[TOOL_ERROR] shell_exec: TypeError: TerminalToolkit.shell_exec() got an unexpected keyword argument 'cmd'")));
      // each episode its own trial (their log folder {task_name}.{uid}.slime-run), so each its own container
      for (const result of solved) expect(existsSync(path.join(servers.outputRoot, "AgentRunner_Output/hello-file", `hello-file.${result.episodeId.split(":").slice(2).join("-")}.slime-run`))).toBe(true);
      const status = (await (await fetch(`${servers.poolUrl}/status`)).json()) as { pool: { total_active_runs: number } };
      expect(status.pool.total_active_runs).toBe(0);
      const ends = harness.events.filter((event): event is Extract<RunEvent, { type: "episode-end" }> => event.type === "episode-end");
      expect(ends.filter((end) => end.score === 1)).toHaveLength(2);
    });
  });
});
