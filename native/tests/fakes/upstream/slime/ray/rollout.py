"""Fake of upstream RolloutManager._convert_samples_to_train_data (THUDM/slime 624b824, slime/ray/rollout.py:635-752):
how Samples become the training batch.

Owns the keys openclaw_rl relies on: tokens, response lengths, loss masks (length asserted), rollout
log-probs, and teacher_log_probs, carried only as the declared field when samples[0].teacher_log_probs is not None
(:746-747); any other attribute set on a Sample stays behind; multimodal_train_inputs when any sample has them
(:743-744). Ignores reward post-processing (rewards are taken as the Samples hold them), rollout ids and per-rollout
mask sums, top-p replay and the Ray actor around it.
"""

from __future__ import annotations

from slime.utils.types import Sample


class RolloutManager:
    def __init__(self, args):
        self.args = args

    def _convert_samples_to_train_data(self, samples: list[Sample] | list[list[Sample]]):
        train_data = {
            "tokens": [sample.tokens for sample in samples],
            "response_lengths": [sample.response_length for sample in samples],
            "rewards": [sample.reward for sample in samples],
            "truncated": [1 if sample.status == Sample.Status.TRUNCATED else 0 for sample in samples],
            "sample_indices": [sample.index for sample in samples],
        }
        loss_masks = []
        for sample in samples:
            if sample.loss_mask is None:
                sample.loss_mask = [1] * sample.response_length
            assert len(sample.loss_mask) == sample.response_length, f"loss mask length {len(sample.loss_mask)} != response length {sample.response_length}"
            loss_masks.append([0] * sample.response_length if sample.remove_sample else sample.loss_mask)
        train_data["loss_masks"] = loss_masks
        if samples[0].rollout_log_probs is not None:
            train_data["rollout_log_probs"] = [sample.rollout_log_probs for sample in samples]
        if any(sample.multimodal_train_inputs is not None for sample in samples):
            train_data["multimodal_train_inputs"] = [sample.multimodal_train_inputs for sample in samples]
        if samples[0].teacher_log_probs is not None:
            train_data["teacher_log_probs"] = [sample.teacher_log_probs for sample in samples]
        return train_data
