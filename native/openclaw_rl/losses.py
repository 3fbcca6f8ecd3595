"""slime custom losses (--loss-type custom_loss --custom-loss-function-path openclaw_rl.losses.<name>).

Adapters only: they pull tensors out of slime's micro-batch, call the math in loss_math.py and report 0-d
tensors. Weights and K come from args (slime's --custom-config-path YAML sets openclaw_rl_w_rl,
openclaw_rl_w_opd, openclaw_rl_topk), never from the environment. slime's helpers are bound by slime_api when this
module is imported (slime imports it through load_function), so a slime with unknown helper signatures fails here,
naming the helper, before any tensor is touched. policy_loss_function is slime's own policy loss, called as it is,
with the policy's true entropy added (the fork's own entropy_loss is wrong there). Every loss reports that entropy as
openclaw_rl_entropy.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Callable

import torch

from . import loss_math
from .slime_api import bind_slime_api

SLIME = bind_slime_api()
# The policy's entropy as openclaw_rl computed it (mean per sample, like entropy_loss): the orchestrator shows it as
# the run's entropy, labelled openclaw_rl, in place of slime's entropy_loss (orchestrator/bridge/trainer-metrics-event.ts)
TRUE_ENTROPY_KEY = "openclaw_rl_entropy"


def _weight(args: Namespace, name: str) -> float:
    value = getattr(args, name, None)
    return 1.0 if value is None else float(value)


def _topk(args: Namespace) -> int:
    value = getattr(args, "openclaw_rl_topk", None) or getattr(args, "distill_topk", None) or 0
    if int(value) < 1:
        raise ValueError("top-K distillation needs K >= 1: set openclaw_rl_topk in the --custom-config-path YAML (or --distill-topk)")
    return int(value)


def _response_log_probs(args, batch, logits, with_entropy: bool):
    return SLIME.response_log_probs(logits, args, batch, with_entropy)


def _metric_entropy(args, batch, logits) -> list[torch.Tensor]:
    """Entropy per response token for reporting only (no gradient).

    Grad mode stays on, on detached logits (so no graph is recorded): the fork's calculate_log_probs_and_entropy
    clones each chunk only while grad is enabled, and Megatron's fused cross entropy behind it turns float32 logits
    into their softmax in place, so under no_grad the entropy would be taken of that softmax (and the model's logits
    overwritten).
    """
    with torch.enable_grad():
        entropy = _response_log_probs(args, batch, logits.detach(), with_entropy=True)["entropy"]
    return [values.detach() for values in entropy]


def _true_entropy(args, batch, logits, sum_of_sample_mean) -> torch.Tensor:
    return sum_of_sample_mean(torch.cat(_metric_entropy(args, batch, logits), dim=0)).clone().detach()


def policy_loss_function(
    args: Namespace, batch: dict, logits: torch.Tensor, sum_of_sample_mean: Callable[[torch.Tensor], torch.Tensor]
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """slime's own policy loss (binary and token-level OPD on the fork), unchanged, with the policy's true entropy
    beside its numbers.

    Without an entropy term the fork's policy_loss_function takes its monitoring entropy under no_grad, after
    Megatron's fused cross entropy has already turned each float32 chunk into its softmax in place, so its entropy_loss
    is the entropy of that softmax (4.73 for a true 1.94); the fake fork's loss.py mirrors those lines, with their
    commit. Ours is taken first, on the untouched logits, and reported as openclaw_rl_entropy; slime's loss, gradient
    and numbers stay as slime computed them. With an entropy term slime
    takes the entropy with grad, which is right, and nothing is added.
    """
    slime_policy_loss = SLIME.require_policy_loss()
    entropy_coef = float(getattr(args, "entropy_coef", 0.0) or 0.0)
    true_entropy = _true_entropy(args, batch, logits, sum_of_sample_mean) if entropy_coef == 0.0 else None
    loss, reported = slime_policy_loss(args, batch, logits, sum_of_sample_mean)
    if true_entropy is not None:
        reported = {**reported, TRUE_ENTROPY_KEY: true_entropy}
    return loss, reported


def combine_loss_function(
    args: Namespace, batch: dict, logits: torch.Tensor, sum_of_sample_mean: Callable[[torch.Tensor], torch.Tensor]
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """PPO clipped loss with advantage w_opd·(teacher − old) + w_rl·(reward advantage)."""
    if batch.get("advantages") is None:
        raise ValueError("combine loss needs slime's advantages: do not pass --disable-compute-advantages-and-returns")
    reward_advantages = torch.cat(batch["advantages"], dim=0)
    old_list = batch["rollout_log_probs"] if getattr(args, "use_rollout_logprobs", False) else batch["log_probs"]
    old_log_probs = torch.cat(old_list, dim=0)
    entropy_coef = float(getattr(args, "entropy_coef", 0.0) or 0.0)

    result = _response_log_probs(args, batch, logits, with_entropy=entropy_coef != 0.0)
    new_log_probs = torch.cat(result["log_probs"], dim=0)
    teacher_list = batch.get("teacher_log_probs")
    teacher = torch.cat([t.to(new_log_probs.device) for t in teacher_list], dim=0) if teacher_list is not None else None
    advantages = loss_math.combined_advantages(
        reward_advantages, teacher, old_log_probs.to(new_log_probs.device), _weight(args, "openclaw_rl_w_opd"), _weight(args, "openclaw_rl_w_rl")
    )

    ppo_kl = old_log_probs.to(new_log_probs.device) - new_log_probs
    pg, clipped = loss_math.policy_loss(ppo_kl, advantages, args.eps_clip, args.eps_clip_high)
    tis_metrics = {}
    if getattr(args, "use_tis", False):
        # slime's --use-tis, as its policy loss applies it: each token's loss weighed by the truncated ratio of the
        # trainer's to the engine's probability of the sampled token (training.mismatch_correction: tis)
        if not batch.get("rollout_log_probs"):
            raise ValueError("--use-tis needs the batch's rollout_log_probs")
        rollout_for_tis = torch.cat(batch["rollout_log_probs"], dim=0).to(new_log_probs.device)
        weights, ratio, tis_clipped = loss_math.truncated_importance_weights(old_log_probs.to(new_log_probs.device), rollout_for_tis, args.tis_clip_low, args.tis_clip)
        pg = pg * weights
        tis_metrics = {"tis": sum_of_sample_mean(ratio), "tis_clipfrac": sum_of_sample_mean(tis_clipped), "tis_abs": sum_of_sample_mean((ratio - 1).abs())}
    pg_loss = sum_of_sample_mean(pg)
    if entropy_coef != 0.0:
        entropy_loss = sum_of_sample_mean(torch.cat(result["entropy"], dim=0))
    else:
        entropy_loss = sum_of_sample_mean(torch.cat(_metric_entropy(args, batch, logits), dim=0))
    loss = pg_loss - entropy_coef * entropy_loss

    reported = {"pg_loss": pg_loss, "entropy_loss": entropy_loss, "pg_clipfrac": sum_of_sample_mean(clipped), "ppo_kl": sum_of_sample_mean(ppo_kl), **tis_metrics}
    reported[TRUE_ENTROPY_KEY] = entropy_loss  # taken with grad, or by _metric_entropy: the policy's true entropy either way
    if getattr(args, "use_kl_loss", False) and batch.get("ref_log_probs") is not None:
        ref = torch.cat(batch["ref_log_probs"], dim=0).to(new_log_probs.device)
        kl_loss = sum_of_sample_mean(loss_math.approx_kl(new_log_probs, ref, args.kl_loss_type))
        loss = loss + args.kl_loss_coef * kl_loss
        reported["kl_loss"] = kl_loss
    if batch.get("rollout_log_probs"):
        rollout = torch.cat(batch["rollout_log_probs"], dim=0).to(new_log_probs.device)
        reported["train_rollout_logprob_abs_diff"] = sum_of_sample_mean((old_log_probs.to(new_log_probs.device) - rollout).abs())
    if new_log_probs.numel() == 0:
        loss = loss + 0 * logits.sum()  # keep the graph connected for empty micro-batches
    reported["loss"] = loss
    return loss, {name: value.clone().detach() for name, value in reported.items()}


def topk_distillation_loss_function(
    args: Namespace, batch: dict, logits: torch.Tensor, sum_of_sample_mean: Callable[[torch.Tensor], torch.Tensor]
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Reverse KL(student || teacher) over the teacher's top-K tokens plus one tail bin."""
    from megatron.core import mpu

    compute_log_probs = SLIME.require_compute_log_probs()
    k = _topk(args)
    teacher_log_probs, teacher_indices = batch.get("teacher_topk_log_probs"), batch.get("teacher_topk_indices")
    if teacher_log_probs is None or teacher_indices is None:
        raise ValueError("top-K distillation loss got a batch without teacher_topk_log_probs/indices (is opd.topk > 0 in the recipe?)")
    tp_group = mpu.get_tensor_model_parallel_group()
    students, teachers = [], []
    responses = SLIME.response_logits(logits, args, batch)
    for index, (logits_chunk, _tokens) in enumerate(responses):
        teacher, indices = teacher_log_probs[index], teacher_indices[index]
        if teacher.shape[-1] < k:
            raise ValueError(f"teacher top-K has {teacher.shape[-1]} entries per token, the loss asks for K={k}")
        indices = indices[:, :k].to(logits_chunk.device)
        # compute_log_probs is Megatron's vocab-parallel (TP-aware) fused cross entropy, which turns float32 logits into
        # their softmax in place: every column gets its own copy, with or without grad
        columns = [compute_log_probs(logits_chunk.clone(), indices[:, column], tp_group).squeeze(-1) for column in range(k)]
        students.append(torch.stack(columns, dim=-1))
        teachers.append(teacher[:, :k].to(logits_chunk.device))
    student_topk = torch.cat(students, dim=0) if students else logits.new_zeros((0, k))
    teacher_topk = torch.cat(teachers, dim=0) if teachers else logits.new_zeros((0, k))

    kl_loss = sum_of_sample_mean(loss_math.topk_reverse_kl(student_topk, teacher_topk))
    loss = kl_loss
    entropy_coef = float(getattr(args, "entropy_coef", 0.0) or 0.0)
    entropy_loss = torch.zeros((), device=logits.device)
    if entropy_coef != 0.0:
        entropy_loss = sum_of_sample_mean(loss_math.topk_entropy(student_topk))
        loss = loss - entropy_coef * entropy_loss
    if student_topk.numel() == 0:
        loss = loss + 0 * logits.sum()
    # entropy_loss is the top-K bins' entropy (0 without an entropy term); the policy's entropy is over the vocabulary
    true_entropy = _true_entropy(args, batch, logits, sum_of_sample_mean)
    return loss, {"loss": loss.clone().detach(), "kl_loss": kl_loss.clone().detach(), "entropy_loss": entropy_loss.clone().detach(), TRUE_ENTROPY_KEY: true_entropy}


