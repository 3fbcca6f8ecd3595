"""Fake of upstream slime.backends.megatron_utils.loss (THUDM/slime 624b824, loss.py:97, :513).

Owns get_responses and get_log_probs_and_entropy with upstream's signatures (apply_temperature, top-p replay, no
max_seq_lens) and behaviour: float32 thd logits [1, T, V] only (asserted), temperature on the whole tensor, one
log-softmax over all T rows (padding included) against the shifted tokens, then per-sample slices; (empty, dict)
returned. Ignores context parallelism (CP = 1 only, allgather_cp must be off).
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
    apply_temperature: bool = True,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    assert logits.dtype == torch.float32, f"{logits.dtype}"
    assert len(logits.shape) == 3, f"{logits.shape}"
    assert logits.size(0) == 1, f"{logits.shape}"
    flat = logits.squeeze(0)
    if apply_temperature and args.rollout_temperature != 1.0:
        flat = flat.div(args.rollout_temperature)
    if mpu.get_context_parallel_world_size() != 1:
        raise NotImplementedError("this fake mirrors CP = 1 only")
    end = 0
    for tokens, total_length, response_length in zip(unconcat_tokens, total_lengths, response_lengths):
        end += total_length
        yield flat[end - response_length - 1 : end - 1], tokens[-response_length:]


def _shifted_targets(rows: int, device, unconcat_tokens, total_lengths) -> torch.Tensor:
    targets = torch.zeros(rows, dtype=torch.long, device=device)
    offset = 0
    for tokens, total_length in zip(unconcat_tokens, total_lengths):
        targets[offset : offset + total_length - 1] = tokens[1:total_length]
        offset += total_length
    return targets


def _nucleus_keep_mask(shape, device, token_ids, token_offsets, total_lengths, response_lengths) -> torch.Tensor:
    keep = torch.ones(shape, dtype=torch.bool, device=device)
    end = 0
    for ids, offsets, total_length, response_length in zip(token_ids, token_offsets, total_lengths, response_lengths):
        ids, offsets = [int(value) for value in ids], [int(value) for value in offsets]
        end += total_length
        first_row = end - response_length - 1
        for position in range(min(response_length, len(offsets) - 1)):
            keep[first_row + position] = False
            kept = ids[offsets[position] : offsets[position + 1]]
            if kept:
                keep[first_row + position, torch.tensor(kept, dtype=torch.long, device=device)] = True
    return keep


def get_log_probs_and_entropy(
    logits: torch.Tensor,
    *,
    args: Namespace,
    unconcat_tokens: list[torch.Tensor],
    total_lengths: list[int],
    response_lengths: list[int],
    with_entropy: bool = False,
    non_loss_data: bool = True,
    top_p_token_ids: list[list[int]] | None = None,
    top_p_token_offsets: list[list[int]] | None = None,
) -> dict[str, list[torch.Tensor]]:
    assert non_loss_data
    assert logits.dtype == torch.float32, f"{logits.dtype}"
    assert len(logits.shape) == 3, f"{logits.shape}"
    assert logits.size(0) == 1, f"{logits.shape}"
    flat = logits.squeeze(0)
    temperature = getattr(args, "rollout_temperature", 1.0)
    if temperature != 1.0:
        flat = flat / temperature
    flat = flat.contiguous()
    if args.allgather_cp or mpu.get_context_parallel_world_size() != 1:
        raise NotImplementedError("this fake mirrors CP = 1 only")
    keep = None
    if top_p_token_ids is not None and top_p_token_offsets is not None:
        keep = _nucleus_keep_mask(flat.shape, flat.device, top_p_token_ids, top_p_token_offsets, total_lengths, response_lengths)
    log_prob, entropy = calculate_log_probs_and_entropy(
        flat,
        _shifted_targets(flat.size(0), flat.device, unconcat_tokens, total_lengths),
        mpu.get_tensor_model_parallel_group(),
        with_entropy=with_entropy,
        with_entropy_grad=with_entropy and getattr(args, "entropy_coef", 0.0) != 0,
        chunk_size=args.log_probs_chunk_size,
        log_prob_keep_mask=keep,
    )
    log_prob = log_prob.squeeze(-1)
    log_probs, entropies, end = [], [], 0
    for total_length, response_length in zip(total_lengths, response_lengths):
        end += total_length
        log_probs.append(log_prob[end - response_length - 1 : end - 1])
        if entropy is not None:
            entropies.append(entropy[end - response_length - 1 : end - 1])
    result = {"log_probs": log_probs}
    if with_entropy:
        result["entropy"] = entropies
    return torch.empty((0,), device=flat.device), result
