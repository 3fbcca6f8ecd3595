// `openclaw-rl status [--run DIR | --url URL] [--json] [--watch]`: asks the running orchestrator's loopback admin
// API for its state and prints it (engines, turns, samples toward the next batch, rewards, weights, errors).
import type { Command } from "commander";
import { statusSnapshotSchema, type StatusSnapshot } from "../../contracts/status.ts";
import { askAdmin, resolveTarget, type AdminTarget } from "../admin-target.ts";
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

export function fetchStatus(target: AdminTarget): Promise<StatusSnapshot> {
  return askAdmin(target, "/status", statusSnapshotSchema);
}
