"""Fake of the fork's forward_only (Gen-Verse/OpenClaw-RL 0d034dd, slime/slime/backends/megatron_utils/model.py:153):
the real signature (tests/fixtures/slime_actor.json); for each micro-batch of the data iterator it packs the model's
logits of every sequence as thd [1, T, V] (model[0] maps token ids to logits [L, V]), calls
f(logits, args=, unconcat_tokens=, total_lengths=, response_lengths=, with_entropy=, max_seq_lens=) as the real
forward step's partial does (:236-245), and returns f's lists in sample order (the dynamic-batch reorder, :277-296)
under store_prefix. Ignores pipeline stages, padding and the Megatron schedule."""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Callable, Sequence

import torch

DDP = object
DataIterator = object


def forward_only(
    f: Callable[..., dict[str, list[torch.Tensor]]],
    args: Namespace,
    model: Sequence[DDP],
    data_iterator: Sequence[DataIterator],
    num_microbatches: Sequence[int],
    store_prefix: str = "",
) -> dict[str, list[torch.Tensor]]:
    iterator = data_iterator[0]
    iterator.reset()
    stored: dict[str, dict[int, torch.Tensor]] = {}
    for _ in range(sum(num_microbatches)):
        indices = iterator.micro_batch_indices[iterator.offset]
        batch = iterator.get_next(["tokens", "total_lengths", "response_lengths"])
        tokens = [torch.as_tensor(t, dtype=torch.int64) for t in batch["tokens"]]
        logits = torch.cat([model[0](t).float() for t in tokens]).unsqueeze(0)
        _, values = f(logits, args=args, unconcat_tokens=tokens, total_lengths=batch["total_lengths"], response_lengths=batch["response_lengths"], with_entropy=False, max_seq_lens=None)
        for key, per_sample in values.items():
            assert isinstance(per_sample, list)
            stored.setdefault(key, {}).update(zip(indices, per_sample))
    return {f"{store_prefix}{key}": [by_index[i] for i in range(len(by_index))] for key, by_index in stored.items()}
