// The supervisor treats each planned process by the role the plan gives it (and probes the port the plan names),
// never by reading its argv: a renamed interpreter or a reordered command line changes nothing.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { LaunchPlan, ProcessSpec } from "../../contracts/plan.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { defineChildren } from "../../launchers/supervisor/plan-children.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";

const hooks = { bridgeHello: () => null, baseEnvironment: {} };
const plan = (processes: ProcessSpec[]): LaunchPlan => ({ method: "binary", engine: "slime", placement: null, notes: [], processes });

describe("supervision by role", () => {
  it("every process a plan starts on the head has a role, and stand-in servers and the judge a port", async () => {
    const recipe = recipeSchema.parse({ engine: { kind: "rehearsal" } });
    const rehearsal = await buildLaunchPlan(recipe, { packageRoot: "/pkg", runDir: "/run", bridgeUrl: "http://127.0.0.1:1", bridgeToken: "t", environment: {} });
    expect(rehearsal.processes.map(({ name, role, port }) => ({ name, role, port }))).toEqual([
      { name: "rehearsal-policy", role: "standin-server", port: recipe.engine.rehearsal.policy_port },
      { name: "rehearsal-judge", role: "standin-server", port: recipe.engine.rehearsal.judge_port },
      { name: "rehearsal-trainer", role: "standin-trainer", port: undefined },
    ]);
  });

  it("a judge server's probe asks the port the plan names, whatever its argv says", async () => {
    const recipe = recipeSchema.parse({});
    const server = createServer((request, response) => response.writeHead(request.url === "/health_generate" ? 200 : 404).end("{}"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const judge: ProcessSpec = { name: "judge", role: "judge-server", port, argv: ["/opt/env/bin/sglang-serve", "--port", "1"], env: {}, cwd: "/", node: 0 };
      const [definition] = defineChildren(plan([judge]), recipe, hooks);
      expect(definition).toMatchObject({ name: "judge", lifetime: "service", gatesTraffic: true });
      expect(await definition!.probe({ startedAt: Date.now() } as never)).toMatchObject({ ready: true });
    } finally {
      server.close();
    }
  });

  it("the stand-in trainer waits for its bridge hello and does not gate traffic; a stand-in server does", () => {
    const recipe = recipeSchema.parse({});
    const spec = (role: ProcessSpec["role"], port?: number): ProcessSpec => ({ name: role, role, port, argv: ["x"], env: {}, cwd: "/", node: 0 });
    const [server, trainer] = defineChildren(plan([spec("standin-server", 40124), spec("standin-trainer")]), recipe, hooks);
    expect(server!.gatesTraffic).toBe(true);
    expect(trainer!.gatesTraffic).toBe(false);
  });

  it("a worker-node role on the head is refused by name", () => {
    const recipe = recipeSchema.parse({});
    const worker: ProcessSpec = { name: "ray-worker-0", role: "ray-worker", argv: ["ray", "start"], env: {}, cwd: "/", node: 0 };
    expect(() => defineChildren(plan([worker]), recipe, hooks)).toThrow("ray-worker-0: a ray-worker process does not run on the head node");
  });
});
