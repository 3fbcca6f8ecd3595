"""The stand-in policy's learner: a softmax over reply styles (one logit per style), trained on the batches the
real rollout function returns, with the per-method advantages and the PPO policy loss of the real trainer
(openclaw_rl.loss_math: policy_loss, combined_advantages, sum_of_sample_mean).

Only the style decision token (the token after ``</think>\\n\\n``) depends on the parameters; every other token's
log-prob is a constant, exactly as the stand-in policy server reports it. Knows nothing of HTTP or the bridge.
"""

from __future__ import annotations

import json
import os

import torch
from openclaw_rl import loss_math

POLICY_FILE_FORMAT = "openclaw-rl-standin-policy/1"
STYLES = ("plain", "bulleted", "ai")
APPROACHES = ("tool", "memory")  # the agent approach of rehearsal/policy/agent-approach.ts


def style_positions(tokens, style_token_ids, marker_ids):
    """[(position, choice index)] of decision tokens in a token list (the marker's ids right before them): reply
    styles, or agent approaches with their own ids."""
    found = []
    width = len(marker_ids)
    if width == 0:
        return found
    for position in range(width, len(tokens)):
        if list(tokens[position - width:position]) == list(marker_ids) and tokens[position] in style_token_ids:
            found.append((position, style_token_ids.index(tokens[position])))
    return found


def sample_reward(sample) -> float:
    reward = sample.reward
    if isinstance(reward, dict):
        return float(reward.get("score", 0.0))
    return float(reward or 0.0)


class StyleLearner:
    def __init__(self, style_token_ids, marker_ids, method, lr=0.5, eps_clip=0.2, eps_clip_high=0.28, w_rl=1.0, w_opd=1.0, logits=None,
                 approach_token_ids=(), approach_marker_ids=(), approach_logits=None):
        if method not in ("binary", "opd", "combine", "hybrid"):
            raise ValueError(f"unknown method {method!r}")
        self.style_token_ids = list(style_token_ids)
        self.marker_ids = list(marker_ids)
        self.method = method
        self.eps_clip = eps_clip
        self.eps_clip_high = eps_clip_high
        self.w_rl = w_rl
        self.w_opd = w_opd
        self.logits = torch.tensor(logits if logits is not None else [0.0] * len(STYLES), dtype=torch.float32, requires_grad=True)
        self.approach_token_ids = list(approach_token_ids)
        self.approach_marker_ids = list(approach_marker_ids)
        # the policy server's start (rehearsal/policy/style-policy.ts INITIAL_APPROACH_LOGITS): P(tool) = 0.2
        self.approach_logits = torch.tensor(approach_logits if approach_logits is not None else [-0.7, 0.7], dtype=torch.float32, requires_grad=True)
        self.optimizer = torch.optim.Adam([self.logits, self.approach_logits], lr=lr)

    def probabilities(self) -> dict:
        values = torch.softmax(self.logits.detach(), dim=0).tolist()
        approach = torch.softmax(self.approach_logits.detach(), dim=0).tolist()
        return {**{name: round(value, 4) for name, value in zip(STYLES, values)}, **{f"approach_{name}": round(value, 4) for name, value in zip(APPROACHES, approach)}}

    def choice_names(self) -> list[str]:
        """The names `step` counts decisions under: the styles, then the approaches."""
        return [*STYLES, *(f"approach_{name}" for name in APPROACHES)]

    def _advantages(self, sample, old):
        """binary: the reward on every token (GRPO, normalisation off); opd: teacher − old; combine: both, weighted."""
        length = old.shape[0]
        reward = torch.full((length,), sample_reward(sample))
        teacher = getattr(sample, "teacher_log_probs", None)
        teacher = torch.as_tensor(teacher, dtype=torch.float32)[-length:] if teacher is not None else None
        if self.method == "binary":
            return reward
        if self.method == "opd":
            return loss_math.combined_advantages(reward, teacher, old, w_opd=1.0, w_rl=0.0)
        return loss_math.combined_advantages(reward, teacher, old, w_opd=self.w_opd, w_rl=self.w_rl)

    def _new_log_probs(self, sample, log_probs, approach_log_probs, seen):
        """The sample's response log-probs under the current logits: constants, except on style decision tokens."""
        length = int(sample.response_length)
        rollout = torch.as_tensor(sample.rollout_log_probs, dtype=torch.float32)
        prompt_length = len(sample.tokens) - length
        new = rollout.clone()
        for position, style in style_positions(sample.tokens, self.style_token_ids, self.marker_ids):
            if position < prompt_length:
                continue
            seen[STYLES[style]] += 1
            one_hot = torch.zeros(length)
            one_hot[position - prompt_length] = 1.0
            new = new + one_hot * (log_probs[style] - rollout[position - prompt_length])
        for position, choice in style_positions(sample.tokens, self.approach_token_ids, self.approach_marker_ids):
            if position < prompt_length:
                continue
            seen[f"approach_{APPROACHES[choice]}"] += 1
            one_hot = torch.zeros(length)
            one_hot[position - prompt_length] = 1.0
            new = new + one_hot * (approach_log_probs[choice] - rollout[position - prompt_length])
        return new

    def step(self, samples) -> dict:
        """One optimizer step over a batch (slime: one step per rollout); returns the loss and the styles seen."""
        log_probs = torch.log_softmax(self.logits, dim=0)
        approach_log_probs = torch.log_softmax(self.approach_logits, dim=0)
        seen = {name: 0 for name in self.choice_names()}
        samples = [sample for sample in samples if int(sample.response_length) > 0]
        if not samples:
            return {"loss": 0.0, "styles": seen}
        new = [self._new_log_probs(sample, log_probs, approach_log_probs, seen) for sample in samples]
        old = [values.detach() for values in new]  # slime recomputes old log-probs with the current weights
        advantages = torch.cat([self._advantages(sample, values) for sample, values in zip(samples, old)])
        per_token, _ = loss_math.policy_loss(torch.cat(old) - torch.cat(new), advantages, self.eps_clip, self.eps_clip_high)
        lengths = [int(sample.response_length) for sample in samples]
        masks = [torch.as_tensor(sample.loss_mask if sample.loss_mask is not None else [1] * length, dtype=torch.float32) for sample, length in zip(samples, lengths)]
        loss = loss_math.sum_of_sample_mean(per_token, lengths, masks) / len(samples)  # slime divides by the batch size
        if not loss.requires_grad:
            # no sample of this batch chose a reply style (e.g. all tool calls): the stand-in has nothing to learn
            return {"loss": float(loss.detach()), "styles": seen, "skipped": "no style decision in this batch"}
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"loss": float(loss.detach()), "styles": seen}

    def write_policy_file(self, path: str) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = path + ".tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(
                {"format": POLICY_FILE_FORMAT, "styles": list(STYLES), "logits": self.logits.detach().tolist(), "approach_logits": self.approach_logits.detach().tolist()},
                handle,
            )
        os.replace(temporary, path)
