"""The math of openclaw-rl's losses as plain torch functions on per-token tensors (no slime, no Megatron).

Owns: PPO clipped surrogate, the combined advantage, the approximate KL estimators, the K+1-bin reverse KL of
top-K distillation and the masked per-sample mean. Ignores: sequence packing, TP/CP, where tensors come from.
"""

from __future__ import annotations

import torch

# logsumexp of a top-K is clamped just below 0 so the tail mass log(1 - exp(.)) stays finite (as the reference)
TAIL_CLAMP = -1e-7


def policy_loss(ppo_kl: torch.Tensor, advantages: torch.Tensor, eps_clip: float, eps_clip_high: float) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO clipped surrogate per token. ppo_kl = old - new log-prob; ratio = exp(-ppo_kl).

    Returns (loss, clipped) with loss = max(-ratio*A, -clamp(ratio, 1-eps, 1+eps_high)*A) and clipped = 1.0
    where the clipped term won.
    """
    ratio = torch.exp(-ppo_kl)
    unclipped = -ratio * advantages
    clipped = -torch.clamp(ratio, 1.0 - eps_clip, 1.0 + eps_clip_high) * advantages
    return torch.maximum(unclipped, clipped), (clipped > unclipped).float()


def truncated_importance_weights(old_log_probs: torch.Tensor, rollout_log_probs: torch.Tensor, clip_low: float, clip: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Truncated importance sampling against the train/inference mismatch, as slime's vanilla_tis_function.

    Returns (weights, ratio, clipped): ratio = exp(old - rollout) (trainer's over the engine's probability of the
    sampled token), weights = clamp(ratio, clip_low, clip), clipped = 1.0 where the clamp changed it.
    """
    ratio = torch.exp(old_log_probs - rollout_log_probs)
    weights = torch.clamp(ratio, min=clip_low, max=clip)
    return weights, ratio, (weights != ratio).float()


def combined_advantages(
    reward_advantages: torch.Tensor,
    teacher_log_probs: torch.Tensor | None,
    old_log_probs: torch.Tensor,
    w_opd: float,
    w_rl: float,
) -> torch.Tensor:
    """w_opd * (teacher - old) + w_rl * reward advantage, per token; no teacher means a zero teacher term."""
    if teacher_log_probs is None:
        teacher_term = torch.zeros_like(reward_advantages)
    else:
        teacher_term = teacher_log_probs.to(old_log_probs.device, old_log_probs.dtype) - old_log_probs
    return w_opd * teacher_term + w_rl * reward_advantages


def approx_kl(log_probs: torch.Tensor, base_log_probs: torch.Tensor, kl_type: str) -> torch.Tensor:
    """Schulman's estimators of KL(new || base): k1, k2, k3 / low_var_kl (the last clamped to [-10, 10])."""
    log_ratio = log_probs.float() - base_log_probs.float()
    if kl_type == "k1":
        return log_ratio
    if kl_type == "k2":
        return log_ratio**2 / 2.0
    if kl_type in ("k3", "low_var_kl"):
        kl = torch.exp(-log_ratio) - 1.0 + log_ratio
        return torch.clamp(kl, min=-10.0, max=10.0) if kl_type == "low_var_kl" else kl
    raise ValueError(f"unknown kl_loss_type {kl_type!r} (k1, k2, k3 or low_var_kl)")


def tail_log_mass(topk_log_probs: torch.Tensor) -> torch.Tensor:
    """log of the probability outside the top-K: log(1 - sum exp(topk)), shape [..., 1]."""
    covered = torch.clamp(torch.logsumexp(topk_log_probs, dim=-1, keepdim=True), max=TAIL_CLAMP)
    return torch.log(-torch.expm1(covered))


def with_tail(topk_log_probs: torch.Tensor) -> torch.Tensor:
    """The K+1-bin distribution: the top-K log-probs plus the tail bin."""
    return torch.cat([topk_log_probs, tail_log_mass(topk_log_probs)], dim=-1)


def topk_reverse_kl(student_topk: torch.Tensor, teacher_topk: torch.Tensor) -> torch.Tensor:
    """KL(student || teacher) over K+1 bins per token: sum p_s * (log p_s - log p_t)."""
    student = with_tail(student_topk)
    teacher = with_tail(teacher_topk.to(student.device, student.dtype))
    return (torch.exp(student) * (student - teacher)).sum(dim=-1)


def topk_entropy(student_topk: torch.Tensor) -> torch.Tensor:
    """Entropy of the student's K+1-bin distribution per token."""
    student = with_tail(student_topk)
    return -(torch.exp(student) * student).sum(dim=-1)


def _at_least_float32(logits: torch.Tensor) -> torch.Tensor:
    return logits if logits.dtype == torch.float64 else logits.float()


def gather_log_probs(logits: torch.Tensor, indices: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """log softmax(logits / temperature)[indices] for unsharded logits [T, V] and indices [T, K] (TP = 1 path)."""
    return torch.log_softmax(_at_least_float32(logits) / temperature, dim=-1).gather(-1, indices.long())


def softmax_entropy(logits: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """Entropy of softmax(logits / temperature) per row of unsharded logits [T, V] (TP = 1 path)."""
    log_probs = torch.log_softmax(_at_least_float32(logits) / temperature, dim=-1)
    return -(log_probs.exp() * log_probs).sum(dim=-1)


def sum_of_sample_mean(values: torch.Tensor, response_lengths: list[int], loss_masks: list[torch.Tensor]) -> torch.Tensor:
    """Sum over samples of the masked mean over that sample's tokens (slime's reduction with CP = 1).

    A sample whose mask is all zero contributes 0.
    """
    total = values.new_zeros(())
    start = 0
    for length, mask in zip(response_lengths, loss_masks):
        chunk = values[start : start + length]
        mask = mask.to(values.device, values.dtype)
        total = total + (chunk * mask).sum() / torch.clamp_min(mask.sum(), 1.0)
        start += length
    return total
