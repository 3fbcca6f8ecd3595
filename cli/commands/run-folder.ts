// The run folder `start` creates (records.dir): logs/ and the resolved recipe, the recipe exactly as this run
// parsed it (file + --set + --method), which any command can load again with --recipe. Later files belong to
// the orchestrator and the supervisor.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { OpenclawRlError, osReason } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { resolvedRecipePath, writeResolvedRecipe } from "../../launchers/resolved-recipe.ts";

export { resolvedRecipePath };

/** Creates the folder; a folder the OS refuses (a path through a file, no permission) is a typed error naming records.dir. */
export function createRunFolder(runDir: string, recipe: Recipe): void {
  try {
    mkdirSync(path.join(runDir, "logs"), { recursive: true });
    writeResolvedRecipe(runDir, recipe);
  } catch (cause) {
    throw new OpenclawRlError("PATH_UNWRITABLE", `cannot create the run folder ${runDir}: ${osReason(cause)}`, {
      path: "records.dir",
      cause,
      hint: "point records.dir at a folder you can create and write (--set records.dir=<folder>)",
    });
  }
}
