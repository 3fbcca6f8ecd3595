// When a spawned child has ended. execa's promise settles only once the child's stdout and stderr are closed, and a
// subprocess the child started (and left behind) may hold them open for ever; so the end is the child's own 'exit'
// event, or execa's result when it never ran (a spawn error emits no 'exit'). Also: draining what is left of its
// output without waiting on whoever still holds the pipes.
import type { ResultPromise } from "execa";

export interface ProcessExit {
  exitCode: number | undefined;
  signal: string | undefined;
  /** Why it did not run at all (spawn error), when it did not. */
  reason: string | undefined;
}

export function processExit(subprocess: ResultPromise): Promise<ProcessExit> {
  const exitEvent = new Promise<ProcessExit>((resolve) => {
    subprocess.once("exit", (code, signal) => resolve({ exitCode: code ?? undefined, signal: signal ?? undefined, reason: undefined }));
  });
  const settled = subprocess.then((result) => ({
    exitCode: result.exitCode,
    signal: result.signal,
    reason: result.exitCode === undefined && !result.signal ? (result.originalMessage ?? result.shortMessage) : undefined,
  }));
  return Promise.race([exitEvent, settled]);
}

/**
 * Waits up to `ms` for the line readers to reach the end of the child's output, then closes our ends of its pipes
 * (stdin included): a process outside its group that still holds them cannot keep us waiting or keep the pipes open.
 */
export async function drainOutput(subprocess: ResultPromise, readers: Array<Promise<void>>, ms: number): Promise<void> {
  const all = Promise.all(readers.map((reader) => reader.catch(() => undefined)));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
  for (const stream of [subprocess.stdin, subprocess.stdout, subprocess.stderr]) stream?.destroy();
  await all;
}
