"""Fake of upstream's forward_only (THUDM/slime 624b824, slime/backends/megatron_utils/model.py:348): the real signature;
for each micro-batch it packs the model's logits of every sequence as thd [1, T, V] (model[0] maps token ids to logits
[L, V]), calls f(logits, args=, unconcat_tokens=, total_lengths=, response_lengths=, with_entropy=) as the real forward
step's partial does (:438-448, with_entropy = args.use_rollout_entropy, no max_seq_lens), and returns f's lists in
sample order under store_prefix. Ignores pipeline stages, padding, top-p replay and the Megatron schedule."""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Callable, Sequence

import torch

from tests.fake_trainer_actor import per_micro_batch

DDP = object
DataIterator = object


def forward_only(
    f: Callable[..., dict[str, list[torch.Tensor]]],
    args: Namespace,
    model: Sequence[DDP],
    data_iterator: Sequence[DataIterator],
    num_microbatches: Sequence[int],
    store_prefix: str = "",
    use_rollout_top_p_replay: bool = False,
) -> dict[str, list[torch.Tensor]]:
    def call(batch: dict) -> dict[str, list[torch.Tensor]]:
        tokens = [torch.as_tensor(t, dtype=torch.int64) for t in batch["tokens"]]
        logits = torch.cat([model[0](t).float() for t in tokens]).unsqueeze(0)
        _, values = f(logits, args=args, unconcat_tokens=tokens, total_lengths=batch["total_lengths"], response_lengths=batch["response_lengths"], with_entropy=getattr(args, "use_rollout_entropy", False))
        return values

    return per_micro_batch(data_iterator, num_microbatches, store_prefix, call)
