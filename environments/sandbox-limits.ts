// The limits a sandboxed command runs under, with their defaults, and the prlimit flags that enforce them on each
// process (the wall-clock timeout and the output caps are enforced by the sandbox itself).
import { z } from "zod";

export const sandboxLimitsSchema = z
  .object({
    wallTimeoutMs: z.number().int().positive().default(10_000).describe("Wall-clock time of one command; the process group is killed after it."),
    cpuSeconds: z.number().int().positive().default(10).describe("CPU time of each process (RLIMIT_CPU)."),
    memoryBytes: z.number().int().positive().default(512 * 1024 * 1024).describe("Address space of each process (RLIMIT_AS)."),
    processes: z.number().int().positive().default(64).describe("Processes the sandbox's user may have (RLIMIT_NPROC)."),
    fileBytes: z.number().int().positive().default(16 * 1024 * 1024).describe("Largest file a process may write (RLIMIT_FSIZE)."),
    openFiles: z.number().int().positive().default(256).describe("Open files of each process (RLIMIT_NOFILE)."),
    outputBytes: z.number().int().positive().default(16_000).describe("Kept of stdout and of stderr each; the command is stopped past it."),
  })
  .strict();

export type SandboxLimits = z.infer<typeof sandboxLimitsSchema>;
export type SandboxLimitsInput = z.input<typeof sandboxLimitsSchema>;

/** RLIMIT_CPU's soft limit sends SIGXCPU (the hard one, a second later, SIGKILL); the others are soft = hard. */
export function limitFlags(limits: SandboxLimits): string[] {
  return [
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
  ];
}
