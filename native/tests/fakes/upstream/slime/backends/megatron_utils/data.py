"""Fake of the upstream slime/backends/megatron_utils/data.py (THUDM/slime 624b824): DataIterator and
get_data_iterator with the real signatures (tests/fixtures/slime_actor.json). Upstream follows the rollout
manager's schedule, rollout_data["micro_batch_indices"] (:192-196). Ignores VPP, DP all-reduce and CP.
"""

from __future__ import annotations

from tests.fake_trainer_actor import FakeDataIterator

RolloutBatch = dict
DataIterator = FakeDataIterator


def get_data_iterator(rollout_data: RolloutBatch) -> list[DataIterator]:
    return [DataIterator(rollout_data, rollout_data["micro_batch_indices"])]
