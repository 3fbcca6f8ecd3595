"""Fake of the fork's slime.backends.megatron_utils.loss (Gen-Verse/OpenClaw-RL 0d034dd, loss.py:36, :141).

Owns get_responses and get_log_probs_and_entropy with the fork's signatures (max_seq_lens, no apply_temperature) and
behaviour: thd logits [1, T, V] or bshd [B, S, V] (which needs max_seq_lens), any float dtype, each response chunk
divided by rollout_temperature, (empty, dict) returned. Ignores context parallelism (CP = 1 only).
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Iterator

import torch
from megatron.core import mpu

from slime.utils.ppo_utils import calculate_log_probs_and_entropy


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
