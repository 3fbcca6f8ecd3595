"""Fake of the fork's MegatronTrainRayActor (Gen-Verse/OpenClaw-RL 0d034dd, slime/slime/backends/megatron_utils/actor.py:449): the trainer actor of tests/fake_trainer_actor.py with this flavour's train_actor signature,
which records the rollout data it got."""

from __future__ import annotations

from tests.fake_trainer_actor import FakeTrainerActorBody

RolloutBatch = dict


class MegatronTrainRayActor(FakeTrainerActorBody):
    def train_actor(self, rollout_id: int, rollout_data: RolloutBatch) -> None:
        self.trained.append((rollout_id, dict(rollout_data), self._active_model_tag))
