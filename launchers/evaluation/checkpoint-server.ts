// Runs the server a CheckpointServing plans for the length of one evaluation: started with execa on a free loopback
// port, ready once its readiness endpoint answers 2xx, stopped with SIGTERM (SIGKILL after a grace period).
import { createServer } from "node:net";
import { execa } from "execa";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { httpProbe } from "../supervisor/readiness-probe.ts";
import type { CheckpointServing } from "./served-checkpoint.ts";

export interface RunningCheckpointServer {
  url: string;
  stop(): Promise<void>;
}

/** A port nothing listens on now (the OS's choice on loopback). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Starts the server and waits until it is ready or `readyWithinMs` passes (then it is stopped and the error says why). */
export async function startCheckpointServer(serving: CheckpointServing, readyWithinMs: number): Promise<RunningCheckpointServer> {
  const { spec } = serving;
  const child = execa(spec.argv[0]!, spec.argv.slice(1), { cwd: spec.cwd, env: spec.env, reject: false, all: true, forceKillAfterDelay: 5000, cleanup: true });
  let output = "";
  child.all?.on("data", (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-4000)));
  const stop = async () => {
    child.kill("SIGTERM");
    await child;
  };
  const exited = child.then((result) => result);
  let ended = false;
  void exited.then(() => (ended = true));
  const probe = httpProbe(serving.readyUrl);
  const deadline = Date.now() + readyWithinMs;
  let last = "not probed yet";
  while (!ended && Date.now() < deadline) {
    const result = await probe();
    if (result.ready) return { url: serving.url, stop };
    last = result.detail;
    await sleep(300);
  }
  if (!ended) await stop();
  const result = await exited;
  throw new OpenclawRlError("CHILD_FAILED", `${spec.name} (${spec.argv.slice(0, 3).join(" ")} …) ${ended ? `exited (${result.exitCode ?? result.signal}) before it was ready` : `was not ready within ${readyWithinMs / 1000} s (${last})`}: ${output.trim().split("\n").slice(-5).join(" | ")}`, {
    path: spec.name,
    hint: `its command: ${spec.argv.join(" ")}`,
  });
}
