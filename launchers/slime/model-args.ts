// Reads MODEL_ARGS (Megatron architecture flags) from one of slime's scripts/models/*.sh files by sourcing it in
// bash, and applies the recipe's --rotary-base so the flag is stated once. Ignores every other variable the file sets.
import { access } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";

export type ModelArgs = { kind: "found"; file: string; args: string[] } | { kind: "missing"; file: string };

// Exit 3: the file fails to source; exit 4: no (or an empty) MODEL_ARGS array. printf with no arguments would
// still print one empty string, hence the explicit count.
const SOURCE_SCRIPT = 'source "$1" >/dev/null || exit 3; (( ${#MODEL_ARGS[@]} > 0 )) || exit 4; printf "%s\\0" "${MODEL_ARGS[@]}"';
const modelArgsSchema = z.array(z.string()).min(1, "MODEL_ARGS is empty");

export function modelArgsFile(recipe: Recipe): string {
  return recipe.engine.slime.model_args ?? path.join(recipe.engine.slime.root, "scripts", "models", "qwen3-4B.sh");
}

/** Sources the model-args file; a missing file is a result (plan notes it), a broken one an error. */
export async function readModelArgs(recipe: Recipe): Promise<ModelArgs> {
  const file = path.resolve(modelArgsFile(recipe));
  try {
    await access(file);
  } catch {
    return { kind: "missing", file };
  }
  const result = await execa("bash", ["-c", SOURCE_SCRIPT, "model-args", file], { reject: false, timeout: 10_000, stdin: "ignore" });
  const parsed = result.exitCode === 0 ? modelArgsSchema.safeParse(result.stdout.split("\0").slice(0, -1)) : null;
  if (!parsed?.success) {
    const why = parsed
      ? parsed.error.issues[0]?.message
      : result.exitCode === 4
        ? "the file defines no MODEL_ARGS array (or an empty one)"
        : `sourcing it failed (exit ${result.exitCode ?? result.signal}): ${result.stderr.trim().split("\n").pop() ?? ""}`;
    throw new OpenclawRlError("RECIPE_INVALID", `cannot read MODEL_ARGS from ${file}: ${why}`, {
      path: "engine.slime.model_args",
      hint: "point engine.slime.model_args at a slime scripts/models/*.sh file that defines the MODEL_ARGS array",
    });
  }
  return { kind: "found", file, args: withRotaryBase(parsed.data, recipe.engine.slime.rotary_base) };
}

/** Replaces the value of --rotary-base (or appends the flag) so the argv states it once. */
export function withRotaryBase(args: string[], rotaryBase: number | undefined): string[] {
  if (rotaryBase === undefined) return args;
  const index = args.indexOf("--rotary-base");
  if (index < 0) return [...args, "--rotary-base", String(rotaryBase)];
  return args.map((value, position) => (position === index + 1 ? String(rotaryBase) : value));
}
