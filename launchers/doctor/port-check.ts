// Doctor: every port the recipe's processes will listen on is free on this machine, and no two roles share one.
// Ignores ports slime and SGLang pick for themselves at run time (engines from 15000/25000, routers).
import { createServer } from "node:net";
import type { Recipe } from "../../contracts/recipe.ts";
import { failed, passed, type CheckResult } from "./doctor-check.ts";

interface PortUse {
  key: string;
  port: number;
  host: string;
}

export function recipePorts(recipe: Recipe): PortUse[] {
  const loopback = "127.0.0.1";
  const ports: PortUse[] = [
    { key: "proxy.port", port: recipe.proxy.port, host: recipe.proxy.host },
    { key: "proxy.admin_port", port: recipe.proxy.admin_port, host: loopback },
  ];
  if (recipe.engine.kind === "rehearsal") {
    ports.push({ key: "engine.rehearsal.policy_port", port: recipe.engine.rehearsal.policy_port, host: loopback });
    ports.push({ key: "engine.rehearsal.judge_port", port: recipe.engine.rehearsal.judge_port, host: loopback });
  }
  if (recipe.engine.kind === "slime") {
    ports.push({ key: "cluster.ray_port", port: recipe.cluster.ray_port, host: loopback });
    ports.push({ key: "cluster.dashboard_port", port: recipe.cluster.dashboard_port, host: loopback });
    if (recipe.judge.launch === "standalone") ports.push({ key: "judge.port", port: recipe.judge.port, host: loopback });
  }
  return ports;
}

export async function checkPorts(recipe: Recipe): Promise<CheckResult[]> {
  const ports = recipePorts(recipe);
  return Promise.all(
    ports.map(async (use) => {
      const twin = ports.find((other) => other !== use && other.port === use.port);
      if (twin) return failed("port", `${use.key} and ${twin.key} are both ${use.port}`, `give ${use.key} a port of its own`);
      const error = await tryListen(use.port, use.host);
      if (!error) return passed("port", `${use.port} (${use.key}) is free`);
      if (error === "EADDRINUSE") return failed("port", `${use.port} (${use.key}) is in use`, `stop what listens on ${use.port} (e.g. \`ss -ltnp | grep :${use.port}\`) or change ${use.key}`);
      return failed("port", `cannot listen on ${use.host}:${use.port} (${use.key}): ${error}`, `check the address, or change ${use.key}`);
    }),
  );
}

/** Binds and closes at once: null when free, else the error code. */
function tryListen(port: number, host: string): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(null)));
  });
}