def _hybrid_choice(args: Namespace) -> tuple[str, str, float | None]:
    from .hybrid_math import SELECTIONS, SUBSETS

    selection = getattr(args, "openclaw_rl_hybrid_selection", None) or "sequence_optimal"
    subset = getattr(args, "openclaw_rl_hybrid_subset", None) or "student"
    if selection not in SELECTIONS:
        raise ValueError(f"openclaw_rl_hybrid_selection {selection!r}: use one of {', '.join(SELECTIONS)}")
    if subset not in SUBSETS:
        raise ValueError(f"openclaw_rl_hybrid_subset {subset!r}: use one of {', '.join(SUBSETS)}")
    clip = getattr(args, "openclaw_rl_hybrid_clip", None)
    clip = 1.0 if clip is None else float(clip)
    return selection, subset, clip if clip > 0 else None  # 0 (or less) switches the clamp off, as the reference


def hybrid_loss_function(
    args: Namespace, batch: dict, logits: torch.Tensor, sum_of_sample_mean: Callable[[torch.Tensor], torch.Tensor]
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """method: hybrid. w_rl·GRPO (PPO on the reward advantage, log-ratio clamped at ±20) + w_opd·top-K OPD over the
    chosen hint candidate's rows (hybrid_math.sample_terms), each reduced by sum_of_sample_mean. The rows come from the
    trainer-side teacher (hybrid_rows.lookup)."""
    from megatron.core import mpu

    from . import hybrid_math, hybrid_rows

    selection, subset, diff_clip = _hybrid_choice(args)
    w_rl, w_opd = _weight(args, "openclaw_rl_w_rl"), _weight(args, "openclaw_rl_w_opd")
    if getattr(args, "use_rollout_logprobs", False):
        raise ValueError("the hybrid loss needs the trainer's old log-probs: do not pass --use-rollout-logprobs")
    entropy_coef = float(getattr(args, "entropy_coef", 0.0) or 0.0)
    result = _response_log_probs(args, batch, logits, with_entropy=entropy_coef != 0.0)
    new_log_probs = torch.cat(result["log_probs"], dim=0)
    zero = torch.zeros((), device=logits.device, dtype=torch.float32)
    reported = {"grpo_pg_loss": zero, "grpo_pg_clipfrac": zero, "ppo_kl_sampled": zero}
    if w_rl != 0.0:
        old = torch.cat(batch["log_probs"], dim=0).to(new_log_probs.device)
        ppo_kl = (old - new_log_probs).clamp(min=-hybrid_math.PPO_KL_CLAMP, max=hybrid_math.PPO_KL_CLAMP)
        pg, clipped = loss_math.policy_loss(ppo_kl, torch.cat(batch["advantages"], dim=0).to(new_log_probs.device), args.eps_clip, args.eps_clip_high)
        reported.update(grpo_pg_loss=sum_of_sample_mean(pg), grpo_pg_clipfrac=sum_of_sample_mean(clipped), ppo_kl_sampled=sum_of_sample_mean(ppo_kl))
    opd_loss = zero
    if w_opd != 0.0:
        group = mpu.get_tensor_model_parallel_group()
        terms = []
        for chunk, _tokens in SLIME.response_logits(logits, args, batch):
            tokens = batch["unconcat_tokens"][len(terms)]
            rows = hybrid_rows.lookup(tokens).to(chunk.device)
            terms.append(hybrid_math.sample_terms(chunk, rows, selection, subset, diff_clip, args.eps_clip, args.eps_clip_high, group))
        joined = {name: torch.cat([getattr(term, name) for term in terms], dim=0) if terms else zero.new_zeros(0) for name in ("loss", "clipped", "gap", "size", "overlap", "chosen")}
        opd_loss = sum_of_sample_mean(joined["loss"])
        reported.update(
            opd_pg_clipfrac=sum_of_sample_mean(joined["clipped"]),
            opd_teacher_student_logp_topk_abs_mean=sum_of_sample_mean(joined["gap"]),
            opd_subset_size=sum_of_sample_mean(joined["size"]),
            sel_overlap_at_k_star=sum_of_sample_mean(joined["overlap"]),
            sel_k_star_mean=sum_of_sample_mean(joined["chosen"]),
        )
    loss = w_rl * reported["grpo_pg_loss"] + w_opd * opd_loss
    if entropy_coef != 0.0:
        entropy_loss = sum_of_sample_mean(torch.cat(result["entropy"], dim=0))
        loss = loss - entropy_coef * entropy_loss
        reported[TRUE_ENTROPY_KEY] = entropy_loss
    else:
        entropy_loss = zero
        reported[TRUE_ENTROPY_KEY] = _true_entropy(args, batch, logits, sum_of_sample_mean)
    kl_coef = float(getattr(args, "kl_loss_coef", 0.0) or 0.0)
    if getattr(args, "use_kl_loss", False) and batch.get("ref_log_probs") is not None and kl_coef != 0.0:
        ref = torch.cat(batch["ref_log_probs"], dim=0).to(new_log_probs.device)
        reported["kl_loss"] = sum_of_sample_mean(loss_math.approx_kl(new_log_probs, ref, args.kl_loss_type))
        loss = loss + kl_coef * reported["kl_loss"]
    if new_log_probs.numel() == 0:
        loss = loss + 0 * logits.sum()  # keep the graph connected for empty micro-batches
    reported.update(loss=loss, opd_loss=opd_loss, entropy_loss=entropy_loss)
    return loss, {name: value.clone().detach() for name, value in reported.items()}
