// The GUI and SWE clients' own decisions, against small servers that answer as the reference's pools do
// (gui-rl/env_pool_server.py and swe-rl/server/swe_env_pool_server.py at 0d034dd5, field for field; their real
// servers are run in tests/gui-rl and tests/swe-rl where a checkout is named): what is sent, in which order, and
// what is refused before anything is sent.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { GuiEnvironmentClient } from "../../orchestrator/episodes/gui-environment-client.ts";
import { SweEnvironmentClient } from "../../orchestrator/episodes/swe-environment-client.ts";

type Handler = (route: string, body: Record<string, any>) => [number, unknown];

const servers: Server[] = [];
afterEach(async () => Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve)))));

/** A JSON server answering by `handler`; every request is logged as [route, body]. */
async function serve(handler: Handler): Promise<{ url: string; log: [string, Record<string, any>][] }> {
  const log: [string, Record<string, any>][] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, any>) : {};
    log.push([request.url ?? "", body]);
    const [status, answer] = handler(request.url ?? "", body);
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(answer));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, log };
}

describe("GuiEnvironmentClient (gui-rl/env_pool_server.py's answers)", () => {
  function gui(tree: string | null) {
    let allocations = 0;
    return serve((route, body) => {
      const observation = { screenshot_b64: "iVBORw0K", accessibility_tree: tree, terminal: null, instruction: "Type hi." };
      if (route === "/allocate") return ++allocations === 1 ? [500, { ok: false, error: "Pool exhausted: 1/1" }] : [200, { ok: true, lease_id: "lease-0123456789abcdef", env_id: "env-1", reused: false }];
      if (route === "/reset") return [200, { ok: true, observation }];
      if (route === "/step") return [200, { ok: true, observation, reward: 0, done: body.action === "DONE" || body.action === "FAIL", info: {} }];
      if (route === "/evaluate") return [200, { ok: true, score: 1.0 }];
      return [200, { ok: true }];
    });
  }

  it("waits out 'Pool exhausted', sends task_config, refuses bad tool calls without sending them, and ends on done", async () => {
    const { url, log } = await gui("<desktop/>");
    const client = new GuiEnvironmentClient(url, { capacityBackoffMs: 1, retryDelayMs: 1 });
    const lease = await client.allocate("editor:hi", "editor:hi:run1:0:0");
    const reset = await client.reset(lease, { task_name: "editor", task_path: "hi", task_config: { id: "hi", evaluator: {} } });
    expect(reset.userMessage).toBe("Type hi.\n\nThe screen's accessibility tree:\n<desktop/>");
    expect(await client.execTool(lease, { name: "click", arguments: {} })).toMatch(/^error: unknown tool click/);
    expect(await client.execTool(lease, { name: "computer", arguments: {} })).toMatch(/^error: computer needs an action/);
    expect(await client.execTool(lease, { name: "computer", arguments: { action: "pyautogui.typewrite('hi')" } })).toBe("<desktop/>");
    expect(client.finished(lease)).toBe(false);
    expect(await client.execTool(lease, { name: "computer", arguments: { action: "DONE" } })).toBe("(the task is over)\n<desktop/>");
    expect(client.finished(lease)).toBe(true);
    expect(await client.evaluate(lease)).toBe(1);
    await client.close(lease);
    expect(log.map(([route, body]) => [route, body.action ?? body.episode_id ?? body.task_config?.id ?? null])).toEqual([
      ["/allocate", "editor:hi:run1:0:0"],
      ["/allocate", "editor:hi:run1:0:0"],
      ["/reset", "hi"],
      ["/step", "pyautogui.typewrite('hi')"],
      ["/step", "DONE"],
      ["/evaluate", null],
      ["/close", null],
    ]);
  });

  it("sends FAIL before evaluating an episode that did not end with done (citations.json gui_fail_before_evaluate)", async () => {
    const { url, log } = await gui("<desktop/>");
    const client = new GuiEnvironmentClient(url, { capacityBackoffMs: 1 });
    const lease = await client.allocate("editor:hi", "e1");
    await client.reset(lease, { task_config: { id: "hi" } });
    await client.evaluate(lease);
    expect(log.slice(-2).map(([route, body]) => [route, body.action ?? null])).toEqual([["/step", "FAIL"], ["/evaluate", null]]);
  });

  it("refuses screenshot observations by name", async () => {
    const { url } = await gui(null);
    const client = new GuiEnvironmentClient(url, { capacityBackoffMs: 1 });
    const lease = await client.allocate("editor:hi", "e1");
    await expect(client.reset(lease, { task_config: { id: "hi" } })).rejects.toMatchObject({ code: "ENVIRONMENT_ERROR", message: expect.stringContaining("screenshot observations are not supported"), hint: expect.stringContaining("--observation-type a11y_tree") });
  });
});

