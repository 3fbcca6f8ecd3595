// A training step's metrics message as a run event: the few numbers status shows picked out by slime's own keys (the
// policy's entropy labelled with who computed it), the rest kept as sent. Ignores what the numbers mean for training (the dashboard's and the reader's concern).
import type { TrainerMetricsMessage } from "../../contracts/bridge.ts";
import type { PolicyEntropy, RunEventInput } from "../../contracts/events.ts";

/** slime's log keys (without `train/`): the loss its loss function reported, Megatron's grad norm, the mismatch, lr. */
const KEYS = { loss: "loss", gradNorm: "grad_norm", logprobDiff: "train_rollout_logprob_abs_diff", lr: "lr-pg_0" } as const;
/** The policy's entropy as our losses report it (native/openclaw_rl/losses.py TRUE_ENTROPY_KEY), and slime's own. */
const ENTROPY_KEYS = { openclaw_rl: "openclaw_rl_entropy", slime: "entropy_loss" } as const;

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
    entropy: policyEntropy(message.metrics),
  };
}

/**
 * Ours where a loss of ours reported it (every openclaw_rl loss does; on the fork binary and token-level OPD go through
 * openclaw_rl.losses.policy_loss_function for it), else slime's entropy_loss, right upstream and with an entropy term.
 */
function policyEntropy(metrics: Record<string, number>): PolicyEntropy | null {
  const ours = metrics[ENTROPY_KEYS.openclaw_rl];
  if (ours !== undefined) return { value: ours, source: "openclaw_rl" };
  const slime = metrics[ENTROPY_KEYS.slime];
  return slime !== undefined ? { value: slime, source: "slime" } : null;
}
