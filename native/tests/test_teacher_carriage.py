"""build_samples on each fake slime: teacher arrays set the way that slime's Sample carries them, and found (or
refused) by that slime's converter (the fake RolloutManager._convert_samples_to_train_data)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import unittest

import torch

from openclaw_rl import rollout, teacher_carriage
from openclaw_rl.slime_types import carried_teacher_arrays, slime_types

from .slime_fakes import fake_slime
from .training_batch import decoded_batch

MASKS = [[1, 1, 0], [1, 1, 1, 1]]


def convert(samples: list) -> dict:
    from slime.ray.rollout import RolloutManager

    return RolloutManager(None)._convert_samples_to_train_data(samples)


class TeacherCarriageTest(unittest.TestCase):
    def test_the_carrier_is_a_key_both_slimes_pass_through(self):
        fixtures = os.path.join(os.path.dirname(__file__), "fixtures")
        with open(os.path.join(fixtures, "slime_signatures.json"), encoding="utf-8") as fixture:
            signatures = json.load(fixture)["flavours"]
        with open(os.path.join(fixtures, "slime_actor.json"), encoding="utf-8") as fixture:
            actors = json.load(fixture)["flavours"]
        for name, actor in actors.items():
            key = actor["facts"]["carriage_converter"].split()[0]
            self.assertIn(key, signatures[name]["batch"]["requested_keys"], name)
            self.assertIn(f'"{key}"', inspect.getsource(teacher_carriage), name)

    def test_fork_sample_takes_teacher_arrays_as_attributes(self):
        with fake_slime("fork"):
            sample_class, _, real = slime_types()
            self.assertTrue(real)
            self.assertEqual(sample_class.__module__, "slime.utils.types")
            self.assertNotIn("teacher_log_probs", {item.name for item in dataclasses.fields(sample_class)})
            self.assertEqual(carried_teacher_arrays(sample_class), {"teacher_log_probs", "teacher_topk_log_probs", "teacher_topk_indices"})

            batch = decoded_batch([2, 3], MASKS, vocab=9, topk=3)
            samples = rollout.build_samples(batch)
            for sample, decoded in zip(samples, batch.samples):
                self.assertIsInstance(sample, sample_class)
                self.assertIn("teacher_log_probs", sample.__dict__)
                self.assertTrue(torch.equal(sample.teacher_log_probs, decoded.arrays["teacherLogProbs"]))
                self.assertEqual(sample.teacher_topk_log_probs.dtype, torch.float32)
                self.assertEqual(sample.teacher_topk_indices.dtype, torch.int64)
                self.assertEqual(tuple(sample.teacher_topk_indices.shape), (len(decoded.arrays["lossMask"]), 3))
            train_data = convert(samples)
            for name in ("teacher_log_probs", "teacher_topk_log_probs", "teacher_topk_indices"):
                self.assertEqual(len(train_data[name]), 2, name)
            self.assertTrue(torch.equal(train_data["teacher_topk_indices"][1], samples[1].teacher_topk_indices))

            without = rollout.build_samples(decoded_batch([2, 3], MASKS, vocab=9, teacher=False))
            self.assertNotIn("teacher_log_probs", without[0].__dict__)
            self.assertNotIn("teacher_log_probs", convert(without))

    def test_upstream_sample_fills_its_declared_field(self):
        with fake_slime("upstream"):
            sample_class, _, real = slime_types()
            self.assertTrue(real)
            self.assertIn("teacher_log_probs", {item.name for item in dataclasses.fields(sample_class)})
            self.assertEqual(carried_teacher_arrays(sample_class), {"teacher_log_probs"})

            batch = decoded_batch([2, 3], MASKS, vocab=9)
            samples = rollout.build_samples(batch)
            for sample, decoded in zip(samples, batch.samples):
                self.assertIsInstance(sample, sample_class)
                self.assertTrue(torch.equal(sample.teacher_log_probs, decoded.arrays["teacherLogProbs"]))
            train_data = convert(samples)
            self.assertEqual([values.tolist() for values in train_data["teacher_log_probs"]], [sample.teacher_log_probs.tolist() for sample in samples])

            without = rollout.build_samples(decoded_batch([2, 3], MASKS, vocab=9, teacher=False))
            self.assertIsNone(without[0].teacher_log_probs)
            self.assertNotIn("teacher_log_probs", convert(without))

    def test_upstream_refuses_top_k_arrays_its_converter_would_drop(self):
        with fake_slime("upstream"):
            sample_class, _, _ = slime_types()
            # what the refusal prevents: upstream's converter leaves top-K attributes behind
            sample = sample_class(tokens=[4, 5, 6], response_length=2, loss_mask=[1, 1], teacher_log_probs=torch.zeros(2))
            sample.teacher_topk_log_probs = torch.zeros(2, 3)
            self.assertEqual([key for key in convert([sample]) if key.startswith("teacher")], ["teacher_log_probs"])

            batch = decoded_batch([2, 3], MASKS, vocab=9, topk=3)
            with self.assertRaisesRegex(RuntimeError, r"teacher_topk_indices, teacher_topk_log_probs.*declares teacher_log_probs.*opd\.topk: 0"):
                rollout.build_samples(batch)

    def test_stand_in_sample_carries_like_the_fork(self):
        sample_class, _, real = slime_types()
        self.assertFalse(real)
        self.assertEqual(len(carried_teacher_arrays(sample_class)), 3)


if __name__ == "__main__":
    unittest.main()
