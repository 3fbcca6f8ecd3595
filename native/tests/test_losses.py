"""loss_math on CPU torch against float64 references written from the formulas (plain Python math per token), and
the rollout shims. The loss adapters against fake slimes are in test_loss_adapters.py."""

from __future__ import annotations

import asyncio
import math
import unittest
from types import SimpleNamespace

import torch

from openclaw_rl import loss_math, shims


# ---- float64 references from the formulas -------------------------------------------------------------------

def ref_policy(ppo_kl, advantage, eps, eps_high):
    ratio = math.exp(-ppo_kl)
    unclipped = -ratio * advantage
    clipped = -min(max(ratio, 1 - eps), 1 + eps_high) * advantage
    return max(unclipped, clipped), 1.0 if clipped > unclipped else 0.0


def ref_log_softmax(row):
    top = max(row)
    total = sum(math.exp(value - top) for value in row)
    return [value - top - math.log(total) for value in row]


def ref_bins(topk):
    covered = min(math.log(sum(math.exp(v) for v in topk)), -1e-7)
    return list(topk) + [math.log(1 - math.exp(covered))]


def ref_reverse_kl(student_topk, teacher_topk):
    student, teacher = ref_bins(student_topk), ref_bins(teacher_topk)
    return sum(math.exp(s) * (s - t) for s, t in zip(student, teacher))


def ref_sum_of_sample_mean(per_token, lengths, masks):
    total, start = 0.0, 0
    for length, mask in zip(lengths, masks):
        weighted = sum(per_token[start + t] * mask[t] for t in range(length))
        total += weighted / max(sum(mask), 1)
        start += length
    return total


