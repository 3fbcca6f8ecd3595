"""The stand-in policy's learner: a softmax over reply styles (one logit per style), trained on the batches the
real rollout function returns, with the per-method advantages and the PPO policy loss of the real trainer.

Only the style decision token (the token after ``</think>\\n\\n``) depends on the parameters; every other token's
log-prob is a constant, exactly as the stand-in policy server reports it. Knows nothing of HTTP or the bridge.
"""

from __future__ import annotations

import json
import os

import torch

POLICY_FILE_FORMAT = "openclaw-rl-standin-policy/1"
STYLES = ("plain", "bulleted", "ai")


def policy_loss_per_token(ppo_kl, advantages, eps_clip, eps_clip_high):
    """slime's compute_policy_loss: ratio = exp(-ppo_kl); max(-ratio*A, -clip(ratio)*A)."""
    try:
        from openclaw_rl.loss_math import compute_policy_loss  # the project's own loss math, when present
    except ImportError:
        compute_policy_loss = None
    if compute_policy_loss is not None:
        loss, _ = compute_policy_loss(ppo_kl, advantages, eps_clip, eps_clip_high)
        return loss
    ratio = torch.exp(-ppo_kl)
    unclipped = -ratio * advantages
    clipped = -ratio.clamp(1 - eps_clip, 1 + eps_clip_high) * advantages
    return torch.maximum(unclipped, clipped)


def style_positions(tokens, style_token_ids, marker_ids):
    """[(position, style index)] of style decision tokens in a token list."""
    found = []
    for position in range(2, len(tokens)):
        if tokens[position - 2] == marker_ids[0] and tokens[position - 1] == marker_ids[1] and tokens[position] in style_token_ids:
            found.append((position, style_token_ids.index(tokens[position])))
    return found


def sample_reward(sample) -> float:
    reward = sample.reward
    if isinstance(reward, dict):
        return float(reward.get("score", 0.0))
    return float(reward or 0.0)


class StyleLearner:
    def __init__(self, style_token_ids, marker_ids, method, lr=0.5, eps_clip=0.2, eps_clip_high=0.28, w_rl=1.0, w_opd=1.0, logits=None):
        if method not in ("binary", "opd", "combine"):
            raise ValueError(f"unknown method {method!r}")
        self.style_token_ids = list(style_token_ids)
        self.marker_ids = list(marker_ids)
        self.method = method
        self.eps_clip = eps_clip
        self.eps_clip_high = eps_clip_high
        self.w_rl = w_rl
        self.w_opd = w_opd
        self.logits = torch.tensor(logits if logits is not None else [0.0] * len(STYLES), dtype=torch.float32, requires_grad=True)
        self.optimizer = torch.optim.Adam([self.logits], lr=lr)

    def probabilities(self) -> dict:
        values = torch.softmax(self.logits.detach(), dim=0).tolist()
        return {name: round(value, 4) for name, value in zip(STYLES, values)}

    def _advantages(self, sample, old):
        length = old.shape[0]
        reward = torch.full((length,), sample_reward(sample))
        teacher = getattr(sample, "teacher_log_probs", None)
        teacher_term = torch.as_tensor(teacher, dtype=torch.float32)[-length:] - old if teacher is not None else torch.zeros(length)
        if self.method == "binary":
            return reward
        if self.method == "opd":
            return teacher_term
        return self.w_opd * teacher_term + self.w_rl * reward

    def step(self, samples) -> dict:
        """One optimizer step over a batch; returns the loss and what the batch held."""
        log_probs = torch.log_softmax(self.logits, dim=0)
        terms = []
        seen = {name: 0 for name in STYLES}
        for sample in samples:
            length = int(sample.response_length)
            if length <= 0:
                continue
            rollout = torch.as_tensor(sample.rollout_log_probs, dtype=torch.float32)
            new = rollout.clone()
            prompt_length = len(sample.tokens) - length
            pieces = [new]
            for position, style in style_positions(sample.tokens, self.style_token_ids, self.marker_ids):
                if position < prompt_length:
                    continue
                seen[STYLES[style]] += 1
                index = position - prompt_length
                mask = torch.zeros(length)
                mask[index] = 1.0
                pieces.append(mask * (log_probs[style] - rollout[index]))
            new = sum(pieces)
            old = new.detach()  # slime recomputes the old log-probs with the current weights (ratio 1 at the start)
            advantages = self._advantages(sample, old)
            per_token = policy_loss_per_token(old - new, advantages, self.eps_clip, self.eps_clip_high)
            loss_mask = torch.as_tensor(sample.loss_mask if sample.loss_mask is not None else [1] * length, dtype=torch.float32)
            terms.append((per_token * loss_mask).sum() / loss_mask.sum().clamp(min=1.0))  # slime's sum_of_sample_mean
        if not terms:
            return {"loss": 0.0, "styles": seen}
        loss = torch.stack(terms).sum() / len(samples)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"loss": float(loss.detach()), "styles": seen}

    def write_policy_file(self, path: str) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = path + ".tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump({"format": POLICY_FILE_FORMAT, "styles": list(STYLES), "logits": self.logits.detach().tolist()}, handle)
        os.replace(temporary, path)
