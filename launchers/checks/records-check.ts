// records.dir can be created (or, when it exists, written): looks only (stat, access) and creates nothing, so start can
// refuse before anything is written. Ignores free space (disk-check.ts).
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { osReason } from "../../contracts/errors.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";

const FIX = "point records.dir at a folder you can create and write (--set records.dir=<folder>)";

/** `runDir`: records.dir made absolute. */
export function checkRecordsDir(recordsDir: string, runDir: string): CheckResult {
  let current = runDir;
  const problem = (reason: string) => failed("records", `cannot ${current === runDir ? "write" : "create"} ${runDir}: ${reason}`, FIX, { code: "PATH_UNWRITABLE", path: "records.dir" });
  for (;;) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(current).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = path.dirname(current);
      // ENOENT: not there yet; ENOTDIR: a path component is a file (found on the way up)
      if ((code === "ENOENT" || code === "ENOTDIR") && parent !== current) {
        current = parent;
        continue;
      }
      return problem(osReason(error));
    }
    if (!isDirectory) return problem(`${current} is a file, not a folder (ENOTDIR)`);
    try {
      accessSync(current, constants.W_OK | constants.X_OK);
      return passed("records", `records.dir ${recordsDir} can be created and written (${runDir})`);
    } catch (error) {
      return problem(current === runDir ? osReason(error) : `${current}: ${osReason(error)}`);
    }
  }
}
