"""The losses recomputed on the CPU in float64 from loss_math, straight from the logits layout (no slime helper).

Owns the reference values the adapter tests compare against: per-token log-probs and entropy at rollout_temperature,
the combined PPO loss and its reported metrics, and the top-K reverse KL. Pass float64 CPU logits that require grad
to get the reference gradient from the returned "loss".
"""

from __future__ import annotations

import torch

from openclaw_rl import loss_math

from .training_batch import response_rows


def _cpu(values: list[torch.Tensor]) -> list[torch.Tensor]:
    return [value.detach().cpu().double() for value in values]


def _reducer(batch: dict):
    masks = _cpu(batch["loss_masks"])
    return lambda values: loss_math.sum_of_sample_mean(values, batch["response_lengths"], masks)  # noqa: E731


def reference_logits(logits: torch.Tensor) -> torch.Tensor:
    """A float64 CPU leaf copy of the logits under test."""
    return logits.detach().cpu().double().requires_grad_(True)


def _student_rows(logits: torch.Tensor, batch: dict, layout: str) -> list[torch.Tensor]:
    assert logits.dtype == torch.float64 and logits.device.type == "cpu", "the reference runs on float64 CPU logits"
    return response_rows(logits, batch, layout)


def new_log_probs(logits: torch.Tensor, batch: dict, layout: str, temperature: float) -> torch.Tensor:
    pieces = []
    for rows, tokens, length in zip(_student_rows(logits, batch, layout), batch["unconcat_tokens"], batch["response_lengths"]):
        pieces.append(loss_math.gather_log_probs(rows, tokens.cpu()[-length:].unsqueeze(-1), temperature).squeeze(-1))
    return torch.cat(pieces)


def combine(logits: torch.Tensor, batch: dict, layout: str, args) -> dict[str, torch.Tensor]:
    reduce = _reducer(batch)
    new = new_log_probs(logits, batch, layout, args.rollout_temperature)
    old = torch.cat(_cpu(batch["rollout_log_probs"] if args.use_rollout_logprobs else batch["log_probs"]))
    teacher = torch.cat(_cpu(batch["teacher_log_probs"])) if batch.get("teacher_log_probs") is not None else None
    advantages = loss_math.combined_advantages(torch.cat(_cpu(batch["advantages"])), teacher, old, args.openclaw_rl_w_opd, args.openclaw_rl_w_rl)
    per_token, clipped = loss_math.policy_loss(old - new, advantages, args.eps_clip, args.eps_clip_high)
    tis = {}
    if getattr(args, "use_tis", False):
        # slime's vanilla_tis_function (fork megatron_utils/loss.py:512-533), written out here independently
        rollout = torch.cat(_cpu(batch["rollout_log_probs"]))
        ratio = (old - rollout).exp()
        weights = ratio.clamp(min=args.tis_clip_low, max=args.tis_clip)
        per_token = per_token * weights
        tis = {"tis": reduce(ratio), "tis_clipfrac": reduce((weights != ratio).double()), "tis_abs": reduce((ratio - 1).abs())}
    with torch.no_grad():
        entropy = torch.cat([loss_math.softmax_entropy(rows, args.rollout_temperature) for rows in _student_rows(logits, batch, layout)])
    if args.entropy_coef:
        entropy = torch.cat([loss_math.softmax_entropy(rows, args.rollout_temperature) for rows in _student_rows(logits, batch, layout)])
    result = {"pg_loss": reduce(per_token), "entropy_loss": reduce(entropy), "pg_clipfrac": reduce(clipped), "ppo_kl": reduce(old - new), **tis}
    result["loss"] = result["pg_loss"] - args.entropy_coef * result["entropy_loss"]
    if args.use_kl_loss:
        result["kl_loss"] = reduce(loss_math.approx_kl(new, torch.cat(_cpu(batch["ref_log_probs"])), args.kl_loss_type))
        result["loss"] = result["loss"] + args.kl_loss_coef * result["kl_loss"]
    return result


def topk(logits: torch.Tensor, batch: dict, layout: str, args, k: int) -> dict[str, torch.Tensor]:
    reduce = _reducer(batch)
    students = [
        loss_math.gather_log_probs(rows, indices.cpu()[:, :k], args.rollout_temperature)
        for rows, indices in zip(_student_rows(logits, batch, layout), batch["teacher_topk_indices"])
    ]
    student = torch.cat(students)
    teacher = torch.cat(_cpu(batch["teacher_topk_log_probs"]))[:, :k]
    kl = reduce(loss_math.topk_reverse_kl(student, teacher))
    entropy = reduce(loss_math.topk_entropy(student)) if args.entropy_coef else torch.zeros((), dtype=torch.float64)
    return {"kl_loss": kl, "entropy_loss": entropy, "loss": kl - args.entropy_coef * entropy}
