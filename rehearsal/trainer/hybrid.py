"""method: hybrid on the stand-in policy: the top-K rows of the old policy and of each hint candidate's teacher, per
response token, on the stand-in's small model, and the hybrid loss through native's own math (openclaw_rl.hybrid_math:
overlap, k*, subset, the top-K OPD surrogate; loss_math: GRPO's PPO term and slime's reduction).

The stand-in model per response token: on a style decision, the style softmax over the three style ids with a floor
share FLOOR_SHARE spread geometrically over filler ids (so a top-K wider than three has finite entries, as a real model's
vocabulary tail); anywhere else, the token's fixed log-prob and the rest spread geometrically over filler ids (the
policy server's top-K row, rehearsal/model/responder.ts topRow), the same in the policy and the teacher. Each
candidate's teacher differs from the policy only in its style opinion, which a `teacher_styles(candidate ids, decision
positions)` callable gives (the judge stand-in's teacher: the policy's base, uniform, reading the candidate's hint).
Knows no HTTP.
"""

from __future__ import annotations

import math

import torch
from openclaw_rl import hybrid_math, loss_math

FLOOR_SHARE = 1e-6  # a style decision's probability outside the three styles (topRow's own floor)
VOCAB_SIZE = 151_643


def filler_ids(token: int, count: int, taken) -> list[int]:
    """count distinct ids, deterministic in token, none of them in taken (the row's own ids)."""
    found, salt = [], 0
    while len(found) < count:
        salt += 1
        candidate = (token * 7919 + salt * 104_729) % VOCAB_SIZE
        if candidate not in taken and candidate not in found:
            found.append(candidate)
    return found


class PositionRow:
    """One response token's distribution: explicit ids with their log-probs (some a function of the style logits),
    and the mass left over (never an id of a row)."""

    def __init__(self, entries: dict[int, torch.Tensor], rest: float):
        self.entries = entries
        self.rest = rest

    def topk(self, k: int) -> tuple[list[int], list[float]]:
        ranked = sorted(self.entries.items(), key=lambda item: (-float(item[1]), item[0]))[:k]
        return [token for token, _ in ranked], [float(value) for _, value in ranked]

    def at(self, ids: list[int]) -> list[float]:
        return [float(self.entries[token]) for token in ids]


def decision_row(style_log_probs: torch.Tensor, style_ids: list[int], width: int) -> PositionRow:
    entries = {token: math.log1p(-FLOOR_SHARE) + style_log_probs[index] for index, token in enumerate(style_ids)}
    for rank, token in enumerate(filler_ids(style_ids[0], width, set(style_ids))):
        entries[token] = torch.tensor(math.log(FLOOR_SHARE * 0.5 ** (rank + 1)))
    return PositionRow(entries, FLOOR_SHARE * 0.5 ** width)


def token_row(token: int, log_prob: float, width: int) -> PositionRow:
    rest = max(1.0 - math.exp(log_prob), 1e-6)
    entries = {token: torch.tensor(float(log_prob))}
    for rank, filler in enumerate(filler_ids(token, width, {token})):
        entries[filler] = torch.tensor(math.log(rest * 0.5 ** (rank + 1)))
    return PositionRow(entries, rest * 0.5 ** width)


def logits_rows(rows: list[PositionRow]) -> tuple[torch.Tensor, dict[int, int]]:
    """[R, V] logits over the sample's own ids plus one column for the rest, whose log-softmax at every id is its
    log-prob (the rows' masses sum to one), and the id -> column table."""
    ids = sorted({token for row in rows for token in row.entries})
    column = {token: index for index, token in enumerate(ids)}
    table = []
    for row in rows:
        values = [torch.tensor(float("-inf"))] * (len(ids) + 1)
        for token, value in row.entries.items():
            values[column[token]] = torch.as_tensor(value, dtype=torch.float32)
        values[-1] = torch.tensor(math.log(row.rest))
        table.append(torch.stack([torch.as_tensor(value, dtype=torch.float32) for value in values]))
    return torch.stack(table), column


