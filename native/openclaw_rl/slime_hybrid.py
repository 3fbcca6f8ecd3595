"""method: hybrid in slime's Megatron trainer: before slime trains a batch whose samples carry hint candidates
(teacher_carriage.CANDIDATES_KEY), the old policy's top-K rows and each candidate teacher's top-K rows for every
response token are computed here and published for hybrid_loss_function (hybrid_rows.py).

Forwards, all through slime's forward_only with our own function (trainer_teacher.sharded_topk, chunked, across the
tensor-parallel group), at the rollout temperature:
- subset student: the old policy (its top-K S^q), then one teacher forward per candidate (its own top-K, and its
  log-probs at S^q);
- subset overlap: one teacher forward per candidate (its own top-K), the old policy (S^q);
- subset teacher: one teacher forward per candidate (its own top-K), then the old policy (S^q, and its log-probs at
  each candidate's top-K).
Candidate c of a sample with fewer candidates is its own candidate c mod count (the reference's cyclic padding); only
its own count is kept. The teacher is slime_teacher's (the --ref-load checkpoint swapped into the actor's parameters).

A function given to forward_only sees each sample's tokens but not its index, so the ids to gather at are found by
the sample's tokens (samples with equal tokens take theirs in sample order).
"""

from __future__ import annotations

import importlib
from collections import defaultdict

import torch

from . import hybrid_rows, slime_api, teacher_carriage
from .hybrid_math import SUBSETS, SampleRows
from .slime_teacher import MODEL_MODULE, TrainerTeacherError, data_iterators, forward_data, switched_to, teacher_tag
from .trainer_teacher import sharded_topk

DEFAULT_TOPK = 4


def hybrid_topk(args) -> int:
    value = getattr(args, "openclaw_rl_hybrid_topk", None)
    topk = DEFAULT_TOPK if value is None else int(value)
    if topk < 1:
        raise TrainerTeacherError(f"openclaw_rl_hybrid_topk {value}: the hybrid's top-K needs K >= 1")
    return topk


def fill_hybrid_rows(actor, rollout_data: dict) -> int:
    """Takes the hint candidates out of rollout_data, computes every sample's rows and publishes them; returns how many
    samples got rows (0: no candidates, or a pipeline stage other than the last)."""
    candidates = teacher_carriage.take_candidates(rollout_data)
    if candidates is None:
        return 0
    args = actor.args
    subset = getattr(args, "openclaw_rl_hybrid_subset", None) or "student"
    if subset not in SUBSETS:
        raise TrainerTeacherError(f"openclaw_rl_hybrid_subset {subset!r}: use one of {', '.join(SUBSETS)}")
    topk = hybrid_topk(args)
    response_lengths = [int(length) for length in rollout_data["response_lengths"]]
    for index, (sample_candidates, length) in enumerate(zip(candidates, response_lengths, strict=True)):
        for number, ids in enumerate(sample_candidates):
            if int(ids.numel()) <= length:
                raise TrainerTeacherError(f"openclaw-rl: sample {index}'s hint candidate {number} ({ids.numel()} ids) holds no prompt before its {length}-token response")
    student_tokens = [torch.as_tensor(tokens) for tokens in rollout_data["tokens"]]
    hybrid_rows.clear()
    if subset == "student":
        student = _forward(actor, _student_tag(actor), forward_data(rollout_data, student_tokens), rollout_data, topk, None)
        if student is None:
            return 0
        teachers = _teacher_forwards(actor, rollout_data, candidates, topk, at=student["indices"])
    else:
        teachers = _teacher_forwards(actor, rollout_data, candidates, topk, at=None)
        if teachers is None:
            return 0
        at = [torch.cat([teachers[c]["indices"][i] for c in range(len(candidates[i]))], dim=-1) for i in range(len(candidates))] if subset == "teacher" else None
        student = _forward(actor, _student_tag(actor), forward_data(rollout_data, student_tokens), rollout_data, topk, at)
    if student is None or teachers is None:
        return 0
    rows = []
    for i, sample_candidates in enumerate(candidates):
        count = len(sample_candidates)
        stack = lambda name: torch.stack([teachers[c][name][i] for c in range(count)])  # noqa: E731
        at_teacher = None
        if subset == "teacher":
            at_teacher = student["at"][i].reshape(student["at"][i].shape[0], count, topk).permute(1, 0, 2).contiguous()
        rows.append(SampleRows(
            student_indices=student["indices"][i], student_log_probs=student["log_probs"][i],
            teacher_indices=stack("indices"), teacher_log_probs=stack("log_probs"),
            teacher_at_student=stack("at") if subset == "student" else None, student_at_teacher=at_teacher,
        ))
    hybrid_rows.publish(student_tokens, rows)
    return len(rows)


