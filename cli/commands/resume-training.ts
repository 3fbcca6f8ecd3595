// `openclaw-rl resume-training [--run DIR | --url URL]`: resumes training that evaluation.stop_if_worse paused, through
// the running start's admin API (POST /training/resume), and says what it ended. Text only; the pause is the orchestrator's.
import type { Command } from "commander";
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { cliCommand } from "../../lib/cli-command.ts";
import { RESUME_ROUTE } from "../../orchestrator/bridge/training-pause.ts";
import { resolveTarget } from "../admin-target.ts";
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
      const response = await fetch(`${target.url}${RESUME_ROUTE}`, { method: "POST", headers: { authorization: `Bearer ${target.token}` }, signal: AbortSignal.timeout(5000) }).catch((cause: unknown) => {
        throw new OpenclawRlError("ENGINE_UNAVAILABLE", `no openclaw-rl answers at ${target.url}`, { path: target.url, cause, hint: `is \`${cliCommand("start")}\` still running?`, retryable: true });
      });
      if (response.status === 401) throw new OpenclawRlError("UNAUTHORIZED", `the admin token was refused by ${target.url}`, { hint: "the token changes with every start: use --run <records.dir>" });
      const answer = answerSchema.safeParse(await response.json().catch(() => null));
      if (!response.ok || !answer.success) throw new OpenclawRlError("ENGINE_ERROR", `unexpected answer from ${target.url}${RESUME_ROUTE} (${response.status})`, { path: target.url, hint: "an openclaw-rl older than resume-training answers 404 here" });
      const { resumed, pause } = answer.data;
      process.stdout.write(resumed ? `✓ training resumed (paused since ${new Date(pause!.since).toISOString()}: ${pause!.message})\n` : "· training was not paused: nothing to resume\n");
    });
}
