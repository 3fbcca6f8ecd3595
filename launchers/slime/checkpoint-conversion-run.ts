// Runs a planned checkpoint conversion as a supervised child (its own process group, its log, its end as a result,
// killed with us) until it exits, and checks the Hugging Face folder it left. Ignores which checkpoint (the plan's).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ChildResult } from "../supervisor/child-result.ts";
import type { TerminalWriter } from "../supervisor/child-log.ts";
import type { ProbeResult } from "../supervisor/readiness-probe.ts";
import { NEVER_RESTART } from "../supervisor/restart-policy.ts";
import { Supervisor } from "../supervisor/supervisor.ts";
import type { ConversionPlan } from "./checkpoint-conversion.ts";

/** Its supervisor's folder inside the run folder (logs/convert-checkpoint.log, pids.json): never the run's own pids.json. */
export const CONVERSION_FOLDER = "conversions";
const END_POLL_MS = 200;
/** A conversion of a large model takes long; the bound only stops one that never ends. */
const CONVERSION_TIMEOUT_MS = 6 * 3600_000;

export interface ConversionOutcome {
  result: ChildResult;
  /** What the output folder holds, as checked after the end. */
  folder: ProbeResult;
  logFile: string | undefined;
}

const indexSchema = z.object({ weight_map: z.record(z.string(), z.string()) });

/** A Hugging Face folder: config.json, the safetensors index and every shard it names. */
export function huggingFaceFolderState(folder: string): ProbeResult {
  const index = path.join(folder, "model.safetensors.index.json");
  if (!existsSync(path.join(folder, "config.json"))) return { ready: false, detail: `${folder} has no config.json` };
  if (!existsSync(index)) return { ready: false, detail: `${folder} has no model.safetensors.index.json` };
  const parsed = indexSchema.safeParse(JSON.parse(readFileSync(index, "utf8")));
  if (!parsed.success) return { ready: false, detail: `${index} has no weight_map` };
  const shards = [...new Set(Object.values(parsed.data.weight_map))];
  const absent = shards.filter((shard) => !existsSync(path.join(folder, shard)));
  if (shards.length === 0 || absent.length > 0) return { ready: false, detail: `${folder} lacks ${absent.length > 0 ? absent.join(", ") : "any shard"}` };
  return { ready: true, detail: `${folder}: config.json and ${shards.length} safetensors shard(s)` };
}

export async function runCheckpointConversion(plan: ConversionPlan, options: { runDir: string; terminal?: TerminalWriter; baseEnvironment?: Record<string, string | undefined> }): Promise<ConversionOutcome> {
  const folder = path.join(options.runDir, CONVERSION_FOLDER);
  mkdirSync(path.join(folder, "logs"), { recursive: true });
  const supervisor = new Supervisor({ runDir: folder, baseEnvironment: options.baseEnvironment ?? process.env, terminal: options.terminal });
  const name = plan.spec.name;
  try {
    await supervisor.start([
      {
        name,
        spec: plan.spec,
        lifetime: "oneshot",
        probe: async () => huggingFaceFolderState(plan.outDir),
        readyTimeoutMs: CONVERSION_TIMEOUT_MS,
        recheckMs: 0,
        hungAfterMs: Infinity,
        restart: NEVER_RESTART,
        gatesTraffic: false,
        after: [],
      },
    ]);
    let status = supervisor.status(name);
    while (status && status.lastResult === undefined && status.state !== "failed") {
      await new Promise((resolve) => setTimeout(resolve, END_POLL_MS));
      status = supervisor.status(name);
    }
    const result = status?.lastResult;
    if (!result) throw new Error(`${name} ended without a result: ${status?.detail ?? "never started"}`);
    return { result, folder: huggingFaceFolderState(plan.outDir), logFile: status?.logFile };
  } finally {
    await supervisor.stop();
  }
}