def _student_tag(actor) -> str:
    # the old policy, as slime takes its log-probs: its old_actor copy with --keep-old-actor, else the actor
    return "old_actor" if getattr(actor.args, "keep_old_actor", False) else "actor"


def _teacher_forwards(actor, rollout_data: dict, candidates: list, topk: int, at) -> list[dict] | None:
    tag = teacher_tag(actor)
    results = []
    for c in range(max(len(sample) for sample in candidates)):
        tokens = [sample[c % len(sample)] for sample in candidates]
        result = _forward(actor, tag, forward_data(rollout_data, tokens), rollout_data, topk, at)
        if result is None:
            return None
        results.append(result)
    return results


def _forward(actor, tag: str, data: dict, rollout_data: dict, topk: int, at: list[torch.Tensor] | None) -> dict | None:
    """One forward of the weights under tag over data's tokens: per sample (in sample order) {"indices", "log_probs"}
    of the top-K rows and, with at (global ids per sample), {"at"}: the log-probs there. None off the last stage."""
    forward_only = importlib.import_module(MODEL_MODULE).forward_only
    helpers = slime_api.bind_slime_api()
    from megatron.core import mpu

    group = mpu.get_tensor_model_parallel_group()
    pending = defaultdict(list)
    if at is not None:
        for tokens, ids in zip(data["tokens"], at, strict=True):
            pending[tuple(tokens.tolist())].append(ids)

    def rows_of(logits, *, args, unconcat_tokens, total_lengths, response_lengths, with_entropy=False, max_seq_lens=None, **_rest):
        batch = {"unconcat_tokens": unconcat_tokens, "total_lengths": total_lengths, "response_lengths": response_lengths, "max_seq_lens": max_seq_lens}
        values = {"topk_log_probs": [], "topk_indices": []}
        if at is not None:
            values["at_log_probs"] = []
        for chunk, _tokens in helpers.response_logits(logits, args, batch):
            sample_tokens = unconcat_tokens[len(values["topk_indices"])]
            if at is None:
                top_values, top_indices = sharded_topk(chunk, topk, group)
            else:
                ids = pending[tuple(sample_tokens.tolist())].pop(0).to(chunk.device)
                top_values, top_indices, picked = sharded_topk(chunk, topk, group, at=ids)
                values["at_log_probs"].append(picked)
            values["topk_log_probs"].append(top_values)
            values["topk_indices"].append(top_indices)
        return torch.empty((0,), device=logits.device), values

    with switched_to(actor, tag):
        iterators, num_microbatches = data_iterators(actor, data, rollout_data)
        with torch.no_grad():
            result = forward_only(rows_of, actor.args, actor.model, iterators, num_microbatches, store_prefix="openclaw_rl_hybrid_")
    if "openclaw_rl_hybrid_topk_indices" not in result:
        return None
    rows = {"indices": [v.long().cpu() for v in result["openclaw_rl_hybrid_topk_indices"]], "log_probs": [v.float().cpu() for v in result["openclaw_rl_hybrid_topk_log_probs"]]}
    if at is not None:
        rows["at"] = [v.float().cpu() for v in result["openclaw_rl_hybrid_at_log_probs"]]
    return rows
