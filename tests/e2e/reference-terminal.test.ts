// `openclaw-rl start` (rehearsal) against the reference's own terminal router and pool (tests/terminal-rl: their
// files at 0d034dd5 from OPENCLAW_RL_REFERENCE, our stand-ins for camel, terminal-bench and Docker): episodes.env_url
// is their router, episodes.tasks a task file in their form ({"task": {...}}). Every episode ends and `status` says
// so: the task their dataset has runs (the stand-in does not know their shell tools, so it answers from memory and
// scores 0), the one it lacks fails at /reset with their message, counted failed, with the endpoint named.
import { mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { until } from "../support/loopback.ts";
import { referenceCheckout } from "../support/reference-checkout.ts";
import { startReferenceServers } from "../terminal-rl/reference-servers.ts";
import { rehearsalSets } from "./support/rehearsal-sets.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const checkout = referenceCheckout("terminal-rl/router_server.py");
const reference = "root" in checkout ? checkout.root : "";

describe.skipIf(!reference)("start against the reference's terminal router and pool", () => {
  it("runs their dataset's task, fails the one it lacks at /reset with their message, and status counts both", async () => {
    const servers = await startReferenceServers(reference);
    const folder = await mkdtemp(path.join(tmpdir(), "reference-terminal-"));
    const runDir = path.join(folder, "run");
    const { sets } = await rehearsalSets(runDir);
    const all = { ...sets, method: "binary", "episodes.env_url": servers.url, "episodes.tasks": path.join(root, "tests/terminal-rl/dataset/tasks.jsonl"), "episodes.samples_per_task": 2, "episodes.concurrency": 2 };
    const argv = ["bin/openclaw-rl.mjs", "start", ...Object.entries(all).flatMap(([key, value]) => ["--set", `${key}=${value}`])];
    const start = execa(process.execPath, argv, { cwd: root, reject: false, env: { OPENCLAW_RL_API_KEY: "" }, all: true });
    const status = async () => JSON.parse((await execa(process.execPath, ["bin/openclaw-rl.mjs", "status", "--run", runDir, "--json"], { cwd: root })).stdout) as Record<string, any>;
    try {
      const done = await until("4 episodes to finish", async () => {
        const now = await status();
        return now.episodes?.finished === 4 ? now : null;
      }, 420_000);
      console.log(`status: ${JSON.stringify(done.episodes)}`);
      expect(done.episodes).toMatchObject({ finished: 4, failed: 2 });
      const messages = (done.errors as { message: string }[]).map((error) => error.message).join("\n");
      expect(messages).toMatch(/missing:missing:.*\/reset answered 500, ok false: \[Errno 2\] No such file or directory: '.*\/missing\/task\.yaml' \(after 10 tries\)/);
      // their trial folders name our episodes: {task_name}.<run uid>-<group>-<sample>.slime-run
      const trials = path.join(servers.outputRoot, "AgentRunner_Output/hello-file");
      expect(existsSync(trials)).toBe(true);
    } finally {
      start.kill("SIGTERM");
      const result = await start;
      if (result.exitCode !== 0) console.log(result.all?.slice(-4000));
      await servers.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
