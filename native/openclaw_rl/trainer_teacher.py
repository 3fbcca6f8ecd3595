"""The teacher in the trainer (recipe opd.teacher: trainer): one forward pass of a frozen teacher over a sample's
teacher tokens (the hinted prompt followed by the response) gives the teacher's log-prob of every response token, and
its top-K rows, at the rollout temperature.

Owns the slicing of the teacher's logits onto the response and the temperature. Ignores which model the teacher is
and how its forward runs: the caller passes a function from token ids to logits (a Megatron forward_only, the rehearsal
stand-in's teacher). The values are those the judge engine's per-position scoring returns (orchestrator/judging/
per-position-scoring.ts: SGLang's sampler, log_softmax(logits / T) of the token after prompt + response[:t]); at T = 1
also those of its prefill scoring.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from . import teacher_carriage


@dataclass(frozen=True)
class TeacherValues:
    """Per response token: the teacher's log-prob of it, and (topk > 0) the K most likely ids with their log-probs."""

    log_probs: torch.Tensor  # [R] float32
    topk_log_probs: torch.Tensor | None = None  # [R, K] float32
    topk_indices: torch.Tensor | None = None  # [R, K] int64


def response_teacher_values(logits: torch.Tensor, teacher_tokens: Sequence[int], response_length: int, temperature: float, topk: int = 0) -> TeacherValues:
    """logits [L, V] of the teacher over its L tokens (row p: the distribution of token p + 1 after tokens[:p + 1]).

    Response token i sits at p = P + i (P = L - response_length, the hinted prompt's length); its distribution is row
    P + i - 1. Rows are divided by the temperature before log_softmax, as the trainer's own log-probs are (slime's
    get_responses divides by --rollout-temperature).
    """
    length = len(teacher_tokens)
    prompt_length = length - int(response_length)
    if response_length < 1 or prompt_length < 1:
        raise ValueError(f"teacher tokens ({length}) must hold a hinted prompt and a response of {response_length} tokens")
    if logits.dim() != 2 or logits.shape[0] != length:
        raise ValueError(f"teacher logits have shape {tuple(logits.shape)}, expected [{length}, vocab]")
    if not temperature > 0:
        raise ValueError(f"the teacher's temperature must be > 0, got {temperature}")
    rows = logits[prompt_length - 1 : length - 1].float() / float(temperature)
    log_probs = torch.log_softmax(rows, dim=-1)
    response = torch.as_tensor(list(teacher_tokens[prompt_length:]), dtype=torch.int64)
    values = log_probs.gather(-1, response.unsqueeze(-1)).squeeze(-1)
    if topk <= 0:
        return TeacherValues(values)
    top = log_probs.topk(int(topk), dim=-1)
    return TeacherValues(values, top.values, top.indices)


def fill_teacher_log_probs(samples: list, forward: Callable[[torch.Tensor], torch.Tensor], temperature: float, topk: int = 0) -> int:
    """Sets teacher_log_probs (and the top-K arrays with topk > 0) on every sample that carries a teacher
    (teacher_carriage.py): from one forward over its teacher tokens, or the carried log-probs as they are (a combine
    sample without a hint carries its rollout log-probs). Returns how many samples the teacher scored. Samples that
    carry nothing keep what they have."""
    filled = 0
    with torch.no_grad():
        for sample in samples:
            teacher = teacher_carriage.carried(sample)
            if teacher is None:
                continue
            if teacher.tokens is None:
                sample.teacher_log_probs = teacher.log_probs
                continue
            tokens = teacher.tokens.tolist()
            logits = forward(teacher.tokens)
            values = response_teacher_values(logits, tokens, int(sample.response_length), temperature, topk)
            sample.teacher_log_probs = values.log_probs
            if values.topk_log_probs is not None:
                sample.teacher_topk_log_probs = values.topk_log_probs
                sample.teacher_topk_indices = values.topk_indices
            filled += 1
    return filled


def sharded_topk(rows: torch.Tensor, topk: int, group=None) -> tuple[torch.Tensor, torch.Tensor]:
    """The top-K of log_softmax(rows) over the whole vocabulary when each tensor-parallel rank holds one contiguous
    slice of it (Megatron's vocab-parallel layout: rank r has ids [r·V/tp, (r+1)·V/tp)): (log-probs [R, K] float32,
    global token ids [R, K] int64), equal on every rank. rows [R, V/tp] are already divided by the temperature. The
    normaliser is all-reduced (max, then sum of exponentials) and each rank's own top-K all-gathered, so one forward
    gives what a full-vocabulary log_softmax + topk gives (response_teacher_values)."""
    import torch.distributed as dist

    rows = rows.float()
    sharded = group is not None and dist.is_available() and dist.is_initialized() and dist.get_world_size(group) > 1
    peak = rows.max(dim=-1, keepdim=True).values
    if sharded:
        dist.all_reduce(peak, op=dist.ReduceOp.MAX, group=group)
    total = torch.exp(rows - peak).sum(dim=-1, keepdim=True)
    if sharded:
        dist.all_reduce(total, op=dist.ReduceOp.SUM, group=group)
    normaliser = peak + torch.log(total)
    local = rows.topk(min(int(topk), rows.shape[-1]), dim=-1)
    values, indices = local.values, local.indices
    if sharded:
        rank, world = dist.get_rank(group), dist.get_world_size(group)
        indices = indices + rank * rows.shape[-1]
        every_values = [torch.empty_like(values) for _ in range(world)]
        every_indices = [torch.empty_like(indices) for _ in range(world)]
        dist.all_gather(every_values, values.contiguous(), group=group)
        dist.all_gather(every_indices, indices.contiguous(), group=group)
        values, indices = torch.cat(every_values, dim=-1), torch.cat(every_indices, dim=-1)
    if values.shape[-1] < topk:
        raise ValueError(f"the vocabulary has {values.shape[-1]} tokens, fewer than the top-{topk} asked")
    best = values.topk(int(topk), dim=-1)
    return best.values - normaliser, indices.gather(-1, best.indices).to(torch.int64)
