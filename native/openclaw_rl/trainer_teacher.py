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
