"""What the fake slime trees' MegatronTrainRayActor does (native/tests/fakes/<flavour>/slime/backends/megatron_utils/
actor.py declare the real signatures and call this): a trainer actor whose "model" is a function from token ids to
logits [L, V] and whose weight tags behave like slime's TensorBackuper (fork and upstream actor.py: backup_tags,
_switch_model, load_other_checkpoint leaving the loaded tag active).

Owns compute_log_prob as forward_only + get_log_probs_and_entropy compute it, and forward_only's loop
(per_micro_batch, which the fork fake's forward_only uses too): for each micro-batch of the data iterator,
log_softmax(logits / rollout_temperature) of every response token from the row before it, values put back in sample
order (forward_only's reorder by micro_batch_indices). Ignores packing, pipeline stages, entropy and the optimizer.
"""

from __future__ import annotations

import torch


DataIterator = object


class FakeDataIterator:
    """slime's DataIterator as both flavours use it: get_next over an explicit micro-batch index schedule."""

    def __init__(self, rollout_data: dict, micro_batch_indices: list[list[int]]) -> None:
        self.rollout_data = rollout_data
        self.micro_batch_indices = micro_batch_indices
        self.offset = 0

    def get_next(self, keys) -> dict:
        indices = self.micro_batch_indices[self.offset]
        batch = {key: None if self.rollout_data.get(key) is None else [self.rollout_data[key][i] for i in indices] for key in keys}
        self.offset += 1
        return batch

    def reset(self) -> None:
        self.offset = 0


class FakeBackuper:
    def __init__(self, tags):
        self.backup_tags = list(tags)


class FakeTrainerActorBody:
    """models: tag -> forward(tokens [L] int64) -> logits [L, V]."""

    def setup(self, args, models: dict, tags=("actor",), checkpoints: dict | None = None):
        self.args, self.models = args, dict(models)
        self.model = [lambda tokens: self.models[self._active_model_tag](tokens)]  # the chunk forward_only calls
        self.weights_backuper = FakeBackuper(tags)
        self._active_model_tag = "actor"
        self.checkpoints = dict(checkpoints or {})  # path -> forward, for load_other_checkpoint
        self.events: list = []
        self.trained: list = []

    # the real signatures (fixtures/slime_actor.json; the same in both flavours); train_actor is per flavour
    def _switch_model(self, target_tag: str) -> None:
        if target_tag not in self.weights_backuper.backup_tags:
            raise ValueError(f"Cannot switch to unknown model tag: {target_tag}")
        self._active_model_tag = target_tag
        self.events.append(("switch", target_tag))

    def compute_log_prob(
        self,
        data_iterator: list[DataIterator],
        num_microbatches: list[int],
        store_prefix: str = "",
    ) -> dict[str, list[torch.Tensor]]:
        forward = self.models[self._active_model_tag]

        def log_probs(batch: dict) -> dict[str, list[torch.Tensor]]:
            values = []
            for tokens, total, response in zip(batch["tokens"], batch["total_lengths"], batch["response_lengths"]):
                tokens = torch.as_tensor(tokens, dtype=torch.int64)
                assert tokens.numel() == total, (tokens.numel(), total)
                rows = forward(tokens)[total - response - 1 : total - 1].float() / self.args.rollout_temperature
                values.append(torch.log_softmax(rows, dim=-1).gather(-1, tokens[total - response :].unsqueeze(-1)).squeeze(-1))
            return {"log_probs": values}

        self.events.append(("forward", store_prefix, self._active_model_tag, sum(num_microbatches)))
        return per_micro_batch(data_iterator, num_microbatches, store_prefix, log_probs)

    def load_other_checkpoint(self, model_tag: str, path: str) -> None:
        self.models[model_tag] = self.checkpoints[path]
        self.weights_backuper.backup_tags.append(model_tag)
        self._active_model_tag = model_tag
        self.events.append(("load", model_tag, path))


def per_micro_batch(data_iterator, num_microbatches, store_prefix: str, compute) -> dict[str, list]:
    """forward_only's loop: compute(batch) -> {key: a value per sample} for each micro-batch of the schedule, then the
    lists in sample order (its reorder by micro_batch_indices) under store_prefix."""
    iterator = data_iterator[0]
    iterator.reset()
    stored: dict[str, dict[int, object]] = {}
    for _ in range(sum(num_microbatches)):
        indices = iterator.micro_batch_indices[iterator.offset]
        for key, per_sample in compute(iterator.get_next(["tokens", "total_lengths", "response_lengths"])).items():
            assert isinstance(per_sample, list)
            stored.setdefault(key, {}).update(zip(indices, per_sample))
    return {f"{store_prefix}{key}": [by_index[i] for i in range(len(by_index))] for key, by_index in stored.items()}
