"""Fake of the fork's RolloutManager._convert_samples_to_train_data (Gen-Verse/OpenClaw-RL 0d034dd,
slime/slime/ray/rollout.py:620-719): how Samples become the training batch.

Owns the keys openclaw_rl relies on: tokens, response lengths, loss masks (length asserted), rollout log-probs and
the teacher arrays, carried when present in samples[0].__dict__ (:710-717); multimodal_train_inputs when any sample
has them, a sample without them dropped by a zero loss mask (:693-708). Ignores reward post-processing (rewards are
taken as the Samples hold them), constant-reward group dropping and the Ray actor around it.
"""

from __future__ import annotations

from slime.utils.types import Sample

TEACHER_ARRAYS = ("teacher_log_probs", "teacher_topk_log_probs", "teacher_topk_indices")


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
        if any(sample.multimodal_train_inputs is not None for sample in samples):
            for index, sample in enumerate(samples):
                if sample.multimodal_train_inputs is None and not sample.remove_sample:
                    sample.remove_sample = True
                    sample.loss_mask = [0] * sample.response_length
                    loss_masks[index] = sample.loss_mask
            train_data["multimodal_train_inputs"] = [sample.multimodal_train_inputs for sample in samples]
        if samples[0].rollout_log_probs is not None:
            train_data["rollout_log_probs"] = [sample.rollout_log_probs for sample in samples]
        for name in TEACHER_ARRAYS:
            if name in samples[0].__dict__:
                train_data[name] = [getattr(sample, name) for sample in samples]
        return train_data
