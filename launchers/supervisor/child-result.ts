// How a supervised child ended, as one result object (like execa's): exit code, signal, timed out, killed by
// us, the last lines it printed and a one-line summary. Ignores why it was started or whether it restarts.

/** What is known of any end: who ended, how, and the last lines it printed. */
interface ChildExit {
  name: string;
  pid: number | undefined;
  exitCode: number | undefined;
  signal: string | undefined;
  /** It never became ready within its readiness timeout (we then stopped it). */
  timedOut: boolean;
  /** It was ready, then down (its probe failing) for longer than its limit: hung, so we stopped it. A crash. */
  hung: { downMs: number; detail: string } | undefined;
  /** We sent the signal (a stop, a forced stop, a readiness timeout), so the end is not a crash. */
  killedByUs: boolean;
  /** Last stderr lines, and the last lines of both streams together (a Ray job prints its traceback on stdout). */
  stderrTail: string[];
  outputTail: string[];
}

export interface ChildResult extends ChildExit {
  durationMs: number;
  /** `judge exited with code 1 after 12.3s: torch.OutOfMemoryError: CUDA out of memory` */
  summary: string;
  /** True when the end was planned: exit 0 of a one-shot child, or a stop we asked for. */
  ok: boolean;
}

export interface ChildEnd extends ChildExit {
  startedAt: number;
  expectedToExit: boolean;
}

export function childResult(end: ChildEnd): ChildResult {
  const durationMs = Date.now() - end.startedAt;
  const ok = end.killedByUs || (end.expectedToExit && end.exitCode === 0 && !end.timedOut && end.hung === undefined);
  return { ...end, durationMs, ok, summary: summarize(end, durationMs) };
}

function summarize(end: ChildEnd, durationMs: number): string {
  const after = `after ${(durationMs / 1000).toFixed(1)}s`;
  let how: string;
  if (end.timedOut) how = `was not ready in time and was stopped ${after}`;
  else if (end.killedByUs) how = `was stopped by openclaw-rl (${end.signal ?? `exit ${end.exitCode}`}) ${after}`;
  // (what a hung process last printed says little about why it hung: the probe's answer says what was seen)
  else if (end.hung) return `${end.name} was down for ${Math.round(end.hung.downMs / 1000)}s (${end.hung.detail}), so it was stopped ${after}`;
  else if (end.signal) how = `was killed by ${end.signal} ${after}`;
  else if (end.exitCode === undefined) how = `failed to start`;
  else how = `exited with code ${end.exitCode} ${after}`;
  const reason = lastMeaningfulLine(end.stderrTail.length > 0 ? end.stderrTail : end.outputTail);
  return reason && !end.killedByUs ? `${end.name} ${how}: ${reason}` : `${end.name} ${how}`;
}

/** The line that most likely says why: the last Python exception line, else the last error-looking line, else the last one. */
export function lastMeaningfulLine(lines: string[]): string | undefined {
  const trimmed = lines.map((line) => line.trim()).filter((line) => line.length > 0).reverse();
  const exception = trimmed.find((line) => /^[\w.]*(Error|Exception|Interrupt)\b:?/.test(line));
  const error = trimmed.find((line) => /(error|exception|failed|killed)/i.test(line) && !line.startsWith("File "));
  return (exception ?? error ?? trimmed[0])?.slice(0, 300);
}