class LossMathTest(unittest.TestCase):
    def test_policy_loss_matches_reference_with_asymmetric_clip(self):
        torch.manual_seed(0)
        ppo_kl = torch.randn(64) * 0.5
        advantages = torch.randn(64)
        loss, clipped = loss_math.policy_loss(ppo_kl, advantages, 0.2, 0.28)
        for index in range(64):
            want, want_clip = ref_policy(ppo_kl[index].item(), advantages[index].item(), 0.2, 0.28)
            self.assertAlmostEqual(loss[index].item(), want, places=5)
            self.assertEqual(clipped[index].item(), want_clip)
        self.assertGreater(clipped.sum().item(), 0)  # the sample exercises clipping

    def test_combined_advantage_weights(self):
        reward = torch.tensor([1.0, 1.0, -1.0])
        teacher = torch.tensor([-0.5, -1.0, -2.0])
        old = torch.tensor([-1.0, -1.0, -1.0])
        self.assertEqual(loss_math.combined_advantages(reward, teacher, old, 1.0, 1.0).tolist(), [1.5, 1.0, -2.0])
        self.assertEqual(loss_math.combined_advantages(reward, teacher, old, 1.0, 0.0).tolist(), [0.5, 0.0, -1.0])
        self.assertEqual(loss_math.combined_advantages(reward, teacher, old, 0.0, 2.0).tolist(), [2.0, 2.0, -2.0])
        self.assertEqual(loss_math.combined_advantages(reward, None, old, 1.0, 1.0).tolist(), [1.0, 1.0, -1.0])
        # RL-only sample in a combine batch: teacher = rollout log-probs, so only the reward term is left
        self.assertEqual(loss_math.combined_advantages(reward, old, old, 1.0, 1.0).tolist(), reward.tolist())

    def test_approx_kl_estimators(self):
        new, base = torch.tensor([-1.0, -2.0, -0.1, 30.0]), torch.tensor([-1.5, -1.0, -0.1, 0.0])
        for kind in ("k1", "k2", "k3", "low_var_kl"):
            values = loss_math.approx_kl(new, base, kind)
            for index in range(3):
                r = new[index].item() - base[index].item()
                want = {"k1": r, "k2": r * r / 2, "k3": math.exp(-r) - 1 + r, "low_var_kl": math.exp(-r) - 1 + r}[kind]
                self.assertAlmostEqual(values[index].item(), want, places=5)
        self.assertEqual(loss_math.approx_kl(new, base, "low_var_kl")[3].item(), 10.0)  # clamped
        with self.assertRaises(ValueError):
            loss_math.approx_kl(new, base, "k9")

    def test_tail_bin_makes_a_distribution(self):
        topk = torch.log(torch.tensor([[0.5, 0.2, 0.1], [0.6, 0.3, 0.1 - 1e-12]], dtype=torch.float64))
        bins = loss_math.with_tail(topk)
        self.assertEqual(tuple(bins.shape), (2, 4))
        self.assertTrue(torch.allclose(bins.exp().sum(-1), torch.ones(2, dtype=torch.float64)))
        self.assertAlmostEqual(bins[0, 3].exp().item(), 0.2, places=9)
        # top-K covering all the mass: clamped at -1e-7, tail finite (~log 1e-7)
        self.assertTrue(torch.isfinite(bins[1, 3]).item())
        self.assertAlmostEqual(bins[1, 3].item(), math.log(1 - math.exp(-1e-7)), places=3)

    def test_topk_reverse_kl_matches_reference(self):
        torch.manual_seed(1)
        vocab = torch.randn(5, 40, dtype=torch.float64)
        student_full = torch.log_softmax(vocab, -1)
        teacher_full = torch.log_softmax(vocab + torch.randn(5, 40, dtype=torch.float64), -1)
        teacher_topk, indices = teacher_full.topk(6, dim=-1)
        student_topk = student_full.gather(-1, indices)
        kl = loss_math.topk_reverse_kl(student_topk, teacher_topk)
        for row in range(5):
            self.assertAlmostEqual(kl[row].item(), ref_reverse_kl(student_topk[row].tolist(), teacher_topk[row].tolist()), places=9)
            self.assertGreaterEqual(kl[row].item(), 0.0)
        self.assertTrue(torch.allclose(loss_math.topk_reverse_kl(teacher_topk, teacher_topk), torch.zeros(5, dtype=torch.float64)))

    def test_gather_log_probs_and_entropy_at_temperature(self):
        torch.manual_seed(3)
        logits = torch.randn(4, 9, dtype=torch.float64)
        indices = torch.randint(0, 9, (4, 2))
        got = loss_math.gather_log_probs(logits, indices, 0.6)
        entropy = loss_math.softmax_entropy(logits, 0.6)
        self.assertEqual(got.dtype, torch.float64)  # a float64 reference stays float64
        for row in range(4):
            table = ref_log_softmax([value / 0.6 for value in logits[row].tolist()])
            for column in range(2):
                self.assertAlmostEqual(got[row, column].item(), table[indices[row, column].item()], places=12)
            self.assertAlmostEqual(entropy[row].item(), -sum(math.exp(value) * value for value in table), places=12)
        self.assertEqual(loss_math.gather_log_probs(logits.half(), indices).dtype, torch.float32)

    def test_sum_of_sample_mean_with_masks(self):
        values = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        masks = [torch.tensor([1, 0, 1]), torch.tensor([0, 0]), torch.tensor([1])]
        got = loss_math.sum_of_sample_mean(values, [3, 2, 1], masks)
        self.assertAlmostEqual(got.item(), ref_sum_of_sample_mean(values.tolist(), [3, 2, 1], [m.tolist() for m in masks]))
        self.assertAlmostEqual(got.item(), 2.0 + 0.0 + 6.0)


class ShimTest(unittest.TestCase):
    def test_reward_returns_score_and_generate_refuses(self):
        sample = SimpleNamespace(reward={"score": -1})
        self.assertEqual(asyncio.run(shims.reward(None, sample)), {"score": -1.0})
        self.assertEqual(asyncio.run(shims.reward(None, [sample, SimpleNamespace(reward=None)])), [{"score": -1.0}, {"score": 0.0}])
        with self.assertRaisesRegex(RuntimeError, "generate_rollout"):
            asyncio.run(shims.generate(None, sample, {}))


if __name__ == "__main__":
    unittest.main()
