// The reference's own terminal servers (Gen-Verse/OpenClaw-RL@0d034dd5: terminal-rl/remote/pool_server.py behind
// terminal-rl/router_server.py), run from a checkout named by OPENCLAW_RL_REFERENCE with Debian's Python and our
// stand-ins (./standins) first on PYTHONPATH; the dataset is ./dataset. Knows nothing of episodes.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { freePort, until } from "../support/loopback.ts";

export const REFERENCE_COMMIT = "0d034dd5e65399fc1cc7c266feb9eddbb4c8c3a5";

/** git's blob ids of the reference files these tests run, at REFERENCE_COMMIT (`git rev-parse 0d034dd5:<path>`). */
export const REFERENCE_BLOBS: Record<string, string> = {
  "terminal-rl/remote/pool_server.py": "b7801a768e4f171caff8d6334397973c9d1057ba",
  "terminal-rl/router_server.py": "5c6b66b852c102e92a2831227079cf626a93e2c9",
  "terminal-rl/remote/terminal_env.py": "ccaa6eb579f3fbbd215b874ba9f7385569f6fca4",
  "terminal-rl/remote/docker_compose_utils.py": "29a87781c5408218a22b2e33b65304f7762b4d64",
  "terminal-rl/custom_types.py": "b4cb5b7bf959db670e113fd722cc654725c829e0",
  "terminal-rl/request_utils.py": "4bc8facd51c105dbad2063bf095b41ebeb3cad21",
};

/** The checkout, or why there is none to run. */
export function referenceCheckout(): { root: string } | { missing: string } {
  const root = process.env.OPENCLAW_RL_REFERENCE;
  if (!root) return { missing: "OPENCLAW_RL_REFERENCE is not set (a checkout of Gen-Verse/OpenClaw-RL at 0d034dd5)" };
  if (!existsSync(path.join(root, "terminal-rl/router_server.py"))) return { missing: `OPENCLAW_RL_REFERENCE=${root} has no terminal-rl/router_server.py` };
  return { root };
}

/** git hash-object of a file: the blob id its content has in any git repository. */
export function blobId(file: string): string {
  const content = readFileSync(file);
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

export interface ReferenceServers {
  /** The router's URL: what an episodes.env_url names. */
  url: string;
  poolUrl: string;
  /** Where the stand-in containers (one folder each) live. */
  containers: string;
  /** The pool's --output-root: its trials' logs. */
  outputRoot: string;
  logs(): string;
  close(): Promise<void>;
}

const HERE = import.meta.dirname;

/** Starts the pool (`--max-tasks`, `--max-runs-per-task` as given) and a router in front of it; resolves once both answer /healthz. */
export async function startReferenceServers(root: string, limits = { maxTasks: 4, maxRunsPerTask: 4 }): Promise<ReferenceServers> {
  const work = mkdtempSync(path.join(tmpdir(), "terminal-rl-"));
  const [poolPort, routerPort] = [await freePort(), await freePort()];
  const environment = {
    PYTHONPATH: [path.join(HERE, "standins"), root].join(path.delimiter),
    PYTHONDONTWRITEBYTECODE: "1",
    DATASET_DIR: path.join(HERE, "dataset"),
    TBENCH_DOCKER_IMAGE_SOURCE: "build",
    STANDIN_CONTAINER_ROOT: path.join(work, "containers"),
  };
  let output = "";
  const spawn = (module: string, args: string[]): ResultPromise => {
    // cwd is the scratch folder: the pool writes build_outputs/ where it runs
    const child = execa("/usr/bin/python3", ["-m", module, ...args], { cwd: work, env: environment, all: true, reject: false, forceKillAfterDelay: 5000 });
    child.all?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    return child;
  };
  const outputRoot = path.join(work, "out");
  const pool = spawn("terminal-rl.remote.pool_server", ["--host", "127.0.0.1", "--port", String(poolPort), "--max-tasks", String(limits.maxTasks), "--max-runs-per-task", String(limits.maxRunsPerTask), "--output-root", outputRoot]);
  const router = spawn("terminal-rl.router_server", ["--host", "127.0.0.1", "--port", String(routerPort), "--workers", `http://127.0.0.1:${poolPort}`]);
  const close = async () => {
    router.kill();
    pool.kill();
    await Promise.all([router, pool]);
    rmSync(work, { recursive: true, force: true });
  };
  try {
    for (const port of [poolPort, routerPort]) {
      await until(`the reference's server on port ${port}`, async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : null), 60_000);
    }
  } catch (error) {
    await close();
    throw new Error(`${(error as Error).message}; the servers said: ${output.slice(-2000)}`);
  }
  return { url: `http://127.0.0.1:${routerPort}`, poolUrl: `http://127.0.0.1:${poolPort}`, containers: environment.STANDIN_CONTAINER_ROOT, outputRoot, logs: () => output, close };
}
