"""Fake of the fork's slime.backends.megatron_utils.loss (Gen-Verse/OpenClaw-RL 0d034dd, loss.py:36, :141).

Owns get_responses and get_log_probs_and_entropy with the fork's signatures (max_seq_lens, no apply_temperature) and
behaviour: thd logits [1, T, V] or bshd [B, S, V] (which needs max_seq_lens), any float dtype, each response chunk
divided by rollout_temperature, (empty, dict) returned; and policy_loss_function (loss.py:562) on the path binary and
token-level OPD take: PPO clip and the monitoring entropy taken under no_grad (loss.py:726-737), with the
fork's fault that follows from it. Ignores context parallelism (CP = 1 only), the KL
loss, GSPO, OPSM and TIS.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Callable, Iterator

import torch
from megatron.core import mpu

from slime.utils.ppo_utils import calculate_log_probs_and_entropy, compute_policy_loss

RolloutBatch = dict  # slime.utils.types.RolloutBatch: dict[str, list[torch.Tensor] | list[int] | ...]


def get_responses(
    logits: torch.Tensor,
    *,
    args: Namespace,
    unconcat_tokens: list[torch.Tensor],
    total_lengths: list[int],
    response_lengths: list[int],
    max_seq_lens: list[int] | None = None,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    assert len(logits.shape) == 3, f"{logits.shape}"
    if args.qkv_format == "thd":
        assert logits.size(0) == 1, f"{logits.shape}"
        flat = logits.squeeze(0)
    else:
        assert max_seq_lens is not None
        flat = logits.view(-1, logits.size(-1))
    if mpu.get_context_parallel_world_size() != 1:
        raise NotImplementedError("this fake mirrors CP = 1 only")
    end = 0
    for index, (tokens, total_length, response_length) in enumerate(zip(unconcat_tokens, total_lengths, response_lengths)):
        # bshd: sample i occupies row i of [B, S], so its sequence starts at S * i
        end = max_seq_lens[index] * index + total_length if args.qkv_format == "bshd" else end + total_length
        chunk = flat[end - response_length - 1 : end - 1]
        if args.rollout_temperature != 1.0:
            chunk = chunk / args.rollout_temperature
        yield chunk, tokens[-response_length:]


def get_log_probs_and_entropy(
    logits: torch.Tensor,
    *,
    args: Namespace,
    unconcat_tokens: list[torch.Tensor],
    total_lengths: list[int],
    response_lengths: list[int],
    with_entropy: bool = False,
    non_loss_data: bool = True,
    max_seq_lens: list[int] | None = None,
) -> dict[str, list[torch.Tensor]]:
    assert non_loss_data
    log_probs, entropies = [], []
    for chunk, tokens in get_responses(
        logits, args=args, unconcat_tokens=unconcat_tokens, total_lengths=total_lengths, response_lengths=response_lengths, max_seq_lens=max_seq_lens
    ):
        log_prob, entropy = calculate_log_probs_and_entropy(
            chunk, tokens, mpu.get_tensor_model_parallel_group(), with_entropy=with_entropy, chunk_size=args.log_probs_chunk_size
        )
        log_probs.append(log_prob.squeeze(-1))
        entropies.append(entropy)
    result = {"log_probs": log_probs}
    if with_entropy:
        result["entropy"] = entropies
    # the annotation says dict; the fork returns a pair, as Megatron's forward-only path wants (loss.py:201)
    return torch.empty((0,), device=logits.device), result


def policy_loss_function(
    args: Namespace,
    batch: RolloutBatch,
    logits: torch.Tensor,
    sum_of_sample_mean: Callable[[torch.Tensor], torch.Tensor],
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    advantages = torch.cat(batch["advantages"], dim=0)
    old_log_probs = batch["rollout_log_probs"] if args.use_rollout_logprobs else batch["log_probs"]
    common = dict(args=args, unconcat_tokens=batch["unconcat_tokens"], total_lengths=batch["total_lengths"], response_lengths=batch["response_lengths"], max_seq_lens=batch.get("max_seq_lens", None))
    need_entropy_for_loss = args.entropy_coef != 0.0
    _, log_probs_and_entropy = get_log_probs_and_entropy(logits, with_entropy=need_entropy_for_loss, **common)
    old_log_probs = torch.cat(old_log_probs, dim=0)
    log_probs = torch.cat(log_probs_and_entropy["log_probs"], dim=0)
    ppo_kl = old_log_probs - log_probs
    pg_loss, pg_clipfrac = compute_policy_loss(ppo_kl, advantages, args.eps_clip, args.eps_clip_high)
    pg_loss, pg_clipfrac, ppo_kl = sum_of_sample_mean(pg_loss), sum_of_sample_mean(pg_clipfrac), sum_of_sample_mean(ppo_kl)
    if need_entropy_for_loss:
        entropy_loss = sum_of_sample_mean(torch.cat(log_probs_and_entropy["entropy"], dim=0))
    else:
        with torch.no_grad():
            _, entropy_for_monitor = get_log_probs_and_entropy(logits, with_entropy=True, **common)
            entropy_loss = sum_of_sample_mean(torch.cat(entropy_for_monitor["entropy"], dim=0))
    loss = pg_loss - args.entropy_coef * entropy_loss
    if log_probs.numel() == 0:
        loss += 0 * logits.sum()
    reported = {name: value.clone().detach() for name, value in (("loss", loss), ("pg_loss", pg_loss), ("entropy_loss", entropy_loss), ("pg_clipfrac", pg_clipfrac), ("ppo_kl", ppo_kl))}
    if "rollout_log_probs" in batch and batch["rollout_log_probs"]:
        reported["train_rollout_logprob_abs_diff"] = sum_of_sample_mean((old_log_probs - torch.cat(batch["rollout_log_probs"], dim=0)).abs()).clone().detach()
    return loss, reported
