// `openclaw-rl status [--run DIR | --url URL] [--json] [--watch]`: asks the running orchestrator's loopback admin
// API for its state and prints it (engines, turns, samples toward the next batch, rewards, weights, errors).
import type { Command } from "commander";
import { statusSnapshotSchema, type StatusSnapshot } from "../../contracts/status.ts";
import { askAdmin, resolveTarget, withAdminTargetOptions, type AdminTarget, type AdminTargetOptions } from "../admin-target.ts";
import { withRecipeOptions } from "../common-options.ts";
import { formatStatus } from "./status-format.ts";
import { watchStatus } from "./status-watch.ts";

interface StatusOptions extends AdminTargetOptions {
  json?: boolean;
  watch?: boolean;
}

export function registerStatusCommand(program: Command): void {
  withAdminTargetOptions(withRecipeOptions(program.command("status")))
    .description("Show the running orchestrator's engines, turns, samples, rewards and weight version")
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
