// Can records.dir be created (or, when it exists, written)? Looks only (stat, access): creates nothing, so
// preflight can refuse before anything is written, and doctor can say so. Ignores free space (doctor's disk check).
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { OpenclawRlError, osReason } from "../../contracts/errors.ts";

/** null when `start` can create and write `runDir` (an absolute path), else the problem naming records.dir. */
export function recordsDirProblem(runDir: string): OpenclawRlError | null {
  let current = runDir;
  const problem = (reason: string, cause?: unknown) =>
    new OpenclawRlError("PATH_UNWRITABLE", `cannot ${current === runDir ? "write" : "create"} ${runDir}: ${reason}`, {
      path: "records.dir",
      cause,
      hint: "point records.dir at a folder you can create and write (--set records.dir=<folder>)",
    });
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
      return problem(osReason(error), error);
    }
    if (!isDirectory) return problem(`${current} is a file, not a folder (ENOTDIR)`);
    try {
      accessSync(current, constants.W_OK | constants.X_OK);
      return null;
    } catch (error) {
      return problem(current === runDir ? osReason(error) : `${current}: ${osReason(error)}`, error);
    }
  }
}
