// Readiness of a running child: the HTTP probe uses a connection of its own every time (a kept-alive socket that the
// engine closed while this process was paused cannot fail it), and a ready child counts as down only when its probe
// fails again on the rechecks that follow, so one reset connection or late answer never turns chat away.
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { ChildDefinition } from "../../launchers/supervisor/child-definition.ts";
import { httpProbe, type ProbeResult } from "../../launchers/supervisor/readiness-probe.ts";
import { NEVER_RESTART } from "../../launchers/supervisor/restart-policy.ts";
import { SupervisedChild } from "../../launchers/supervisor/supervised-child.ts";
import { freePort } from "../support/loopback.ts";

const servers: Server[] = [];
const children: SupervisedChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop(0)));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  server.on("connection", () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, connections: () => connections };
}

describe("httpProbe", () => {
  it("opens a connection of its own for every probe, and says what it saw", async () => {
    let status = 200;
    const server = await serve((_request, response) => {
      response.writeHead(status);
      response.end("ok");
    });
    const probe = httpProbe(`${server.url}/health`);
    expect(await probe()).toEqual({ ready: true, detail: `GET ${server.url}/health → 200` });
    expect(await probe()).toEqual({ ready: true, detail: `GET ${server.url}/health → 200` });
    status = 503;
    expect(await probe()).toEqual({ ready: false, detail: `GET ${server.url}/health → 503` });
    expect(server.connections()).toBe(3);
  });

  it("reports a refused connection and a server that does not answer in time", async () => {
    const port = await freePort();
    expect(await httpProbe(`http://127.0.0.1:${port}/health`)()).toEqual({ ready: false, detail: `GET http://127.0.0.1:${port}/health → ECONNREFUSED` });
    const silent = await serve(() => undefined);
    expect(await httpProbe(`${silent.url}/health`, 200)()).toEqual({ ready: false, detail: `GET ${silent.url}/health → no answer in 200 ms` });
  });
});

/** A child with nothing to launch (watched by its probe only), probed from a script of answers. */
function watchedChild(answers: boolean[], states: string[]): { child: SupervisedChild; probes: () => number } {
  let probes = 0;
  const definition: ChildDefinition = {
    name: "policy",
    spec: null,
    lifetime: "service",
    probe: async (): Promise<ProbeResult> => {
      const ready = answers[Math.min(probes, answers.length - 1)]!;
      probes++;
      return { ready, detail: ready ? "GET /health → 200" : "GET /health → ECONNRESET" };
    },
    readyTimeoutMs: 10_000,
    recheckMs: 30,
    hungAfterMs: Number.POSITIVE_INFINITY,
    restart: NEVER_RESTART,
    gatesTraffic: true,
    after: [],
  };
  const child = new SupervisedChild(definition, { logsDir: "/nonexistent", baseEnvironment: {}, stopGraceMs: 0, onState: (_name, state, detail) => states.push(`${state}: ${detail}`) });
  children.push(child);
  return { child, probes: () => probes };
}

describe("a ready child's rechecks", () => {
  it("stay ready through one failed probe (and through two in a row)", async () => {
    const states: string[] = [];
    const { child, probes } = watchedChild([true, true, false, true, true, false, false, true], states);
    child.start();
    expect(await child.waitReady()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(probes()).toBeGreaterThan(8);
    expect(states).toEqual(["ready: GET /health → 200"]);
  });

  it("turn it down once the probe fails on every recheck, and ready again when it answers", async () => {
    const states: string[] = [];
    const { child } = watchedChild([true, false, false, false, false, true], states);
    child.start();
    expect(await child.waitReady()).toBe(true);
    const deadline = Date.now() + 5000;
    while (states.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(states).toEqual(["ready: GET /health → 200", "down: not answering: GET /health → ECONNRESET", "ready: GET /health → 200"]);
  });
});
