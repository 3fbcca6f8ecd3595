// The bench's proxies as child processes: this tree's judging with a stand-in judge, or another git revision's from a
// temporary worktree, each proxy-bench.ts in its proxy role, found by the first JSON line it prints.
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";

const PROXY_BENCH = path.join(import.meta.dirname, "proxy-bench.ts");

/** The first JSON line a bench child prints (its ports); refused with its stderr when it exits first. */
export function firstLine(child: ResultPromise): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stdout?.on("data", (data: Buffer) => {
      buffer += data.toString();
      const line = buffer.split("\n").find((entry) => entry.startsWith("{"));
      if (line) resolve(JSON.parse(line) as Record<string, number>);
    });
    // (children run with reject: false: one that exits before printing its port resolves, with its stderr)
    void child.then((result) => reject(new Error(`a bench process exited before it printed its port: ${String(result.stderr ?? "").trim().slice(-2000) || `exit code ${result.exitCode}`}`)), reject);
  });
}

/** What a proxy process's probe answers: its CPU and event-loop time so far, turns closed, judged and built into samples. */
export interface ProxyProbe {
  cpuMs: number;
  mainMs: number;
  closed: number;
  judged: number | null;
  samples: number;
}

/** A stand-in judge (its own process) and a proxy of this revision that judges every closed turn with it. */
export async function startJudgingProxy(method: string, on: string, engineUrl: string, flags: string[]): Promise<{ url: string; stop(): Promise<void>; probe(): Promise<ProxyProbe> }> {
  if (!["binary", "opd", "combine"].includes(method)) throw new Error(`--judging=${method}: use binary, opd or combine`);
  if (!["thread", "loop"].includes(on)) throw new Error(`--judging-on=${on}: use thread (as openclaw-rl start runs it) or loop`);
  const root = path.resolve(import.meta.dirname, "../..");
  const judge = execa(process.execPath, ["--import", "tsx", path.join(root, "rehearsal/sglang/main.ts"), "--role", "judge", "--port", "0"], { reject: false });
  const judgeUrl = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    judge.stdout?.on("data", (data: Buffer) => {
      buffer += data.toString();
      const found = /listening on (http:\/\/\S+)/.exec(buffer);
      if (found) resolve(found[1]!);
    });
    void judge.then((result) => reject(new Error(`the stand-in judge exited: ${result.stderr || result.exitCode}`)));
  });
  const child = execa(process.execPath, [...flags, "--import", "tsx", PROXY_BENCH, "--role=proxy", `--engine=${engineUrl}`, `--judge=${judgeUrl}`, `--judging=${method}`, `--judging-on=${on}`], { reject: false });
  const { port, probePort } = await firstLine(child);
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    probe: async () => (await (await fetch(`http://127.0.0.1:${probePort}/`)).json()) as ProxyProbe,
    async stop() {
      await fetch(`http://127.0.0.1:${probePort}/quit`).catch(() => undefined);
      judge.kill("SIGTERM");
      await Promise.allSettled([child, judge]);
    },
  };
}

/**
 * The proxy of another git revision of this repository, from a temporary worktree (this checkout's node_modules
 * linked in), started with that revision's own bench in the proxy role. Refused with a clear message when the
 * revision is unknown or its bench has no proxy role.
 */
export async function startRevisionProxy(revision: string, engineUrl: string, flags: string[]): Promise<{ url: string; pid: number; stop(): Promise<void>; probe(): Promise<ProxyProbe> }> {
  const root = path.resolve(import.meta.dirname, "../..");
  const folder = await mkdtemp(path.join(tmpdir(), "proxy-bench-rev-"));
  const tree = path.join(folder, "tree");
  const remove = async (): Promise<void> => {
    await execa("git", ["-C", root, "worktree", "remove", "--force", tree], { reject: false });
    await rm(folder, { recursive: true, force: true });
  };
  try {
    const added = await execa("git", ["-C", root, "worktree", "add", "--detach", tree, revision], { reject: false });
    if (added.exitCode !== 0) throw new Error(`--compare=${revision}: git worktree add failed: ${added.stderr.trim()}`);
    await symlink(path.join(root, "node_modules"), path.join(tree, "node_modules"));
    const child = execa(process.execPath, [...flags, "--import", "tsx", path.join(tree, "tests/bench/proxy-bench.ts"), "--role=proxy", `--engine=${engineUrl}`], { reject: false, cwd: tree });
    const ready = await Promise.race([firstLine(child), child.then((result) => result)]);
    if (!("port" in ready) || !("probePort" in ready)) throw new Error(`--compare=${revision}: that revision's bench did not start a proxy`);
    return {
      url: `http://127.0.0.1:${ready.port}/v1/chat/completions`,
      pid: child.pid!,
      probe: async () => (await (await fetch(`http://127.0.0.1:${ready.probePort}/`)).json()) as ProxyProbe,
      async stop() {
        await fetch(`http://127.0.0.1:${ready.probePort}/quit`).catch(() => undefined);
        await Promise.allSettled([child]);
        await remove();
      },
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

