// `openclaw-rl status [--run DIR | --url URL] [--json] [--watch]`: asks the running orchestrator's loopback admin
// API for its state and prints it (engines, turns, samples toward the next batch, rewards, weights, errors).
import type { Command } from "commander";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { cliCommand } from "../../lib/cli-command.ts";
import { statusSnapshotSchema, type StatusSnapshot } from "../../contracts/status.ts";
import { resolveTarget, type AdminTarget } from "../admin-target.ts";
import { withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { formatStatus } from "./status-format.ts";
import { watchStatus } from "./status-watch.ts";

interface StatusOptions extends CommonOptions {
  run?: string;
  url?: string;
  token?: string;
  json?: boolean;
  watch?: boolean;
}

export function registerStatusCommand(program: Command): void {
  withRecipeOptions(program.command("status"))
    .description("Show the running orchestrator's engines, turns, samples, rewards and weight version")
    .option("--run <dir>", "run folder of the running start (default: records.dir of the recipe)")
    .option("--url <url>", "admin URL (default: read from <run>/admin.json)")
    .option("--token <token>", "admin token (default: <run>/admin-token or $OPENCLAW_RL_ADMIN_TOKEN)")
    .option("--json", "print the status as JSON")
    .option("--watch", "keep printing as events arrive (Ctrl-C to quit)")
    .action(async (options: StatusOptions) => {
      const target = resolveTarget(options);
      if (options.watch) return watchStatus(target, { json: options.json === true, read: () => fetchStatus(target).catch(() => null) });
      const status = await fetchStatus(target);
      process.stdout.write(options.json ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status, process.stdout.columns ?? 80, "relative", target.runDir));
    });
}

export async function fetchStatus(target: AdminTarget): Promise<StatusSnapshot> {
  let response: Response;
  try {
    response = await fetch(`${target.url}/status`, { headers: { authorization: `Bearer ${target.token}` }, signal: AbortSignal.timeout(5000) });
  } catch (cause) {
    throw new OpenclawRlError("ENGINE_UNAVAILABLE", `no openclaw-rl answers at ${target.url}`, { path: target.url, cause, hint: `is \`${cliCommand("start")}\` still running?`, retryable: true });
  }
  if (response.status === 401) throw new OpenclawRlError("UNAUTHORIZED", `the admin token was refused by ${target.url}`, { hint: "the token changes with every start: use --run <records.dir>" });
  const parsed = statusSnapshotSchema.safeParse(await response.json().catch(() => null));
  if (!response.ok || !parsed.success) throw new OpenclawRlError("ENGINE_ERROR", `unexpected answer from ${target.url}/status (${response.status})`, { path: target.url });
  return parsed.data;
}