describe("SweEnvironmentClient (swe-rl/server/swe_env_pool_server.py's answers)", () => {
  function swe(patch: string) {
    let leases = 0;
    return serve((route, body) => {
      if (route === "/allocate") return [200, { ok: true, lease_id: `swe-lease-${++leases}`, container_id: "c".repeat(64), node_url: "http://node:5000" }];
      if (route === "/exec") return [200, { ok: true, returncode: 0, output: `ran ${String(body.command)}\n` }];
      if (route === "/diff") return [200, { ok: true, patch, returncode: 0, error: "" }];
      if (route === "/evaluate") return [200, { ok: true, resolved: true, returncode: 0, output: "ok" }];
      return [200, { ok: true }];
    });
  }
  const task = { task_name: "calc", task_path: "calc__1", image: "calc:latest", problem_statement: "add subtracts.", eval_script: "python3 test_calc.py" };
  const PATCH = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-a - b\n+a + b\n";

  it("allocates the task's image at reset, runs bash, and evaluates the diff in a fresh container", async () => {
    const { url, log } = await swe(PATCH);
    const client = new SweEnvironmentClient(url, { retryDelayMs: 1 });
    const handle = await client.allocate("calc:calc__1", "calc:calc__1:run1:0:0");
    await client.heartbeat(handle); // no container yet: nothing sent
    expect((await client.reset(handle, task)).userMessage).toMatch(/^add subtracts\./);
    expect(await client.execTool(handle, { name: "bash", arguments: { command: "ls" } })).toBe("returncode: 0\nran ls\n");
    expect(await client.execTool(handle, { name: "sh", arguments: { command: "ls" } })).toMatch(/^error: unknown tool sh/);
    expect(await client.evaluate(handle)).toBe(1);
    expect(client.patch(handle)).toBe(PATCH);
    await client.close(handle);
    expect(log.map(([route, body]) => [route, body.lease_id ?? null, body.image ?? body.command ?? body.instance_id ?? null])).toEqual([
      ["/allocate", null, "calc:latest"],
      ["/exec", "swe-lease-1", "ls"],
      ["/diff", "swe-lease-1", null],
      ["/close", "swe-lease-1", null],
      ["/allocate", null, "calc:latest"],
      ["/evaluate", "swe-lease-2", null],
      ["/close", "swe-lease-2", null],
    ]);
    expect(log[4]![1]).toMatchObject({ instance_id: "calc__1__eval" });
    expect(log[5]![1]).toMatchObject({ patch: PATCH, eval_script: "python3 test_calc.py", cwd: "/testbed" });
  });

  it("scores 0 without an evaluation when the diff is no patch, and refuses a task without an image before sending anything", async () => {
    const { url, log } = await swe("");
    const client = new SweEnvironmentClient(url, { retryDelayMs: 1 });
    const handle = await client.allocate("calc:calc__1", "e1");
    await client.reset(handle, task);
    expect(await client.evaluate(handle)).toBe(0);
    expect(log.map(([route]) => route)).toEqual(["/allocate", "/diff"]);
    const other = await client.allocate("calc:x", "e2");
    await expect(client.reset(other, { ...task, image: undefined })).rejects.toThrow(/a SWE task needs task_meta\.image/);
    expect(log).toHaveLength(2);
  });
});
