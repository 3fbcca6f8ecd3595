"""Fake of the fork's slime.utils.ppo_utils (Gen-Verse/OpenClaw-RL 0d034dd, slime/slime/utils/ppo_utils.py:151, :689).

Owns compute_log_probs, calculate_log_probs_and_entropy and compute_policy_loss at TP = 1 with the fork's quirks: compute_log_probs is
Megatron's fused cross entropy, which turns a float32 input into its softmax in place; calculate_log_probs_and_entropy
clones each chunk only while grad is enabled (ppo_utils.py:661-664), then takes the entropy of the same chunks.
"""

from __future__ import annotations

import torch
import torch.distributed as dist


class _CrossEntropyIntoLogits(torch.autograd.Function):
    """-log softmax(logits)[target] like Megatron's fused_vocab_parallel_cross_entropy: the float32 input's storage
    ends up holding the softmax (tensor_parallel/cross_entropy.py: in-place max subtraction, exp, division)."""

    @staticmethod
    def forward(ctx, logits, target):
        work = logits.float()  # the input itself when it is already float32
        work.sub_(work.max(dim=-1, keepdim=True).values)
        target_logit = work.gather(-1, target.unsqueeze(-1)).squeeze(-1).clone()
        work.exp_()
        total = work.sum(dim=-1)
        loss = torch.log(total) - target_logit
        work.div_(total.unsqueeze(-1))
        ctx.save_for_backward(work, target)
        ctx.input_dtype = logits.dtype
        return loss

    @staticmethod
    def backward(ctx, grad_loss):
        softmax, target = ctx.saved_tensors
        grad = softmax.clone()
        grad.scatter_add_(-1, target.unsqueeze(-1), -torch.ones_like(target, dtype=grad.dtype).unsqueeze(-1))
        return (grad * grad_loss.unsqueeze(-1)).to(ctx.input_dtype), None


def compute_policy_loss(ppo_kl: torch.Tensor, advantages: torch.Tensor, eps_clip: float, eps_clip_high: float):
    """PPO's clipped surrogate per token and where the clip won (ppo_utils.py compute_policy_loss, no dual clip)."""
    ratio = (-ppo_kl).exp()
    unclipped, clipped = -ratio * advantages, -ratio.clamp(1 - eps_clip, 1 + eps_clip_high) * advantages
    return torch.maximum(unclipped, clipped), torch.gt(clipped, unclipped).float()


def compute_log_probs(logits: torch.Tensor, tokens: torch.Tensor, process_group: dist.ProcessGroup | None):
    # [T, V] and [T] become [T, 1, V] and [T, 1], as the fused kernel wants; the result is [T, 1]
    return -_CrossEntropyIntoLogits.apply(logits.unsqueeze(1), tokens.unsqueeze(1))


def _entropy(logits: torch.Tensor) -> torch.Tensor:
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    return -(log_probs.exp() * log_probs).sum(dim=-1)


def calculate_log_probs_and_entropy(logits, tokens, tp_group, with_entropy: bool = False, chunk_size: int = -1):
    logits = logits.contiguous()
    if logits.size(0) == 0:
        return logits.new_zeros((0,)), logits.new_zeros((0,)) if with_entropy else None
    rows = chunk_size if chunk_size > 0 else logits.size(0)
    clone = torch.is_grad_enabled()
    pieces, token_pieces = logits.split(rows), tokens.split(rows)
    log_prob = torch.cat([compute_log_probs(piece.clone() if clone else piece, part, tp_group) for piece, part in zip(pieces, token_pieces)])
    entropy = torch.cat([_entropy(piece.clone() if clone else piece) for piece in pieces]) if with_entropy else None
    return log_prob, entropy
