// The ports a recipe's own processes listen on, each with its YAML key and what it is for, and whether a port is free
// (bind and close at once; never connects to or disturbs whoever holds it), for port-check.ts and
// ray-running-check.ts in launchers/checks/. Ignores ports slime and SGLang pick at run time (engines, routers).
import { createServer } from "node:net";
import type { Recipe } from "../contracts/recipe.ts";

export interface PortUse {
  /** The recipe key that sets it. */
  key: string;
  port: number;
  host: string;
  /** Who listens there, for messages ("the proxy"). */
  what: string;
  /** Ray's own ports: taken means a Ray cluster may be running already, which the ray check reports as such. */
  ray: boolean;
}

const LOOPBACK = "127.0.0.1";

/** In a fixed order: the proxy, the status API, the rehearsal stand-ins, Ray's head and dashboard, a standalone judge. */
export function recipePorts(recipe: Recipe): PortUse[] {
  const use = (key: string, port: number, what: string, host = LOOPBACK, ray = false): PortUse => ({ key, port, host, what, ray });
  const ports = [use("proxy.port", recipe.proxy.port, "the proxy", recipe.proxy.host), use("proxy.admin_port", recipe.proxy.admin_port, "the status API")];
  if (recipe.engine.kind === "rehearsal") {
    ports.push(use("engine.rehearsal.policy_port", recipe.engine.rehearsal.policy_port, "the rehearsal policy"));
    ports.push(use("engine.rehearsal.judge_port", recipe.engine.rehearsal.judge_port, "the rehearsal judge"));
  }
  if (recipe.engine.kind === "slime") {
    ports.push(use("cluster.ray_port", recipe.cluster.ray_port, "the Ray head", LOOPBACK, true));
    ports.push(use("cluster.dashboard_port", recipe.cluster.dashboard_port, "the Ray dashboard", LOOPBACK, true));
    if (recipe.judge.launch === "standalone") ports.push(use("judge.port", recipe.judge.port, "the standalone judge"));
  }
  if (recipe.episodes.environment) ports.push(use("episodes.environment_port", recipe.episodes.environment_port, `the built-in ${recipe.episodes.environment} environment`));
  return ports;
}

export type PortCheck = { free: true } | { free: false; code: string };

/** Is the port free to bind on the host? The error code (EADDRINUSE, EACCES, …) when not. */
export function checkPort(port: number, host = LOOPBACK): Promise<PortCheck> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", (error: NodeJS.ErrnoException) => resolve({ free: false, code: error.code ?? error.message }));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve({ free: true })));
  });
}
