"""The hybrid loss written out by hand, token by token and candidate by candidate, in float64 on the CPU, from the
formulas of issue 39 as the reference's code computes them (fixtures/hybrid_reference.json names the lines).

Owns the rows a test publishes (random old policy and candidate teachers over a small vocabulary) and the hand value
of the loss; pass float64 leaf logits to get the hand gradient. Uses no code of openclaw_rl.hybrid_math.
"""

from __future__ import annotations

import math

import torch

from openclaw_rl.hybrid_math import SampleRows

from .training_batch import response_rows

# each candidate teacher's distance from the old policy: the shortest hint (candidate 0) is not the closest
NOISE = (1.5, 0.4, 0.9)


def make_rows(lengths: list[int], candidates: list[int], vocab: int, k: int, temperature: float, seed: int) -> list[SampleRows]:
    """Per sample: the old policy's top-K and, per candidate, a teacher that is the old policy plus noise of its own size
    (so candidates overlap the student's top-K by different amounts)."""
    generator = torch.Generator().manual_seed(seed)
    rows = []
    for length, count in zip(lengths, candidates):
        old = torch.log_softmax(torch.randn(length, vocab, generator=generator, dtype=torch.float64) * 2 / temperature, dim=-1)
        student = old.topk(k, dim=-1)
        teachers = [torch.log_softmax(old + torch.randn(length, vocab, generator=generator, dtype=torch.float64) * NOISE[c % len(NOISE)], dim=-1) for c in range(count)]
        native = [teacher.topk(k, dim=-1) for teacher in teachers]
        rows.append(SampleRows(
            student_indices=student.indices, student_log_probs=student.values.float(),
            teacher_indices=torch.stack([top.indices for top in native]), teacher_log_probs=torch.stack([top.values for top in native]).float(),
            teacher_at_student=torch.stack([teacher.gather(-1, student.indices) for teacher in teachers]).float(),
            student_at_teacher=torch.stack([old.gather(-1, top.indices) for top in native]).float(),
        ))
    return rows


def _choice(sample: SampleRows, selection: str, length: int) -> list[int]:
    count = sample.teacher_indices.shape[0]
    overlap = [[len(set(sample.student_indices[t].tolist()) & set(sample.teacher_indices[c, t].tolist())) for t in range(length)] for c in range(count)]
    if selection == "shortest" or count == 1:
        return [0] * length, overlap
    if selection == "token_optimal":
        return [max(range(count), key=lambda c: (overlap[c][t], -c)) for t in range(length)], overlap
    totals = [sum(row) for row in overlap]
    return [max(range(count), key=lambda c: (totals[c], -c))] * length, overlap


def _token_subset(sample: SampleRows, subset: str, c: int, t: int) -> list[tuple[int, float, float]]:
    """(v, ℓ_old(v), ℓ_T(v)) for v in S_t."""
    student = sample.student_indices[t].tolist()
    if subset == "student":
        return [(v, sample.student_log_probs[t, j].item(), sample.teacher_at_student[c, t, j].item()) for j, v in enumerate(student)]
    teacher = sample.teacher_indices[c, t].tolist()
    if subset == "teacher":
        return [(v, sample.student_at_teacher[c, t, j].item(), sample.teacher_log_probs[c, t, j].item()) for j, v in enumerate(teacher)]
    return [(v, sample.student_log_probs[t, j].item(), sample.teacher_log_probs[c, t, teacher.index(v)].item()) for j, v in enumerate(student) if v in teacher]


def _ppo(log_ratio, advantage: float, eps: float, eps_high: float):
    ratio = torch.exp(log_ratio.clamp(min=-20.0, max=20.0))
    return torch.maximum(-ratio * advantage, -ratio.clamp(1 - eps, 1 + eps_high) * advantage)


def opd_per_token(logits: torch.Tensor, batch: dict, layout: str, rows: list[SampleRows], args) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(L^OPD_t, O[k*(t), t], |S_t|) for every response token of the batch, with gradient into logits."""
    clip = args.openclaw_rl_hybrid_clip if args.openclaw_rl_hybrid_clip > 0 else None
    losses, overlaps, sizes = [], [], []
    for sample_rows, sample in zip(response_rows(logits, batch, layout), rows):
        length = sample_rows.shape[0]
        chosen, overlap = _choice(sample, args.openclaw_rl_hybrid_selection, length)
        for t in range(length):
            current = torch.log_softmax(sample_rows[t] / args.rollout_temperature, dim=-1)
            subset = _token_subset(sample, args.openclaw_rl_hybrid_subset, chosen[t], t)
            peak = max((old for _, old, _ in subset), default=0.0)
            normaliser = sum(math.exp(old - peak) for _, old, _ in subset)
            total = current.new_zeros(())
            for v, old, teacher in subset:
                weight = math.exp(old - peak) / normaliser
                diff = teacher - old if clip is None else min(max(teacher - old, -clip), clip)
                total = total + _ppo(current[v] - old, diff * weight, args.eps_clip, args.eps_clip_high)
            losses.append(total)
            overlaps.append(0.0 if args.openclaw_rl_hybrid_selection == "shortest" or not subset else float(overlap[chosen[t]][t]))
            sizes.append(float(len(subset)))
    return torch.stack(losses), torch.tensor(overlaps, dtype=torch.float64), torch.tensor(sizes, dtype=torch.float64)


def hybrid(logits: torch.Tensor, batch: dict, layout: str, rows: list[SampleRows], args, reduce) -> dict[str, torch.Tensor]:
    """{"grpo_pg_loss", "opd_loss", "sel_overlap_at_k_star", "opd_subset_size", "loss"} by hand."""
    grpo = []
    for sample_rows, tokens, length, old, advantage in zip(response_rows(logits, batch, layout), batch["unconcat_tokens"], batch["response_lengths"], batch["log_probs"], batch["advantages"]):
        for t in range(length):
            current = torch.log_softmax(sample_rows[t] / args.rollout_temperature, dim=-1)[tokens[-length + t].item()]
            grpo.append(_ppo(current - old[t].item(), advantage[t].item(), args.eps_clip, args.eps_clip_high))
    opd, overlap, size = opd_per_token(logits, batch, layout, rows, args)
    result = {"grpo_pg_loss": reduce(torch.stack(grpo)), "opd_loss": reduce(opd), "sel_overlap_at_k_star": reduce(overlap), "opd_subset_size": reduce(size)}
    result["loss"] = args.openclaw_rl_w_rl * result["grpo_pg_loss"] + args.openclaw_rl_w_opd * result["opd_loss"]
    return result
