"""Fake of upstream slime.utils.ppo_utils (THUDM/slime 624b824, slime/utils/ppo_utils.py:718).

Owns calculate_log_probs_and_entropy at TP = 1: log-softmax at the target tokens (a keep-mask hides the other
logits from the log-prob only), entropy of the unmasked logits, detached unless with_entropy_grad. The input is never
written. There is no compute_log_probs upstream, so there is none here.
"""

from __future__ import annotations

import torch


def _log_prob_and_entropy(logits, tokens, keep_mask, with_entropy: bool, with_entropy_grad: bool):
    values = logits.float()
    kept = values
    if keep_mask is not None:
        # the target token always stays, whatever the nucleus says
        keep = keep_mask.clone()
        keep[torch.arange(values.size(0), device=values.device), tokens] = True
        kept = values.masked_fill(~keep, float("-inf"))
    log_prob = torch.log_softmax(kept, dim=-1).gather(-1, tokens.unsqueeze(-1))
    entropy = None
    if with_entropy:
        table = torch.log_softmax(values, dim=-1)
        entropy = -(table.exp() * table).sum(dim=-1)
        if not with_entropy_grad:
            entropy = entropy.detach()
    return log_prob, entropy


def calculate_log_probs_and_entropy(
    logits,
    tokens,
    tp_group,
    with_entropy: bool = False,
    chunk_size: int = -1,
    log_prob_keep_mask=None,
    with_entropy_grad: bool = True,
):
    logits = logits.contiguous()
    if logits.size(0) == 0:
        return logits.new_zeros((0,)), logits.new_zeros((0,)) if with_entropy else None
    rows = chunk_size if chunk_size > 0 else logits.size(0)
    masks = log_prob_keep_mask.split(rows) if log_prob_keep_mask is not None else [None] * len(logits.split(rows))
    parts = [
        _log_prob_and_entropy(piece, part, mask, with_entropy, with_entropy and with_entropy_grad)
        for piece, part, mask in zip(logits.split(rows), tokens.split(rows), masks)
    ]
    log_prob = torch.cat([log_prob for log_prob, _ in parts])
    entropy = torch.cat([entropy for _, entropy in parts]) if with_entropy else None
    return log_prob, entropy
