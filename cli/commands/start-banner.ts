// The one banner `start` prints when the run is up: where OpenClaw points, the key variable, the
// openclaw-config and demo commands (on the run's resolved recipe, so --set / --method overrides such as proxy.port
// carry over), status, eval, logs, the dashboard, what is still warming up; rehearsal says it is a stand-in.
import path from "node:path";
import type { Recipe } from "../../contracts/recipe.ts";
import type { ChildStatus } from "../../launchers/supervisor/child-definition.ts";
import { cliCommand, pastablePath } from "../../lib/cli-command.ts";
import { versionLabels } from "../../orchestrator/weights/version-labels.ts";
import { resolvedRecipePath } from "./run-folder.ts";

export interface BannerInput {
  recipe: Recipe;
  recipeFile: string;
  runDir: string;
  urls: { proxy: string; admin: string; dashboard: string; bridge: string | null };
  apiKeySet: boolean;
  engines: ChildStatus[];
  notes: string[];
}

export function formatBanner(input: BannerInput): string {
  const { recipe } = input;
  const relativeRecipe = path.relative(process.cwd(), input.recipeFile) || input.recipeFile;
  const resolvedRecipe = pastablePath(resolvedRecipePath(input.runDir));
  const keyVariable = recipe.proxy.api_key_env;
  const warming = input.engines.filter((engine) => engine.state !== "ready");
  const rule = "─".repeat(78);
  const lines = [
    rule,
    `openclaw-rl is running: ${recipe.name ?? relativeRecipe} · method ${recipe.method} · engine ${recipe.engine.kind} · model ${recipe.model.served_name}`,
  ];
  if (recipe.engine.kind === "rehearsal") {
    lines.push("  ⚠ REHEARSAL: the model is a STAND-IN (CPU stand-ins that speak SGLang's API), not a real model.");
  }
  const labels = versionLabels(recipe);
  if (!labels.exact) lines.push(`  ⚠ ${labels.note}`);
  lines.push(
    `  OpenClaw endpoint  ${input.urls.proxy}`,
    `  API key            $${keyVariable} ${input.apiKeySet ? "(set: clients must send it as Bearer)" : "(not set: no auth on loopback)"}`,
    `  OpenClaw config    ${cliCommand(`openclaw-config --recipe ${resolvedRecipe} --write ~/.openclaw/openclaw.json`)}`,
    `  Status             ${cliCommand(`status --run ${pastablePath(input.runDir)}`)}   (or --json, --watch)`,
  );
  if (recipe.engine.kind === "rehearsal") lines.push(`  Demo               ${cliCommand(`demo --recipe ${resolvedRecipe}`)}`);
  lines.push(
    `  Held-out eval      ${cliCommand(`eval --run ${pastablePath(input.runDir)}`)}`,
    `  Dashboard          ${input.urls.dashboard}`,
    `  Logs               ${path.join(input.runDir, "logs")}/<engine>.log`,
    `  Engines            ${input.engines.map((engine) => `${engine.name} ${engine.state}`).join(", ") || "none supervised"}`,
  );
  if (recipe.sink.kind === "jsonl") lines.push(`  Samples            appended to ${path.resolve(input.runDir, recipe.sink.path!)} (no trainer)`);
  for (const engine of warming) lines.push(`  Still warming up   ${engine.name}: ${engine.detail}`);
  for (const note of input.notes) lines.push(`  Note               ${note}`);
  lines.push("  Stop               Ctrl-C (twice to force)", rule);
  return lines.join("\n") + "\n";
}