class HybridTerms:
    """One sample's rows under the current style logits (with gradient) and its frozen SampleRows (old policy and every
    candidate's teacher), in the column numbering of logits_rows."""

    def __init__(self, sample, candidates, style_ids, marker_ids, log_probs, teacher_styles, topk: int, subset: str):
        from learner import style_positions

        length = int(sample.response_length)
        prompt_length = len(sample.tokens) - length
        response = list(sample.tokens)[prompt_length:]
        rollout = [float(value) for value in sample.rollout_log_probs][-length:]
        decisions = {position - prompt_length: style for position, style in style_positions(sample.tokens, style_ids, marker_ids) if position >= prompt_length}
        width = topk + len(style_ids)
        current = [decision_row(log_probs, style_ids, width) if t in decisions else token_row(response[t], rollout[t], width) for t in range(length)]
        old = [decision_row(log_probs.detach(), style_ids, width) if t in decisions else current[t] for t in range(length)]
        teachers = []
        for ids in candidates:
            ids = [int(token) for token in ids]
            offsets = sorted(decisions)
            opinions = teacher_styles(ids, [len(ids) - length + t for t in offsets]) if offsets else []
            by_offset = dict(zip(offsets, opinions))
            teachers.append([decision_row(torch.tensor(by_offset[t], dtype=torch.float32), style_ids, width) if t in decisions else old[t] for t in range(length)])
        self.logits, column = logits_rows(current)
        student = [row.topk(topk) for row in old]
        student_ids = [ids for ids, _ in student]
        teacher_top = [[row.topk(topk) for row in rows] for rows in teachers]
        local = lambda table: torch.tensor([[column[token] for token in ids] for ids in table], dtype=torch.long)  # noqa: E731
        self.rows = hybrid_math.SampleRows(
            student_indices=local(student_ids),
            student_log_probs=torch.tensor([values for _, values in student], dtype=torch.float32),
            teacher_indices=torch.stack([local([ids for ids, _ in top]) for top in teacher_top]),
            teacher_log_probs=torch.tensor([[values for _, values in top] for top in teacher_top], dtype=torch.float32),
            teacher_at_student=torch.tensor([[row.at(ids) for row, ids in zip(rows, student_ids)] for rows in teachers], dtype=torch.float32),
            student_at_teacher=torch.tensor([[row.at(ids) for row, (ids, _) in zip(old, top)] for top in teacher_top], dtype=torch.float32) if subset == "teacher" else None,
        )


