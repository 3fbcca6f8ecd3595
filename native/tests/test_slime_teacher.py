"""opd.teacher trainer on each fake slime: the bridge's batch through the real rollout function (build_samples), the
fake converter (which carries multimodal_train_inputs as the real one does), then slime_teacher's wrapper around the
fake actor's train_actor. The teacher's values must equal its forward over the hinted prompt + response at the
rollout temperature, in sample order; a combine sample without a hint keeps the log-probs sent; slime's train_actor
must get rollout data without our keys, with the actor's weights active again."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import unittest
from unittest import mock
from argparse import Namespace

import torch

from openclaw_rl import rollout, slime_teacher, teacher_carriage, trainer_hooks
from openclaw_rl.batch_frame import DecodedBatch, DecodedSample

from .slime_fakes import FLAVOURS, HERE, fake_slime

VOCAB = 11
FIXTURE = f"{HERE}/fixtures/slime_actor.json"


def model(seed: int):
    """A causal model: row p depends on tokens[: p + 1] only (a running sum of embeddings)."""
    table = torch.randn(VOCAB, VOCAB, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * 0.5

    def forward(tokens: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(table[tokens.long()], dim=0)

    return forward


TEACHER, ACTOR = model(1), model(2)


def by_hand(forward, tokens: list[int], response_length: int, temperature: float) -> torch.Tensor:
    rows = forward(torch.tensor(tokens))[len(tokens) - response_length - 1 : -1] / temperature
    return torch.log_softmax(rows, dim=-1).gather(-1, torch.tensor(tokens[-response_length:]).unsqueeze(-1)).squeeze(-1).float()


def decoded(seq: int, prompt: list[int], response: list[int], extra: dict) -> DecodedSample:
    length = len(response)
    arrays = {"tokens": torch.tensor(prompt + response, dtype=torch.int32), "lossMask": torch.ones(length, dtype=torch.int32), "rolloutLogProbs": torch.full((length,), -0.5), **extra}
    header = {"seq": seq, "id": f"s:{seq}", "kind": "combined", "why": "t", "approximate": False, "responseLength": length, "status": "completed", "reward": 1, "weightVersions": [["0", length]], "topk": 0}
    return DecodedSample(header=header, arrays=arrays)


# (student prompt, hinted prompt or None, response); the second has no hint: it carries rollout log-probs as teacher
SAMPLES = [([1, 2, 3], [1, 2, 9, 9, 3], [4, 5]), ([2, 3], None, [6, 7, 8]), ([5], [5, 10, 10, 10, 10], [1, 2, 3, 4])]
SENT = torch.tensor([-0.25, -0.5, -0.75])


def batch() -> DecodedBatch:
    samples = []
    for seq, (prompt, hinted, response) in enumerate(SAMPLES):
        extra = {"teacherTokens": torch.tensor(hinted + response, dtype=torch.int32)} if hinted else {"teacherLogProbs": SENT.clone()}
        samples.append(decoded(seq, prompt, response, extra))
    return DecodedBatch(header={"batchId": "b"}, samples=samples)


def args(**overrides) -> Namespace:
    values = dict(rollout_temperature=0.6, ref_load="/ckpt/base", max_tokens_per_gpu=9, log_probs_chunk_size=-1, context_parallel_size=1, qkv_format="thd", rollout_top_p=1.0, kl_coef=0.0, use_kl_loss=False, openclaw_rl_teacher="trainer")
    values.update(overrides)
    return Namespace(**values)


def trainer_rollout_data(train_data: dict) -> dict:
    """What the actor's _get_rollout_data hands train_actor on one rank (tokens as long tensors; upstream's schedule)."""
    data = {key: list(value) for key, value in train_data.items()}
    data["tokens"] = [torch.tensor(tokens, dtype=torch.long) for tokens in data["tokens"]]
    data["total_lengths"] = [len(tokens) for tokens in data["tokens"]]
    data["micro_batch_indices"] = [[2], [0, 1]]
    data["num_microbatches"] = [2]
    return data


class SlimeTeacherTest(unittest.TestCase):
    def run_flavour(self, flavour: str, tags=("actor",), **overrides):
        with fake_slime(flavour):
            from slime.backends.megatron_utils.actor import MegatronTrainRayActor
            from slime.ray.rollout import RolloutManager

            samples = rollout.build_samples(batch())
            self.assertTrue(all(getattr(sample, "teacher_log_probs", None) is None for sample in samples))
            train_data = RolloutManager(None)._convert_samples_to_train_data(samples)
            self.assertNotIn("teacher_log_probs", train_data)
            self.assertEqual(train_data["loss_masks"], [[1, 1], [1, 1, 1], [1, 1, 1, 1]])  # nobody dropped (the fork drops a sample without inputs)
            rollout_data = trainer_rollout_data(train_data)

            with mock.patch.dict(os.environ, {"OPENCLAW_RL_BRIDGE": "http://127.0.0.1:9", "OPENCLAW_RL_BRIDGE_TOKEN": "t"}):
                installed = trainer_hooks.install(args(**overrides))
            self.assertIn("trainer teacher on MegatronTrainRayActor.train_actor (weights from /ckpt/base)", installed)
            actor = MegatronTrainRayActor()
            actor.setup(args(**overrides), {"actor": ACTOR, **({"ref": TEACHER} if "ref" in tags else {})}, tags=tags, checkpoints={"/ckpt/base": TEACHER})
            actor.train_actor(7, rollout_data)
            actor.train_actor(8, trainer_rollout_data(train_data))
            return actor

    def test_teacher_values_on_each_flavour(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour=flavour):
                actor = self.run_flavour(flavour)
                rollout_id, got, active = actor.trained[0]
                self.assertEqual((rollout_id, active), (7, "actor"))
                self.assertNotIn("multimodal_train_inputs", got)
                for (prompt, hinted, response), value in zip(SAMPLES, got["teacher_log_probs"]):
                    expected = by_hand(TEACHER, hinted + response, len(response), 0.6) if hinted else SENT[: len(response)]
                    torch.testing.assert_close(value, expected, rtol=1e-6, atol=1e-6)
                # the hint matters: over the student's own prompt the teacher says something else
                own = by_hand(TEACHER, SAMPLES[0][0] + SAMPLES[0][2], 2, 0.6)
                self.assertGreater(float((own - got["teacher_log_probs"][0]).abs().max()), 1e-3)
                loads = [event for event in actor.events if event[0] == "load"]
                self.assertEqual(loads, [("load", slime_teacher.TEACHER_TAG, "/ckpt/base")])  # once, for both batches
                forwards = [event for event in actor.events if event[0] == "forward"]
                self.assertEqual([event[:3] for event in forwards], [("forward", "teacher_", slime_teacher.TEACHER_TAG)] * 2)

    def test_topk_rows_on_the_fork(self):
        with fake_slime("fork"):
            from slime.backends.megatron_utils.actor import MegatronTrainRayActor
            from slime.ray.rollout import RolloutManager

            hinted = DecodedBatch(header={"batchId": "b"}, samples=[decoded(seq, prompt, response, {"teacherTokens": torch.tensor(h + response, dtype=torch.int32)}) for seq, (prompt, h, response) in enumerate(SAMPLES) if h])
            rollout_data = trainer_rollout_data(RolloutManager(None)._convert_samples_to_train_data(rollout.build_samples(hinted)))
            for temperature in (0.6, 1.0):  # at 1 the fork's log-prob helper overwrites the logits in place: the rows come first
                slime_teacher.install(args(openclaw_rl_topk=3, rollout_temperature=temperature))
                actor = MegatronTrainRayActor()
                actor.setup(args(openclaw_rl_topk=3, rollout_temperature=temperature), {"actor": ACTOR}, checkpoints={"/ckpt/base": TEACHER})
                actor.train_actor(1, {key: list(value) if isinstance(value, list) else value for key, value in rollout_data.items()})
                got = actor.trained[0][1]
                for index, (_prompt, hint, response) in enumerate(sample for sample in SAMPLES if sample[1]):
                    tokens = hint + response
                    full = torch.log_softmax(TEACHER(torch.tensor(tokens))[len(tokens) - len(response) - 1 : -1] / temperature, dim=-1).float()
                    top = full.topk(3, dim=-1)
                    with self.subTest(temperature=temperature, sample=index):
                        torch.testing.assert_close(got["teacher_topk_log_probs"][index], top.values, rtol=1e-6, atol=1e-6)
                        self.assertEqual(got["teacher_topk_indices"][index].tolist(), top.indices.tolist())
                        self.assertEqual((got["teacher_topk_indices"][index].dtype, got["teacher_topk_indices"][index].device.type), (torch.int64, "cpu"))
                        torch.testing.assert_close(got["teacher_log_probs"][index], by_hand(TEACHER, tokens, len(response), temperature), rtol=1e-6, atol=1e-6)
            with self.assertRaisesRegex(slime_teacher.TrainerTeacherError, "top-K distillation batch has samples without teacher tokens"):
                mixed = trainer_rollout_data(RolloutManager(None)._convert_samples_to_train_data(rollout.build_samples(batch())))
                actor.train_actor(2, mixed)

    def test_the_reference_is_the_teacher_when_slime_loaded_it(self):
        for flavour in FLAVOURS:
            with self.subTest(flavour=flavour):
                actor = self.run_flavour(flavour, tags=("actor", "ref"), use_kl_loss=True)
                self.assertFalse([event for event in actor.events if event[0] == "load"])
                self.assertEqual({event[2] for event in actor.events if event[0] == "forward"}, {"ref"})
                self.assertEqual(actor.trained[-1][2], "actor")

    def test_a_batch_without_teacher_tokens_is_left_to_slime(self):
        with fake_slime("upstream"):
            from slime.backends.megatron_utils.actor import MegatronTrainRayActor
            from slime.ray.rollout import RolloutManager

            plain = DecodedBatch(header={"batchId": "b"}, samples=[decoded(0, [1, 2], [3, 4], {"teacherLogProbs": SENT[:2].clone()})])
            samples = rollout.build_samples(plain)
            self.assertIsNone(samples[0].multimodal_train_inputs)
            train_data = RolloutManager(None)._convert_samples_to_train_data(samples)
            slime_teacher.install(args())
            actor = MegatronTrainRayActor()
            actor.setup(args(), {"actor": ACTOR})
            actor.train_actor(1, trainer_rollout_data(train_data))
            self.assertEqual(actor.events, [])
            torch.testing.assert_close(actor.trained[0][1]["teacher_log_probs"][0], SENT[:2])

    def test_refuses_what_it_cannot_compute_exactly(self):
        for overrides, words in (
            ({"context_parallel_size": 2}, "--context-parallel-size 2"),
            ({"qkv_format": "bshd"}, "--qkv-format bshd"),
            ({"rollout_top_p": 0.9}, "--rollout-top-p 0.9"),
            ({"enable_weights_backuper": False}, "--disable-weights-backuper"),
            ({"ref_load": None}, "no --ref-load"),
        ):
            with self.subTest(overrides=overrides), self.assertRaisesRegex(slime_teacher.TrainerTeacherError, words + ".*Use opd.teacher: engine"):
                slime_teacher.install(args(**overrides), actor_class=type("Actor", (), {"train_actor": lambda self, rollout_id, rollout_data: None}))
        with self.assertRaisesRegex(slime_teacher.TrainerTeacherError, "openclaw_rl_teacher is 'gpu'"):
            trainer_hooks.install(Namespace(openclaw_rl_teacher="gpu"))

    def test_a_wrong_carriage_is_named(self):
        data = {"multimodal_train_inputs": [{teacher_carriage.TOKENS_KEY: torch.tensor([1, 2, 3])}, None], "tokens": [torch.tensor([1, 2]), torch.tensor([1, 2])], "response_lengths": [1, 1]}
        with self.assertRaisesRegex(RuntimeError, r"samples \[1\] of a carried batch have no teacher"):
            teacher_carriage.take(data)
        short = {"multimodal_train_inputs": [{teacher_carriage.TOKENS_KEY: torch.tensor([1, 2])}], "tokens": [torch.tensor([1, 2])], "response_lengths": [2], "loss_masks": [[1, 1]]}
        with self.assertRaisesRegex(slime_teacher.TrainerTeacherError, "hold no hinted prompt before its 2-token response"):
            slime_teacher.fill_teacher_log_probs(Namespace(args=args()), short)

    def test_keeps_other_multimodal_inputs(self):
        pixels = torch.ones(2)
        data = {"multimodal_train_inputs": [{"pixel_values": pixels, teacher_carriage.TOKENS_KEY: torch.tensor([1, 2, 3])}]}
        teachers = teacher_carriage.take(data)
        self.assertEqual(teachers[0].tokens.tolist(), [1, 2, 3])
        self.assertEqual(list(data["multimodal_train_inputs"][0]), ["pixel_values"])

    def test_fakes_match_the_real_signatures(self):
        with open(FIXTURE, encoding="utf-8") as handle:
            recorded = json.load(handle)["flavours"]
        for flavour in FLAVOURS:
            with fake_slime(flavour):
                for name, entry in recorded[flavour]["methods"].items():
                    with self.subTest(flavour=flavour, method=name):
                        target = importlib.import_module(entry["module"])
                        for part in name.split("."):
                            target = getattr(target, part)
                        described = [
                            {"name": p.name, "annotation": None if p.annotation is inspect.Parameter.empty else p.annotation, "default": None if p.default is inspect.Parameter.empty else repr(p.default)}
                            for p in inspect.signature(target).parameters.values()
                        ]
                        self.assertEqual(described, entry["parameters"], f"{entry['file']}:{entry['line']}")
                        self.assertEqual(inspect.signature(target).return_annotation, entry["returns"])


if __name__ == "__main__":
    unittest.main()
