"""What the fake slime trees' MegatronTrainRayActor does (native/tests/fakes/<flavour>/slime/backends/megatron_utils/
actor.py declare the real signatures and call this): a trainer actor whose "model" is a function from token ids to
logits [L, V] and whose weight tags behave like slime's TensorBackuper (fork and upstream actor.py: backup_tags,
_switch_model, load_other_checkpoint leaving the loaded tag active).

Owns compute_log_prob as forward_only + get_log_probs_and_entropy compute it for one micro-batch schedule: for each
micro-batch of the data iterator, log_softmax(logits / rollout_temperature) of every response token from the row before
it, values put back in sample order (forward_only's reorder by micro_batch_indices). Ignores packing, pipeline stages,
entropy and the optimizer.
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
        self.switch(target_tag)

    def compute_log_prob(
        self,
        data_iterator: list[DataIterator],
        num_microbatches: list[int],
        store_prefix: str = "",
    ) -> dict[str, list[torch.Tensor]]:
        return self.log_probs(data_iterator, num_microbatches, store_prefix)

    def load_other_checkpoint(self, model_tag: str, path: str) -> None:
        self.load(model_tag, path)

    def switch(self, target_tag: str) -> None:
        if target_tag not in self.weights_backuper.backup_tags:
            raise ValueError(f"Cannot switch to unknown model tag: {target_tag}")
        self._active_model_tag = target_tag
        self.events.append(("switch", target_tag))

    def load(self, model_tag: str, path: str) -> None:
        self.models[model_tag] = self.checkpoints[path]
        self.weights_backuper.backup_tags.append(model_tag)
        self._active_model_tag = model_tag
        self.events.append(("load", model_tag, path))

    def log_probs(self, data_iterator, num_microbatches, store_prefix) -> dict:
        forward = self.models[self._active_model_tag]
        iterator = data_iterator[0]
        iterator.reset()
        values = {}
        for _ in range(sum(num_microbatches)):
            indices = iterator.micro_batch_indices[iterator.offset]
            batch = iterator.get_next(["tokens", "total_lengths", "response_lengths"])
            for index, tokens, total, response in zip(indices, batch["tokens"], batch["total_lengths"], batch["response_lengths"]):
                tokens = torch.as_tensor(tokens, dtype=torch.int64)
                assert tokens.numel() == total, (tokens.numel(), total)
                rows = forward(tokens)[total - response - 1 : total - 1].float() / self.args.rollout_temperature
                values[index] = torch.log_softmax(rows, dim=-1).gather(-1, tokens[total - response :].unsqueeze(-1)).squeeze(-1)
        self.events.append(("forward", store_prefix, self._active_model_tag, sum(num_microbatches)))
        return {f"{store_prefix}log_probs": [values[index] for index in range(len(values))]}
