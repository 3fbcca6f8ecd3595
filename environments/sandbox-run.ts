// One sandboxed command's end as a result object (exit code, signal, timed out, output capped, output) and the text a
// model reads as its observation: the output, then one `error: …` line naming the limit or the failure, if any.
import type { SandboxLimits } from "./sandbox-limits.ts";

export interface SandboxRun {
  /** Undefined when it was killed (by a signal or at the timeout). */
  exitCode: number | undefined;
  signal: string | undefined;
  timedOut: boolean;
  /** Stdout or stderr went past the cap: the command was stopped and its output cut there. */
  outputCapped: boolean;
  stdout: string;
  stderr: string;
  /** The limits it ran under (the wall-clock one as used for this run). */
  limits: SandboxLimits;
}

/** The observation text of a run: stdout, stderr (marked), and why it failed in one line. */
export function describeRun(run: SandboxRun): string {
  const parts: string[] = [];
  if (run.stdout.length > 0) parts.push(run.stdout.trimEnd());
  if (run.stderr.length > 0) parts.push(`stderr:\n${run.stderr.trimEnd()}`);
  const failure = failureOf(run);
  if (failure) parts.push(`error: ${failure}`);
  return parts.length > 0 ? parts.join("\n") : "(no output)";
}

/** Why the run did not end well, in words, or undefined when it exited 0. */
export function failureOf(run: SandboxRun): string | undefined {
  if (run.timedOut) return `timed out after ${run.limits.wallTimeoutMs / 1000} s and was killed`;
  if (run.outputCapped) return `output passed ${run.limits.outputBytes} bytes; the command was stopped and its output cut`;
  if (run.signal === "SIGXCPU") return `killed by SIGXCPU (CPU time limit ${run.limits.cpuSeconds} s)`;
  if (run.signal === "SIGXFSZ") return `killed by SIGXFSZ (file size limit ${run.limits.fileBytes} bytes)`;
  if (run.signal) return `killed by ${run.signal}`;
  if (run.exitCode !== 0) return `exit code ${run.exitCode}`;
  return undefined;
}