class HybridLoss:
    """L = w_rl·GRPO + w_opd·top-K OPD over the chosen candidate, each reduced like slime (sum of sample means over
    the batch size), with native's per-step hybrid metrics, reported as losses.hybrid_loss_function reports them (a term
    weighted 0 is not computed: GRPO's numbers are then 0, OPD's absent)."""

    def __init__(self, selection="sequence_optimal", subset="student", topk=4, clip=1.0, w_rl=1.0, w_opd=1.0):
        if selection not in hybrid_math.SELECTIONS or subset not in hybrid_math.SUBSETS or topk < 1:
            raise ValueError(f"hybrid selection {selection!r} / subset {subset!r} / topk {topk}: see openclaw_rl.hybrid_math")
        self.selection, self.subset, self.topk = selection, subset, topk
        self.clip = clip if clip > 0 else None
        self.w_rl, self.w_opd = w_rl, w_opd

    def __call__(self, samples, candidates, new_log_probs, old_log_probs, rewards, terms_of, eps_clip, eps_clip_high):
        """new/old_log_probs: per sample [R] (the GRPO view); terms_of(sample, candidates): HybridTerms."""
        lengths = [int(sample.response_length) for sample in samples]
        masks = [torch.as_tensor(sample.loss_mask if sample.loss_mask is not None else [1] * n, dtype=torch.float32) for sample, n in zip(samples, lengths)]
        reduce = lambda values: loss_math.sum_of_sample_mean(values, lengths, masks) / len(samples)  # noqa: E731
        zero = torch.zeros(())
        metrics = {"grpo_pg_loss": zero, "grpo_pg_clipfrac": zero, "ppo_kl_sampled": zero}
        if self.w_rl != 0.0:
            new, old = torch.cat(new_log_probs), torch.cat(old_log_probs)
            advantages = torch.cat([torch.full((n,), reward) for n, reward in zip(lengths, rewards)])
            ppo_kl = (old - new).clamp(min=-hybrid_math.PPO_KL_CLAMP, max=hybrid_math.PPO_KL_CLAMP)
            pg, pg_clipped = loss_math.policy_loss(ppo_kl, advantages, eps_clip, eps_clip_high)
            metrics.update(grpo_pg_loss=reduce(pg), grpo_pg_clipfrac=reduce(pg_clipped), ppo_kl_sampled=reduce(ppo_kl))
        opd = zero
        if self.w_opd != 0.0:
            parts = []
            for sample, sample_candidates in zip(samples, candidates):
                terms = terms_of(sample, sample_candidates)
                parts.append(hybrid_math.sample_terms(terms.logits, terms.rows, self.selection, self.subset, self.clip, eps_clip, eps_clip_high))
            joined = {name: torch.cat([getattr(part, name) for part in parts]) for name in ("loss", "clipped", "gap", "size", "overlap", "chosen")}
            opd = reduce(joined["loss"])
            metrics.update(
                opd_pg_clipfrac=reduce(joined["clipped"]), opd_teacher_student_logp_topk_abs_mean=reduce(joined["gap"]),
                opd_subset_size=reduce(joined["size"]), sel_overlap_at_k_star=reduce(joined["overlap"]), sel_k_star_mean=reduce(joined["chosen"]),
            )
        loss = self.w_rl * metrics["grpo_pg_loss"] + self.w_opd * opd
        metrics.update(loss=loss, opd_loss=opd)
        return loss, {name: round(float(value.detach()), 6) for name, value in metrics.items()}


def hint_candidates(sample) -> list[list[int]]:
    """A hybrid sample's hint candidates as the native rollout function carried them (teacher_carriage.py)."""
    from openclaw_rl import teacher_carriage

    candidates = (sample.multimodal_train_inputs or {}).get(teacher_carriage.CANDIDATES_KEY)
    if not candidates:
        raise ValueError(f"sample {getattr(sample, 'index', '?')} of a hybrid batch carries no hint candidates")
    return [torch.as_tensor(ids).tolist() for ids in candidates]


def hybrid_step(learner, samples, teacher_styles, hybrid: HybridLoss) -> dict:
    """One optimizer step of the learner's logits on a hybrid batch; returns the loss, native's hybrid metrics, the
    styles seen and the candidates per turn. Old log-probs are the current weights' (slime recomputes them)."""
    samples = [sample for sample in samples if int(sample.response_length) > 0]
    log_probs = torch.log_softmax(learner.logits, dim=0)
    approach_log_probs = torch.log_softmax(learner.approach_logits, dim=0)
    seen = {name: 0 for name in learner.choice_names()}
    if not samples:
        return {"loss": 0.0, "styles": seen}
    candidates = [hint_candidates(sample) for sample in samples]
    new = [learner._new_log_probs(sample, log_probs, approach_log_probs, seen) for sample in samples]
    old = [values.detach() for values in new]
    rewards = [learner_reward(sample) for sample in samples]
    terms_of = lambda sample, ids: HybridTerms(sample, ids, learner.style_token_ids, learner.marker_ids, log_probs, teacher_styles, hybrid.topk, hybrid.subset)  # noqa: E731
    loss, metrics = hybrid(samples, candidates, new, old, rewards, terms_of, learner.eps_clip, learner.eps_clip_high)
    result = {"loss": metrics["loss"], "styles": seen, "hybrid": metrics, "candidates_per_turn": round(sum(map(len, candidates)) / len(candidates), 4)}
    if not loss.requires_grad:
        return {**result, "skipped": "no style decision in this batch"}
    learner.optimizer.zero_grad()
    loss.backward()
    learner.optimizer.step()
    return result


def learner_reward(sample) -> float:
    from learner import sample_reward

    return sample_reward(sample)
