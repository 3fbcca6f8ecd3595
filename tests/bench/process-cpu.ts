// The CPU time of a bench's processes, read from /proc from outside them, one measure for every process compared.
// Ignores wall time and what the process does.
import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time a process has used so far (ms), read from outside it, the same measure for every process a bench compares:
 * the sum over its threads of the scheduler's run time (/proc/<pid>/task/<tid>/schedstat, nanoseconds), where the
 * kernel keeps it; else utime + stime from /proc/<pid>/stat, in 10 ms ticks, which a short window cuts coarsely.
 */
export function cpuMs(pid: number): number {
  let total = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
      } catch {
        // a thread that ended between the listing and the read
      }
    }
  } catch {
    total = 0;
  }
  if (total > 0) return total;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}
