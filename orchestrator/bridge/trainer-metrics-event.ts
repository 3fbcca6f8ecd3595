// A training step's metrics message as a run event: the few numbers status shows picked out by slime's own keys,
// the rest kept as sent. Ignores what the numbers mean for training (the dashboard's and the reader's concern).
import type { TrainerMetricsMessage } from "../../contracts/bridge.ts";
import type { RunEventInput } from "../../contracts/events.ts";

/** slime's log keys (without `train/`): the loss its loss function reported, Megatron's grad norm, the mismatch, lr. */
const KEYS = { loss: "loss", gradNorm: "grad_norm", logprobDiff: "train_rollout_logprob_abs_diff", lr: "lr-pg_0" } as const;

export function trainerMetricsEvent(message: TrainerMetricsMessage): RunEventInput {
  const pick = (key: string): number | null => message.metrics[key] ?? null;
  return {
    type: "trainer-metrics",
    step: message.step,
    loss: pick(KEYS.loss),
    gradNorm: pick(KEYS.gradNorm),
    logprobDiff: pick(KEYS.logprobDiff),
    lr: pick(KEYS.lr),
    metrics: message.metrics,
  };
}
