// The sandbox a tool's command runs in: a throw-away working folder, no network, CPU time, memory, process, file-size
// and open-file limits (prlimit), a wall-clock timeout that kills the whole process group, and capped output. Which
// namespaces isolate it is sandbox-isolation.ts's, the limits' values sandbox-limits.ts's, and what a run's result
// says to a model sandbox-run.ts's.
import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { OpenclawRlError } from "../contracts/errors.ts";
import { findIsolation, type Isolation } from "./sandbox-isolation.ts";
import { limitFlags, sandboxLimitsSchema, type SandboxLimits, type SandboxLimitsInput } from "./sandbox-limits.ts";
import type { SandboxRun } from "./sandbox-run.ts";

const PATH = "/usr/local/bin:/usr/bin:/bin";
/**
 * The namespace's first process: runs `prlimit … -- command` and writes its status to fd 3. The limits are not its
 * own, so a command killed for CPU time still reports how it ended (unshare would turn that into its own error), and
 * whatever the command left running dies with the namespace when it returns.
 */
const REPORT_STATUS = '"$@"; echo $? >&3';

export class Sandbox {
  private readonly running = new Set<Promise<unknown> & { pid?: number | undefined }>();
  private closed = false;

  private constructor(
    readonly folder: string,
    readonly limits: SandboxLimits,
    private readonly isolation: Isolation,
  ) {}

  /** A fresh folder under the system's temporary folder, owned by whoever the commands run as. */
  static async open(limits: SandboxLimitsInput = {}): Promise<Sandbox> {
    const isolation = await findIsolation();
    const folder = await mkdtemp(path.join(tmpdir(), "openclaw-sandbox-"));
    if (isolation.folderOwner) await chown(folder, isolation.folderOwner.uid, isolation.folderOwner.gid);
    return new Sandbox(folder, sandboxLimitsSchema.parse(limits), isolation);
  }

  /** Runs `file args` in the folder; never throws for what the command did (a crash, a timeout, a limit). */
  async run(file: string, args: readonly string[], options: { wallTimeoutMs?: number } = {}): Promise<SandboxRun> {
    if (this.closed) throw new OpenclawRlError("ENVIRONMENT_ERROR", "the sandbox is closed", { path: this.folder });
    const limits = this.limits;
    const argv = [...this.isolation.prefix, "/bin/sh", "-c", REPORT_STATUS, "sandbox", "prlimit", ...limitFlags(limits), "--", file, ...args];
    const wallTimeoutMs = options.wallTimeoutMs ?? limits.wallTimeoutMs;
    const subprocess = execa(argv[0]!, argv.slice(1), {
      cwd: this.folder,
      env: { PATH, HOME: this.folder, LANG: "C.UTF-8", PYTHONDONTWRITEBYTECODE: "1" },
      extendEnv: false,
      detached: true,
      reject: false,
      maxBuffer: { stdout: limits.outputBytes, stderr: limits.outputBytes },
      killSignal: "SIGKILL",
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    this.running.add(subprocess);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(subprocess.pid);
    }, wallTimeoutMs);
    try {
      const result = await subprocess;
      if (result.isMaxBuffer) killGroup(subprocess.pid);
      const status = timedOut ? { exitCode: undefined, signal: "SIGKILL" } : statusOf(String(result.stdio[3] ?? ""));
      return {
        ...status,
        timedOut,
        outputCapped: result.isMaxBuffer,
        stdout: String(result.stdout ?? ""),
        stderr: String(result.stderr ?? ""),
        limits: { ...limits, wallTimeoutMs },
      };
    } finally {
      clearTimeout(timer);
      this.running.delete(subprocess);
    }
  }

  /** Kills what still runs and removes the folder, whatever the commands did to its permissions. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const subprocess of this.running) killGroup(subprocess.pid);
    await Promise.allSettled([...this.running]);
    try {
      await rm(this.folder, { recursive: true, force: true });
    } catch {
      await makeRemovable(this.folder);
      await rm(this.folder, { recursive: true, force: true });
    }
  }
}

/** The command's exit code, or the signal that ended it (a shell's status 128 + n), from what fd 3 received. */
function statusOf(report: string): { exitCode: number | undefined; signal: string | undefined } {
  const status = Number.parseInt(report.trim(), 10);
  if (!Number.isInteger(status)) return { exitCode: undefined, signal: "SIGKILL" };
  if (status <= 128) return { exitCode: status, signal: undefined };
  const name = Object.entries(constants.signals).find(([, number]) => number === status - 128)?.[0];
  return { exitCode: undefined, signal: name ?? `signal ${status - 128}` };
}

/** SIGKILL to the process group (the unshare at its head takes its PID namespace down with it). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** A command may leave folders without write or search permission; give them back to us before removing. */
async function makeRemovable(folder: string): Promise<void> {
  await chmod(folder, 0o700).catch(() => undefined);
  await execa("chmod", ["-R", "u+rwX", folder], { reject: false, stdin: "ignore", timeout: 30_000 });
}
