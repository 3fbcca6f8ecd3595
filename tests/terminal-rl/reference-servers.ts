// The reference's own terminal servers (Gen-Verse/OpenClaw-RL@0d034dd5: terminal-rl/remote/pool_server.py behind
// terminal-rl/router_server.py), run from the checkout with Debian's Python and our stand-ins (./standins) first on
// PYTHONPATH; the dataset is ./dataset. Knows nothing of episodes.
import path from "node:path";
import { freePort } from "../support/loopback.ts";
import { startPythonServers } from "../support/reference-checkout.ts";

/** git's blob ids of the reference files these tests run, at 0d034dd5 (`git rev-parse 0d034dd5:<path>`). */
export const REFERENCE_BLOBS: Record<string, string> = {
  "terminal-rl/remote/pool_server.py": "b7801a768e4f171caff8d6334397973c9d1057ba",
  "terminal-rl/router_server.py": "5c6b66b852c102e92a2831227079cf626a93e2c9",
  "terminal-rl/remote/terminal_env.py": "ccaa6eb579f3fbbd215b874ba9f7385569f6fca4",
  "terminal-rl/remote/docker_compose_utils.py": "29a87781c5408218a22b2e33b65304f7762b4d64",
  "terminal-rl/custom_types.py": "b4cb5b7bf959db670e113fd722cc654725c829e0",
  "terminal-rl/request_utils.py": "4bc8facd51c105dbad2063bf095b41ebeb3cad21",
};

export interface ReferenceServers {
  /** The router's URL: what an episodes.env_url names. */
  url: string;
  poolUrl: string;
  /** The pool's --output-root: its trials' logs. */
  outputRoot: string;
  logs(): string;
  close(): Promise<void>;
}

/** Starts the pool (`--max-tasks`, `--max-runs-per-task` as given) and a router in front of it (run with -m from the scratch folder: the pool writes build_outputs/ where it runs). */
export async function startReferenceServers(root: string, limits = { maxTasks: 4, maxRunsPerTask: 4 }): Promise<ReferenceServers> {
  const [poolPort, routerPort] = [await freePort(), await freePort()];
  const servers = await startPythonServers(
    [
      { port: poolPort, args: ["-m", "terminal-rl.remote.pool_server", "--host", "127.0.0.1", "--port", String(poolPort), "--max-tasks", String(limits.maxTasks), "--max-runs-per-task", String(limits.maxRunsPerTask), "--output-root", "out"] },
      { port: routerPort, args: ["-m", "terminal-rl.router_server", "--host", "127.0.0.1", "--port", String(routerPort), "--workers", `http://127.0.0.1:${poolPort}`] },
    ],
    (work) => ({
      PYTHONPATH: [path.join(import.meta.dirname, "standins"), root].join(path.delimiter),
      DATASET_DIR: path.join(import.meta.dirname, "dataset"),
      TBENCH_DOCKER_IMAGE_SOURCE: "build",
      STANDIN_CONTAINER_ROOT: path.join(work, "containers"),
    }),
  );
  return { url: `http://127.0.0.1:${routerPort}`, poolUrl: `http://127.0.0.1:${poolPort}`, outputRoot: path.join(servers.work, "out"), logs: servers.logs, close: servers.close };
}
