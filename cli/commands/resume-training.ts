// `openclaw-rl resume-training [--run DIR | --url URL]`: resumes training that evaluation.stop_if_worse paused, through
// the running start's admin API (POST /training/resume), and says what it ended. Text only; the pause is the orchestrator's.
import type { Command } from "commander";
import { z } from "zod";
import { RESUME_ROUTE } from "../../orchestrator/bridge/training-pause.ts";
import { askAdmin, resolveTarget, withAdminTargetOptions, type AdminTargetOptions } from "../admin-target.ts";
import { withRecipeOptions } from "../common-options.ts";

const answerSchema = z.object({ resumed: z.boolean(), pause: z.object({ since: z.number(), message: z.string() }).nullable() });

export function registerResumeTrainingCommand(program: Command): void {
  withAdminTargetOptions(withRecipeOptions(program.command("resume-training")))
    .description("Resume training that evaluation.stop_if_worse paused (the trainer is handed batches again)")
    .action(async (options: AdminTargetOptions) => {
      const target = resolveTarget(options);
      const { resumed, pause } = await askAdmin(target, RESUME_ROUTE, answerSchema, { method: "POST", hint: "an openclaw-rl older than resume-training answers 404 here" });
      process.stdout.write(resumed ? `✓ training resumed (paused since ${new Date(pause!.since).toISOString()}: ${pause!.message})\n` : "· training was not paused: nothing to resume\n");
    });
}
