"""method: hybrid on each fake slime: a bridge batch with hint candidates through the real rollout function
(build_samples), the fake converter, then slime_teacher's wrapper around the fake actor's train_actor. The published
rows (hybrid_rows) must equal, per subset, the old policy's and each candidate teacher's full-vocabulary top-K at the
rollout temperature and the log-probs each takes at the other's ids; slime's train_actor gets no carried keys."""

from __future__ import annotations

import os
import unittest
from unittest import mock

import torch

from openclaw_rl import hybrid_rows, rollout, slime_teacher, teacher_carriage, trainer_hooks
from openclaw_rl.batch_frame import DecodedBatch

from .slime_fakes import FLAVOURS, fake_slime
from .test_slime_teacher import ACTOR, TEACHER, args, decoded, trainer_rollout_data

K = 3
# (student prompt, hint candidates' prompts, response): three candidates, one, two
SAMPLES = [([1, 2, 3], [[1, 2, 9, 3], [1, 2, 9, 9, 3], [7, 1, 2, 3]], [4, 5]), ([2, 3], [[2, 3]], [6, 7, 8]), ([5], [[5, 10], [5, 10, 10, 4]], [1, 2, 3, 4])]


def hybrid_batch() -> DecodedBatch:
    samples = []
    for seq, (prompt, hinted, response) in enumerate(SAMPLES):
        ids = [token for hint in hinted for token in hint + response]
        sample = decoded(seq, prompt, response, {"hintCandidateTokens": torch.tensor(ids, dtype=torch.int32)})
        sample.header["candidateLengths"] = [len(hint) + len(response) for hint in hinted]
        samples.append(sample)
    return DecodedBatch(header={"batchId": "b"}, samples=samples)


def full_rows(forward, tokens: list[int], response_length: int, temperature: float) -> torch.Tensor:
    return torch.log_softmax(forward(torch.tensor(tokens))[len(tokens) - response_length - 1 : -1] / temperature, dim=-1).float()


class SlimeHybridTest(unittest.TestCase):
    def tearDown(self):
        hybrid_rows.clear()

    def train(self, flavour: str, subset: str):
        with fake_slime(flavour):
            from slime.backends.megatron_utils.actor import MegatronTrainRayActor
            from slime.ray.rollout import RolloutManager

            train_data = RolloutManager(None)._convert_samples_to_train_data(rollout.build_samples(hybrid_batch()))
            overrides = dict(openclaw_rl_hybrid_subset=subset, openclaw_rl_hybrid_topk=K)
            with mock.patch.dict(os.environ, {"OPENCLAW_RL_BRIDGE": "http://127.0.0.1:9", "OPENCLAW_RL_BRIDGE_TOKEN": "t"}):
                trainer_hooks.install(args(**overrides))
            actor = MegatronTrainRayActor()
            actor.setup(args(**overrides), {"actor": ACTOR}, checkpoints={"/ckpt/base": TEACHER})
            actor.train_actor(3, trainer_rollout_data(train_data))
            return actor

    def test_rows_per_subset_on_each_flavour(self):
        for flavour in FLAVOURS:
            for subset in ("student", "overlap", "teacher"):
                with self.subTest(flavour=flavour, subset=subset):
                    actor = self.train(flavour, subset)
                    _rollout_id, got, active = actor.trained[0]
                    self.assertEqual(active, "actor")
                    self.assertNotIn("multimodal_train_inputs", got)
                    self.assertEqual([event for event in actor.events if event[0] == "load"], [("load", slime_teacher.TEACHER_TAG, "/ckpt/base")])
                    for prompt, hinted, response in SAMPLES:
                        rows = hybrid_rows.lookup(torch.tensor(prompt + response))
                        student = full_rows(ACTOR, prompt + response, len(response), 0.6)
                        top = student.topk(K, dim=-1)
                        torch.testing.assert_close(rows.student_log_probs, top.values, rtol=1e-6, atol=1e-6)
                        self.assertEqual(rows.student_indices.tolist(), top.indices.tolist())
                        self.assertEqual(rows.teacher_indices.shape[0], len(hinted))
                        for c, hint in enumerate(hinted):
                            teacher = full_rows(TEACHER, hint + response, len(response), 0.6)
                            native = teacher.topk(K, dim=-1)
                            torch.testing.assert_close(rows.teacher_log_probs[c], native.values, rtol=1e-6, atol=1e-6)
                            self.assertEqual(rows.teacher_indices[c].tolist(), native.indices.tolist())
                            if subset == "student":
                                torch.testing.assert_close(rows.teacher_at_student[c], teacher.gather(-1, top.indices), rtol=1e-6, atol=1e-6)
                            if subset == "teacher":
                                torch.testing.assert_close(rows.student_at_teacher[c], student.gather(-1, native.indices), rtol=1e-6, atol=1e-6)
                        self.assertEqual(rows.teacher_at_student is None, subset != "student")
                        self.assertEqual(rows.student_at_teacher is None, subset != "teacher")

    def test_candidates_must_end_with_the_response(self):
        bad = hybrid_batch()
        bad.samples[0].arrays["hintCandidateTokens"][-1] = 0
        with self.assertRaisesRegex(ValueError, "hint candidate 2 .* does not end with the sample's 2-token response"):
            rollout.build_samples(bad)
        uneven = hybrid_batch()
        uneven.samples[1].header["candidateLengths"] = [4]
        with self.assertRaisesRegex(RuntimeError, "candidateLengths summing to 4 for 5 hintCandidateTokens"):
            rollout.build_samples(uneven)
        partial = hybrid_batch()
        del partial.samples[2].arrays["hintCandidateTokens"]
        with self.assertRaisesRegex(RuntimeError, "only 2 of 3 samples carry hintCandidateTokens"):
            rollout.build_samples(partial)

    def test_a_teacher_of_another_size_is_refused_by_name(self):
        with self.assertRaisesRegex(slime_teacher.TrainerTeacherError, "--prm-teacher-load /ckpt/8b: a teacher of another size than the student is not built"):
            slime_teacher.install(args(prm_teacher_load="/ckpt/8b"), actor_class=type("Actor", (), {"train_actor": lambda self, rollout_id, rollout_data: None}))

    def test_the_hybrid_loss_without_the_trainer_teacher_is_refused_at_install(self):
        from argparse import Namespace

        with self.assertRaisesRegex(slime_teacher.TrainerTeacherError, "the hybrid loss needs the trainer's teacher for its rows; openclaw_rl_teacher is 'engine'"):
            trainer_hooks.install(Namespace(openclaw_rl_teacher="engine", custom_loss_function_path="openclaw_rl.losses.hybrid_loss_function"))

    def test_the_candidates_key_leaves_other_inputs(self):
        data = {"multimodal_train_inputs": [{"pixel_values": torch.ones(1), teacher_carriage.CANDIDATES_KEY: [torch.tensor([1, 2])]}]}
        self.assertEqual([c.tolist() for c in teacher_carriage.take_candidates(data)[0]], [[1, 2]])
        self.assertEqual(list(data["multimodal_train_inputs"][0]), ["pixel_values"])


if __name__ == "__main__":
    unittest.main()
