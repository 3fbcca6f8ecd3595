// Client side of orphan-watchdog.mjs: starts it detached with a stdin pipe and tells it which process
// groups to take down if this process dies without a clean stop (SIGKILL included).
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";

const SCRIPT = fileURLToPath(new URL("./orphan-watchdog.mjs", import.meta.url));

export class OrphanWatchdog {
  private readonly subprocess: ResultPromise<{ stdin: "pipe"; stdout: "ignore"; stderr: "inherit"; detached: true; reject: false }>;

  constructor(graceMs = 3000) {
    this.subprocess = execa(process.execPath, [SCRIPT, String(graceMs)], {
      stdin: "pipe",
      stdout: "ignore",
      stderr: "inherit",
      detached: true,
      reject: false,
      cleanup: false,
    });
    this.subprocess.catch(() => undefined);
    this.subprocess.unref();
    (this.subprocess.stdin as unknown as { unref?: () => void }).unref?.();
  }

  get pid(): number | undefined {
    return this.subprocess.pid;
  }

  /** leaderFirst: when orphaned, SIGTERM the group's leader alone first and give it time (`ray start --block`). */
  watchGroup(pgid: number, leaderFirst = false): void {
    this.send(leaderFirst ? { add: pgid, leaderFirst: true } : { add: pgid });
  }

  forgetGroup(pgid: number): void {
    this.send({ remove: pgid });
  }

  /** A clean stop: the watchdog exits without touching anything. */
  async release(): Promise<void> {
    this.send({ done: true });
    this.subprocess.stdin?.end();
    await Promise.race([this.subprocess, new Promise((resolve) => setTimeout(resolve, 2000))]);
  }

  private send(message: unknown): void {
    const stdin = this.subprocess.stdin;
    if (stdin && !stdin.destroyed && stdin.writable) stdin.write(JSON.stringify(message) + "\n");
  }
}
