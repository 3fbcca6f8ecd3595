// `openclaw-rl convert-checkpoint [--run DIR | --recipe FILE] [--iteration N | --best] --out DIR [--plan] [--json]`: turns
// a run's checkpoint (default: the latest; --best: the best evaluated version's) into a Hugging Face folder with slime's
// own converter, supervised like any child.
import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { OpenclawRlError, OpenclawRlErrorList } from "../../contracts/errors.ts";
import { planCheckpointConversion, type ConversionPlan } from "../../launchers/slime/checkpoint-conversion.ts";
import { insideRunDir } from "../../launchers/slime/train-args.ts";
import { bestCheckpoint, type BestCheckpoint } from "../../orchestrator/evaluation/best-checkpoint.ts";
import { runCheckpointConversion } from "../../launchers/slime/checkpoint-conversion-run.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { loadRecipe, PACKAGE_ROOT } from "../recipe-file.ts";
import { resolvedRecipePath } from "./run-folder.ts";

interface ConvertOptions extends CommonOptions {
  run?: string;
  iteration?: string;
  best?: boolean;
  out: string;
  plan?: boolean;
  json?: boolean;
}

export function registerConvertCheckpointCommand(program: Command): void {
  withRecipeOptions(program.command("convert-checkpoint"))
    .description("Turn a run's checkpoint (default: the latest) into a Hugging Face folder with slime's own converter")
    .option("--run <dir>", "run folder (its recipe.resolved.yaml is used; default: records.dir of the recipe)")
    .option("--iteration <n>", "checkpoint iteration (iter_%07d; default: the one slime's tracker names)")
    .option("--best", "the checkpoint of the best evaluated version (highest held-out score in the run's evaluations.jsonl)")
    .requiredOption("--out <dir>", "the Hugging Face folder to write (must not exist)")
    .option("--plan", "print the converter's command, environment and what is missing, and run nothing")
    .option("--json", "with --plan: as JSON")
    .action(async (options: ConvertOptions) => {
      const { plan, runDir, best } = conversionPlan(options);
      if (options.plan) {
        process.stdout.write(options.json ? `${JSON.stringify(planJson(plan, best), null, 2)}\n` : formatPlan(plan, best));
        return;
      }
      if (best) process.stderr.write(`· ${bestLine(best)}\n`);
      if (plan.missing.length === 1) throw plan.missing[0]!;
      if (plan.missing.length > 1) throw new OpenclawRlErrorList(plan.missing);
      process.stderr.write(`· converting ${plan.spec.argv[3]} → ${plan.outDir}\n`);
      const outcome = await runCheckpointConversion(plan, { runDir, terminal: (line) => process.stderr.write(`${line}\n`) });
      if (!outcome.result.ok || !outcome.folder.ready) {
        throw new OpenclawRlError("CHILD_FAILED", `${outcome.result.summary}${outcome.result.ok ? ` (but ${outcome.folder.detail})` : ""}`, {
          path: "convert-checkpoint",
          hint: `its whole output is in ${outcome.logFile ?? "the conversion log"}`,
        });
      }
      process.stdout.write(`✓ ${outcome.folder.detail} (${outcome.result.summary})\n`);
    });
}

function conversionPlan(options: ConvertOptions): { plan: ConversionPlan; runDir: string; best: BestCheckpoint | null } {
  const resolved = options.run ? resolvedRecipePath(path.resolve(options.run)) : null;
  const { recipe } = resolved && existsSync(resolved) && !options.recipe ? loadRecipe({ recipe: resolved, set: options.set, method: options.method }) : recipeFromOptions(options);
  const runDir = path.resolve(options.run ?? recipe.records.dir);
  const iteration = options.iteration === undefined ? undefined : Number(options.iteration);
  if (iteration !== undefined && !(Number.isInteger(iteration) && iteration >= 0)) {
    throw new OpenclawRlError("RECIPE_INVALID", `--iteration must be a whole number ≥ 0, not ${options.iteration}`, { path: "--iteration" });
  }
  if (recipe.engine.kind !== "slime") {
    throw new OpenclawRlError("ENGINE_UNSUPPORTED", `engine.kind ${recipe.engine.kind} saves no checkpoints (only slime does)`, { path: "engine.kind", hint: "use the slime recipe of the run (--run <its folder> reads its recipe.resolved.yaml)" });
  }
  if (options.best && iteration !== undefined) throw new OpenclawRlError("RECIPE_INVALID", "--best and --iteration both name a checkpoint: pass one of them", { path: "--best" });
  const best = options.best ? bestCheckpoint(runDir, insideRunDir(runDir, recipe.training.save_dir)) : null;
  return { plan: planCheckpointConversion(recipe, { runDir, iteration: best?.iteration ?? iteration, outDir: options.out, packageRoot: PACKAGE_ROOT }), runDir, best };
}

function bestLine({ best, iteration }: BestCheckpoint): string {
  const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
  const interval = best.scoreCi ? ` [${percent(best.scoreCi.low)}, ${percent(best.scoreCi.high)}]` : "";
  return `best evaluated version v${best.version}: held-out score ${percent(best.meanScore!)}${interval} → iteration ${iteration}`;
}

function planJson(plan: ConversionPlan, best: BestCheckpoint | null) {
  const { spec, saveDir, iteration, converter, outDir, missing } = plan;
  const bestVersion = best && { version: best.best.version, mean_score: best.best.meanScore, score_ci: best.best.scoreCi };
  return { argv: spec.argv, env: spec.env, cwd: spec.cwd, save_dir: saveDir, iteration, best: bestVersion, converter, out: outDir, missing: missing.map(({ code, message, path, hint }) => ({ code, message, path, hint })) };
}

function formatPlan(plan: ConversionPlan, best: BestCheckpoint | null): string {
  const lines = [
    ...(best ? [`best        ${bestLine(best)}`] : []),
    `checkpoint  ${plan.iteration === null ? "none yet" : `iteration ${plan.iteration}`} in ${plan.saveDir}`,
    `converter   ${plan.converter}`,
    `cwd         ${plan.spec.cwd}`,
    `env         ${Object.entries(plan.spec.env).map(([key, value]) => `${key}=${value}`).join(" ")}`,
    `command     ${plan.spec.argv.join(" ")}`,
  ];
  if (plan.missing.length > 0) lines.push("cannot run here:", ...plan.missing.map((error) => `  ✗ ${error.code} ${error.message}\n    hint: ${error.hint ?? ""}`));
  else lines.push("ready to run");
  return `${lines.join("\n")}\n`;
}
