"""The hybrid's math (method: hybrid, GRPO + top-K OPD over several hint candidates) on plain per-sample tensors.

Owns: the overlap O[c, t] = |S^q_t ∩ S^p_{t,c}| between the old student's top-K and each candidate teacher's, the
hint choice k*(t) (sequence_optimal, token_optimal, shortest), the subset S_t (student, teacher, overlap) and the
top-K OPD surrogate summed over S_t with the full-vocabulary PPO ratio, tensor-parallel. Ignores where the rows come
from (slime_teacher.py fills them, hybrid_rows.py carries them) and slime's reductions.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from . import loss_math

SELECTIONS = ("sequence_optimal", "token_optimal", "shortest")
SUBSETS = ("student", "teacher", "overlap")
# the log-ratio is clamped before exp() (as the reference, against exp(huge) on tail tokens)
PPO_KL_CLAMP = 20.0


@dataclass(frozen=True)
class SampleRows:
    """One sample's rows, per response token t (R tokens), for C candidates and top-K width K.

    student_indices/student_log_probs: S^q_t, the old policy's top-K ids and its log-probs there.
    teacher_indices/teacher_log_probs: S^p_{t,c}, each candidate teacher's own top-K ids and log-probs [C, R, K].
    teacher_at_student: each candidate teacher's log-probs at S^q_t [C, R, K] (subset student).
    student_at_teacher: the old policy's log-probs at S^p_{t,c} [C, R, K] (subset teacher; None otherwise).
    """

    student_indices: torch.Tensor
    student_log_probs: torch.Tensor
    teacher_indices: torch.Tensor
    teacher_log_probs: torch.Tensor
    teacher_at_student: torch.Tensor | None = None
    student_at_teacher: torch.Tensor | None = None

    def to(self, device) -> "SampleRows":
        move = lambda value, dtype: None if value is None else value.to(device=device, dtype=dtype)  # noqa: E731
        return SampleRows(
            move(self.student_indices, torch.long), move(self.student_log_probs, torch.float32),
            move(self.teacher_indices, torch.long), move(self.teacher_log_probs, torch.float32),
            move(self.teacher_at_student, torch.float32), move(self.student_at_teacher, torch.float32),
        )


def overlap_counts(student_indices: torch.Tensor, teacher_indices: torch.Tensor) -> torch.Tensor:
    """O[c, t] = |S^q_t ∩ S^p_{t,c}|: student [R, Kq], teacher [C, R, Kp] -> [C, R] int64."""
    same = student_indices.unsqueeze(0).unsqueeze(-1) == teacher_indices.unsqueeze(-2)
    return same.any(dim=-1).sum(dim=-1).to(torch.long)


def chosen_candidate(overlap: torch.Tensor | None, selection: str, length: int, device) -> torch.Tensor:
    """k*(t) per response token [R]: 0 (shortest, or one candidate), argmax_c O[c, t] (token_optimal), or
    argmax_c Σ_t O[c, t] for every token (sequence_optimal; one turn is one step). Ties go to the shorter hint."""
    if selection not in SELECTIONS:
        raise ValueError(f"unknown hybrid selection {selection!r} (one of {', '.join(SELECTIONS)})")
    if selection == "shortest" or overlap is None or overlap.shape[0] == 1:
        return torch.zeros(length, dtype=torch.long, device=device)
    if selection == "token_optimal":
        return overlap.argmax(dim=0)
    best = int(overlap.sum(dim=-1).argmax().item())
    return torch.full((length,), best, dtype=torch.long, device=device)


def at_candidate(values: torch.Tensor, chosen: torch.Tensor) -> torch.Tensor:
    """values[k*(t), t, ...] per token: [C, R, *] -> [R, *]."""
    index = chosen.view((1, -1) + (1,) * (values.dim() - 2)).expand((1,) + tuple(values.shape[1:]))
    return values.gather(0, index).squeeze(0)


class _SumOverRanks(torch.autograd.Function):
    """all_reduce(SUM) across the tensor-parallel group whose backward is the identity: every rank computes the same
    loss from the summed value, so each rank's part gets the loss's gradient as it is (Megatron's vocab-parallel
    cross entropy does the same)."""

    @staticmethod
    def forward(ctx, value, group):
        import torch.distributed as dist

        value = value.clone()
        dist.all_reduce(value, op=dist.ReduceOp.SUM, group=group)
        return value

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def _tensor_parallel(group) -> tuple[int, int]:
    import torch.distributed as dist

    if group is None or not (dist.is_available() and dist.is_initialized()):
        return 1, 0
    return dist.get_world_size(group), dist.get_rank(group)


def vocab_parallel_log_probs_at(rows: torch.Tensor, indices: torch.Tensor, group=None) -> torch.Tensor:
    """log softmax(rows)[indices] over the whole vocabulary, with gradient into rows, when each tensor-parallel rank
    holds rows [R, V/tp] for ids [rank·V/tp, (rank+1)·V/tp) and indices [R, K] are global ids. float32."""
    import torch.distributed as dist

    world, rank = _tensor_parallel(group)
    work = rows.float()
    with torch.no_grad():
        peak = work.max(dim=-1, keepdim=True).values
        if world > 1:
            dist.all_reduce(peak, op=dist.ReduceOp.MAX, group=group)
    total = torch.exp(work - peak).sum(dim=-1, keepdim=True)
    width = rows.shape[-1]
    low = rank * width
    inside = (indices >= low) & (indices < low + width)
    local = (indices - low).clamp(min=0, max=width - 1)
    picked = torch.where(inside, work.gather(-1, local), torch.zeros((), dtype=work.dtype, device=work.device))
    if world > 1:
        total = _SumOverRanks.apply(total, group)
        picked = _SumOverRanks.apply(picked, group)
    return picked - (peak + torch.log(total.clamp_min(1e-30)))


def _masked_softmax(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """softmax of values over the True entries of each row; 0 elsewhere and on rows with none."""
    masked = torch.where(mask, values, torch.full((), float("-inf"), dtype=values.dtype, device=values.device))
    peak = masked.max(dim=-1, keepdim=True).values
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
    exps = torch.where(mask, torch.exp(masked - peak), torch.zeros_like(values))
    normaliser = peak + torch.log(exps.sum(dim=-1, keepdim=True).clamp_min(1e-30))
    return torch.where(mask, torch.exp(values - normaliser), torch.zeros_like(values))


@dataclass(frozen=True)
class SubsetTerms:
    """What one sample contributes per response token [R]."""

    loss: torch.Tensor  # Σ_{v∈S_t} L_v
    clipped: torch.Tensor  # share of S_t where the clipped term won
    gap: torch.Tensor  # Σ_v w_v |diff_v|
    size: torch.Tensor  # |S_t|
    overlap: torch.Tensor  # O[k*(t), t] (0 under shortest)
    chosen: torch.Tensor  # k*(t)


def sample_terms(rows: torch.Tensor, sample: SampleRows, selection: str, subset: str, diff_clip: float | None, eps_clip: float, eps_clip_high: float, group=None) -> SubsetTerms:
    """The OPD terms of one sample from its current logits rows [R, V/tp] (divided by the temperature)."""
    if subset not in SUBSETS:
        raise ValueError(f"unknown hybrid subset {subset!r} (one of {', '.join(SUBSETS)})")
    length, device = rows.shape[0], rows.device
    student_indices, student_old = sample.student_indices, sample.student_log_probs
    overlap = None if selection == "shortest" else overlap_counts(student_indices, sample.teacher_indices)
    chosen = chosen_candidate(overlap, selection, length, device)
    if subset == "student":
        if sample.teacher_at_student is None:
            raise ValueError("subset student needs each candidate teacher's log-probs at the student's top-K")
        indices, old, teacher = student_indices, student_old, at_candidate(sample.teacher_at_student, chosen)
        mask = torch.ones_like(indices, dtype=torch.bool)
    elif subset == "teacher":
        if sample.student_at_teacher is None:
            raise ValueError("subset teacher needs the old policy's log-probs at each candidate teacher's top-K")
        indices = at_candidate(sample.teacher_indices, chosen)
        old, teacher = at_candidate(sample.student_at_teacher, chosen), at_candidate(sample.teacher_log_probs, chosen)
        mask = torch.ones_like(indices, dtype=torch.bool)
    else:
        indices, old = student_indices, student_old
        chosen_indices, chosen_teacher = at_candidate(sample.teacher_indices, chosen), at_candidate(sample.teacher_log_probs, chosen)
        same = indices.unsqueeze(-1) == chosen_indices.unsqueeze(-2)  # [R, Kq, Kp], at most one True per (t, v)
        mask = same.any(dim=-1)
        teacher = (same.float() * chosen_teacher.unsqueeze(-2)).sum(dim=-1)
    valid = mask.any(dim=-1).float()
    mask_f = mask.float()
    current = vocab_parallel_log_probs_at(rows, indices, group)
    weights = _masked_softmax(old, mask).detach()
    diff = (teacher - old).detach()
    if diff_clip is not None:
        diff = diff.clamp(min=-diff_clip, max=diff_clip)
    advantage = (diff * weights).detach()
    ppo_kl = (old - current).clamp(min=-PPO_KL_CLAMP, max=PPO_KL_CLAMP)
    loss, clipped = loss_math.policy_loss(ppo_kl, advantage, eps_clip, eps_clip_high)
    picked = overlap[chosen, torch.arange(length, device=device)].float() if overlap is not None else torch.zeros(length, device=device)
    return SubsetTerms(
        loss=(loss * mask_f).sum(dim=-1) * valid,
        clipped=(clipped * mask_f).sum(dim=-1) / mask_f.sum(dim=-1).clamp(min=1.0) * valid,
        gap=(diff.abs() * weights).sum(dim=-1) * valid,
        size=mask_f.sum(dim=-1) * valid,
        overlap=picked * valid,
        chosen=chosen.float() * valid,
    )
