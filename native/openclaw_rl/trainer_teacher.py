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
    response = torch.as_tensor(list(teacher_tokens[prompt_length:]), dtype=torch.int64, device=logits.device)
    values = log_probs.gather(-1, response.unsqueeze(-1)).squeeze(-1)
    if topk <= 0:
        return TeacherValues(values)
    top = log_probs.topk(int(topk), dim=-1)
    return TeacherValues(values, top.values, top.indices)


def fill_teacher_values(samples: list, values_of: Callable[[torch.Tensor, int], TeacherValues]) -> int:
    """Sets teacher_log_probs (and the top-K arrays where the values have them) on every sample that carries a teacher
    (teacher_carriage.py): values_of(teacher tokens, response length), or the carried log-probs as they are (a combine
    sample without a hint carries its rollout log-probs). Returns how many samples the teacher scored. Samples that
    carry nothing keep what they have."""
    filled = 0
    for sample in samples:
        teacher = teacher_carriage.carried(sample)
        if teacher is None:
            continue
        if teacher.tokens is None:
            sample.teacher_log_probs = teacher.log_probs
            continue
        values = values_of(teacher.tokens, int(sample.response_length))
        sample.teacher_log_probs = values.log_probs
        if values.topk_log_probs is not None:
            sample.teacher_topk_log_probs = values.topk_log_probs
            sample.teacher_topk_indices = values.topk_indices
        filled += 1
    return filled


def fill_teacher_log_probs(samples: list, forward: Callable[[torch.Tensor], torch.Tensor], temperature: float, topk: int = 0) -> int:
    """fill_teacher_values from one forward over each sample's teacher tokens (logits [L, V]), at the temperature."""
    with torch.no_grad():
        return fill_teacher_values(samples, lambda tokens, length: response_teacher_values(forward(tokens), tokens.tolist(), length, temperature, topk))


# rows of the vocabulary-wide pass held at once: a full-vocabulary float32 copy of every response row would cost
# R × V × 4 bytes (8,192 rows at 151,936: 4.6 GiB per copy, 13.9 GiB peak measured on an H200)
CHUNK_ROWS = 1024


def sharded_topk(rows: torch.Tensor, topk: int, group=None, chunk_rows: int = CHUNK_ROWS, at: torch.Tensor | None = None):
    """The top-K of log_softmax(rows) over the whole vocabulary when each tensor-parallel rank holds one contiguous
    slice of it (Megatron's vocab-parallel layout: rank r has ids [r·V/tp, (r+1)·V/tp)): (log-probs [R, K] float32,
    global token ids [R, K] int64), equal on every rank; with `at` (global ids [R, J]) also the log-probs there
    ([R, J] float32) as a third value. rows [R, V/tp] are already divided by the temperature. The normaliser is
    all-reduced (max, then sum of exponentials) and each rank's own top-K all-gathered, so one forward gives what a
    full-vocabulary log_softmax + topk gives (response_teacher_values). Rows are taken chunk_rows at a time, so the
    float32 temporaries hold chunk_rows × V/tp values whatever the response length; every row's values are those of
    the whole pass."""
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be >= 1, got {chunk_rows}")
    if rows.shape[-1] * _world(group) < topk:
        raise ValueError(f"the vocabulary has {rows.shape[-1] * _world(group)} tokens, fewer than the top-{topk} asked")
    pieces = [_topk_chunk(rows[start : start + chunk_rows], int(topk), group, None if at is None else at[start : start + chunk_rows]) for start in range(0, rows.shape[0], chunk_rows)]
    if not pieces:
        empty = rows.new_zeros((0, int(topk)), dtype=torch.float32)
        pieces = [(empty, empty.long(), None if at is None else rows.new_zeros((0, at.shape[-1]), dtype=torch.float32))]
    values, indices = torch.cat([piece[0] for piece in pieces]), torch.cat([piece[1] for piece in pieces])
    if at is None:
        return values, indices
    return values, indices, torch.cat([piece[2] for piece in pieces])


def _world(group) -> int:
    import torch.distributed as dist

    sharded = group is not None and dist.is_available() and dist.is_initialized()
    return dist.get_world_size(group) if sharded else 1


def _topk_chunk(rows: torch.Tensor, topk: int, group, at: torch.Tensor | None):
    import torch.distributed as dist

    sharded = _world(group) > 1
    rows = rows.float()
    peak = rows.max(dim=-1, keepdim=True).values
    if sharded:
        dist.all_reduce(peak, op=dist.ReduceOp.MAX, group=group)
    total = torch.exp(rows - peak).sum(dim=-1, keepdim=True)
    if sharded:
        dist.all_reduce(total, op=dist.ReduceOp.SUM, group=group)
    normaliser = peak + torch.log(total)
    local = rows.topk(min(topk, rows.shape[-1]), dim=-1)
    values, indices = local.values, local.indices
    rank, world = (dist.get_rank(group), dist.get_world_size(group)) if sharded else (0, 1)
    picked = None
    if at is not None:
        at = at.to(device=rows.device, dtype=torch.int64)
        low = rank * rows.shape[-1]
        inside = (at >= low) & (at < low + rows.shape[-1])
        picked = torch.where(inside, rows.gather(-1, (at - low).clamp(0, rows.shape[-1] - 1)), torch.zeros((), device=rows.device))
        if sharded:
            dist.all_reduce(picked, op=dist.ReduceOp.SUM, group=group)
        picked = picked - normaliser
    if sharded:
        indices = indices + rank * rows.shape[-1]
        every_values = [torch.empty_like(values) for _ in range(world)]
        every_indices = [torch.empty_like(indices) for _ in range(world)]
        dist.all_gather(every_values, values.contiguous(), group=group)
        dist.all_gather(every_indices, indices.contiguous(), group=group)
        values, indices = torch.cat(every_values, dim=-1), torch.cat(every_indices, dim=-1)
    best = values.topk(topk, dim=-1)
    return best.values - normaliser, indices.gather(-1, best.indices).to(torch.int64), picked
