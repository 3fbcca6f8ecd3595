// `openclaw-rl resume-training [--run DIR | --url URL]`: resumes training that evaluation.stop_if_worse paused, through
// the running start's admin API (POST /training/resume), and says what it ended. Text only; the pause is the orchestrator's.
import type { Command } from "commander";
import { z } from "zod";
import { RESUME_ROUTE } from "../../orchestrator/bridge/training-pause.ts";
import { askAdmin, resolveTarget } from "../admin-target.ts";
import { withRecipeOptions, type CommonOptions } from "../common-options.ts";

interface ResumeOptions extends CommonOptions {
  run?: string;
  url?: string;
  token?: string;
}

const answerSchema = z.object({ resumed: z.boolean(), pause: z.object({ since: z.number(), message: z.string() }).nullable() });

export function registerResumeTrainingCommand(program: Command): void {
  withRecipeOptions(program.command("resume-training"))
    .description("Resume training that evaluation.stop_if_worse paused (the trainer is handed batches again)")
    .option("--run <dir>", "run folder of the running start (default: records.dir of the recipe)")
    .option("--url <url>", "admin URL (default: read from <run>/admin.json)")
    .option("--token <token>", "admin token (default: <run>/admin-token or $OPENCLAW_RL_ADMIN_TOKEN)")
    .action(async (options: ResumeOptions) => {
      const target = resolveTarget(options);
      const { resumed, pause } = await askAdmin(target, RESUME_ROUTE, answerSchema, { method: "POST", hint: "an openclaw-rl older than resume-training answers 404 here" });
      process.stdout.write(resumed ? `✓ training resumed (paused since ${new Date(pause!.since).toISOString()}: ${pause!.message})\n` : "· training was not paused: nothing to resume\n");
    });
}
