"""Fake of the fork's slime/slime/backends/megatron_utils/data.py (Gen-Verse/OpenClaw-RL 0d034dd): DataIterator and
get_data_iterator with the real signatures (tests/fixtures/slime_actor.json). The fork schedules micro-batches itself
from the lengths (:315-409); this fake packs at most args.max_tokens_per_gpu tokens per micro-batch, longest first, so
the schedule's order differs from the samples'. Ignores VPP, DP all-reduce and CP.
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Sequence

import torch

from tests.fake_trainer_actor import FakeDataIterator

RolloutBatch = dict
DataIterator = FakeDataIterator


def get_data_iterator(
    args: Namespace,
    model: torch.nn.Module | Sequence[torch.nn.Module],
    rollout_data: RolloutBatch,
) -> tuple[list[DataIterator], list[int]]:
    order = sorted(range(len(rollout_data["total_lengths"])), key=lambda index: -rollout_data["total_lengths"][index])
    batches: list[list[int]] = []
    for index in order:
        if batches and sum(rollout_data["total_lengths"][i] for i in batches[-1]) + rollout_data["total_lengths"][index] <= args.max_tokens_per_gpu:
            batches[-1].append(index)
        else:
            batches.append([index])
    return [DataIterator(rollout_data, batches)], [len(batches)]
