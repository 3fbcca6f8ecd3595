// What every step of the running orchestrator is given (the options, the bus, the weight-version owner, the training
// pause, the one stack of things to close) and how it begins. Ignores the steps themselves and their order (run.ts).
import type { Recipe } from "../../contracts/recipe.ts";
import { cliCommand, shellWord } from "../../lib/cli-command.ts";
import { ResourceStack, type CloseFailure } from "../../lib/resource-stack.ts";
import type { BridgeListener } from "../bridge/bridge-listener.ts";
import { RESUME_ROUTE, TrainingPause } from "../bridge/training-pause.ts";
import { PauseRecordFile } from "../bridge/training-pause-record.ts";
import { EventBus } from "../event-bus.ts";
import { WeightVersionTracker } from "../weights/weight-version-tracker.ts";

export interface Readiness {
  ready: boolean;
  reason: string;
  retryAfterS: number;
}

export interface OrchestratorOptions {
  recipe: Recipe;
  runDir: string;
  /** This run's id (start's): the `uid` of the episodes it drives, so two runs' episode ids never meet. */
  runId?: string;
  /** The proxy's Bearer key (read from recipe.proxy.api_key_env by the CLI). */
  apiKey: string | undefined;
  /** Engine base URLs; null = the router slime announces in its bridge hello. */
  engines: { policy: string | null; judge: string | null };
  /** The traffic gate (the supervisor's); asked on every request. */
  readiness: () => Readiness;
  /** The bridge's listener when `start` bound it before building the launch plan; bound here when absent (sink.kind bridge). */
  bridge?: BridgeListener | null;
  /** Port overrides (tests use 0). */
  ports?: { proxy?: number; admin?: number };
  judgeDrainMs?: number;
  proxyGraceMs?: number;
}

/** What every step is given: the options, the bus, the one weight-version owner, the training pause and the one stack of things to close. */
export interface Run {
  options: OrchestratorOptions;
  recipe: Recipe;
  runDir: string;
  bus: EventBus;
  weights: WeightVersionTracker;
  /** evaluation.stop_if_worse pauses it, the bridge obeys it, POST /training/resume ends it. */
  pause: TrainingPause;
  stack: ResourceStack;
}

/** The bus, the weight-version owner, and the stack whose close failures are reported on the bus. */
export function beginRun(options: OrchestratorOptions): Run {
  const bus = new EventBus();
  const stack = new ResourceStack({ onCloseError: reportTo(bus) });
  const resumeHint = `\`${cliCommand(`resume-training --run ${shellWord(options.runDir)}`)}\` (or POST ${RESUME_ROUTE} on the admin API)`;
  const pause = new TrainingPause(bus, resumeHint, new PauseRecordFile(options.runDir));
  stack.push("training pause record", () => pause.recorded());
  return { options, recipe: options.recipe, runDir: options.runDir, bus, weights: new WeightVersionTracker(0), pause, stack };
}

/** A close failure, reported on the bus as an error of the part that failed to close. */
export function reportTo(bus: EventBus) {
  return ({ name, error }: CloseFailure) => void bus.emit({ type: "error", source: name, code: "INTERNAL", message: `stop: ${(error as Error).message}` });
}
