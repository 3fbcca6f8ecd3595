// The reference's checkout for tests that run its own servers (Gen-Verse/OpenClaw-RL at 0d034dd5, named by
// OPENCLAW_RL_REFERENCE; never copied into this repository), its files checked by git blob id, and a Python server
// started from it on free loopback ports, waited for on /healthz, stopped with its scratch folder.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { until } from "./loopback.ts";

export const REFERENCE_COMMIT = "0d034dd5e65399fc1cc7c266feb9eddbb4c8c3a5";

/** The checkout, or why there is none; with OPENCLAW_RL_REFERENCE_REQUIRED=1 (CI where one exists) none is an error. */
export function referenceCheckout(file: string): { root: string } | { missing: string } {
  const root = process.env.OPENCLAW_RL_REFERENCE;
  const missing = !root ? "OPENCLAW_RL_REFERENCE is not set (a checkout of Gen-Verse/OpenClaw-RL at 0d034dd5)" : !existsSync(path.join(root, file)) ? `OPENCLAW_RL_REFERENCE=${root} has no ${file}` : null;
  if (missing === null) return { root: root! };
  if (process.env.OPENCLAW_RL_REFERENCE_REQUIRED === "1") throw new Error(`the reference's servers cannot run: ${missing}`);
  console.warn(`skipped, the reference's servers cannot run: ${missing}`);
  return { missing };
}

/** git hash-object of a file: the blob id its content has in any git repository. */
export function blobId(file: string): string {
  const content = readFileSync(file);
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

export interface PythonServers {
  /** The scratch folder the servers run in (their cwd), removed at close. */
  work: string;
  logs(): string;
  close(): Promise<void>;
}

/** Starts each `python3 <args>` in one scratch folder with `environment`; resolves once every port answers /healthz. */
export async function startPythonServers(servers: { args: string[]; port: number }[], environment: (work: string) => Record<string, string>): Promise<PythonServers> {
  const work = mkdtempSync(path.join(tmpdir(), "reference-"));
  const env = { PYTHONDONTWRITEBYTECODE: "1", ...environment(work) };
  let output = "";
  const children: ResultPromise[] = servers.map(({ args }) => {
    const child = execa("/usr/bin/python3", args, { cwd: work, env, all: true, reject: false, forceKillAfterDelay: 5000 });
    child.all?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    return child;
  });
  const close = async () => {
    for (const child of children.toReversed()) child.kill();
    await Promise.all(children);
    rmSync(work, { recursive: true, force: true });
  };
  try {
    for (const { port } of servers) {
      await until(`the reference's server on port ${port}`, async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : null), 60_000);
    }
  } catch (error) {
    await close();
    throw new Error(`${(error as Error).message}; the servers said: ${output.slice(-2000)}`);
  }
  return { work, logs: () => output, close };
}
