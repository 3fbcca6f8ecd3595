"""Loss math and the custom-loss adapters on CPU torch against float64 references written from the formulas
(plain Python math per token). slime/Megatron helpers are replaced by small fakes of their contracts."""

from __future__ import annotations

import asyncio
import math
import sys
import types
import unittest
from types import SimpleNamespace

import torch

from openclaw_rl import loss_math, losses, shims


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


# ---- fakes of slime's helpers (contract: slime/backends/megatron_utils/loss.py, utils/ppo_utils.py) ---------

def _response_logits(logits, total_lengths, response_lengths):
    start = 0
    for total, length in zip(total_lengths, response_lengths):
        yield logits[0, start + total - length - 1 : start + total - 1]
        start += total


def fake_get_responses(logits, *, args, unconcat_tokens, total_lengths, response_lengths, max_seq_lens=None):
    for chunk, tokens in zip(_response_logits(logits, total_lengths, response_lengths), unconcat_tokens):
        yield chunk, tokens[-chunk.shape[0] :]


def fake_get_log_probs_and_entropy(logits, *, args, unconcat_tokens, total_lengths, response_lengths, with_entropy=False, max_seq_lens=None):
    log_probs, entropy = [], []
    for chunk, tokens in fake_get_responses(logits, args=args, unconcat_tokens=unconcat_tokens, total_lengths=total_lengths, response_lengths=response_lengths):
        table = torch.log_softmax(chunk.float(), dim=-1)
        log_probs.append(table.gather(-1, tokens.long().unsqueeze(-1)).squeeze(-1))
        entropy.append(-(table.exp() * table).sum(-1))
    result = {"log_probs": log_probs}
    if with_entropy:
        result["entropy"] = entropy
    return torch.empty(0), result


def fake_compute_log_probs(logits, tokens, tp_group):
    return torch.log_softmax(logits.float(), dim=-1).gather(-1, tokens.long().unsqueeze(-1))


FAKE_MODULES = {
    "slime": {},
    "slime.backends": {},
    "slime.backends.megatron_utils": {},
    "slime.backends.megatron_utils.loss": {"get_responses": fake_get_responses, "get_log_probs_and_entropy": fake_get_log_probs_and_entropy},
    "slime.utils": {},
    "slime.utils.ppo_utils": {"compute_log_probs": fake_compute_log_probs},
    "megatron": {},
    "megatron.core": {"mpu": SimpleNamespace(get_tensor_model_parallel_group=lambda: None)},
}


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

    def test_sum_of_sample_mean_with_masks(self):
        values = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        masks = [torch.tensor([1, 0, 1]), torch.tensor([0, 0]), torch.tensor([1])]
        got = loss_math.sum_of_sample_mean(values, [3, 2, 1], masks)
        self.assertAlmostEqual(got.item(), ref_sum_of_sample_mean(values.tolist(), [3, 2, 1], [m.tolist() for m in masks]))
        self.assertAlmostEqual(got.item(), 2.0 + 0.0 + 6.0)


class AdapterTest(unittest.TestCase):
    """The adapters wired to fakes of slime's helpers: values against float64 references, gradients."""

    def setUp(self):
        self.saved = {name: sys.modules.get(name) for name in FAKE_MODULES}
        for name, attributes in FAKE_MODULES.items():
            module = types.ModuleType(name)
            module.__dict__.update(attributes)
            sys.modules[name] = module

    def tearDown(self):
        for name, module in self.saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module

    def make_batch(self, masks, vocab=11, seed=2, topk=0):
        torch.manual_seed(seed)
        response_lengths = [len(mask) for mask in masks]
        total_lengths = [length + 3 for length in response_lengths]
        tokens = [torch.randint(0, vocab, (total,)) for total in total_lengths]
        logits = torch.randn(1, sum(total_lengths), vocab, requires_grad=True)
        batch = {
            "unconcat_tokens": tokens,
            "total_lengths": total_lengths,
            "response_lengths": response_lengths,
            "loss_masks": [torch.tensor(mask, dtype=torch.float32) for mask in masks],
            "advantages": [torch.full((length,), float(reward)) for length, reward in zip(response_lengths, [1, -1, 0, 1])],
            "log_probs": [torch.randn(length) * 0.3 - 2.0 for length in response_lengths],
            "rollout_log_probs": [torch.randn(length) * 0.3 - 2.0 for length in response_lengths],
            "teacher_log_probs": [torch.randn(length) * 0.3 - 1.5 for length in response_lengths],
        }
        if topk:
            teacher_full = torch.log_softmax(torch.randn(sum(response_lengths), vocab), -1)
            values, indices = teacher_full.topk(topk, dim=-1)
            batch["teacher_topk_log_probs"] = list(values.split(response_lengths))
            batch["teacher_topk_indices"] = list(indices.split(response_lengths))
        reducer = lambda values: loss_math.sum_of_sample_mean(values, response_lengths, batch["loss_masks"])  # noqa: E731
        return batch, logits, reducer

    def new_log_probs_reference(self, batch, logits):
        out = []
        start = 0
        for total, length, tokens in zip(batch["total_lengths"], batch["response_lengths"], batch["unconcat_tokens"]):
            for position in range(length):
                row = ref_log_softmax(logits[0, start + total - length - 1 + position].double().tolist())
                out.append(row[tokens[total - length + position].item()])
            start += total
        return out

    def combine_reference(self, batch, logits, w_opd, w_rl, eps=0.2, eps_high=0.28):
        new = self.new_log_probs_reference(batch, logits)
        old = torch.cat(batch["log_probs"]).double().tolist()
        teacher = torch.cat(batch["teacher_log_probs"]).double().tolist()
        reward = torch.cat(batch["advantages"]).double().tolist()
        per_token = [ref_policy(o - n, w_opd * (t - o) + w_rl * r, eps, eps_high)[0] for n, o, t, r in zip(new, old, teacher, reward)]
        return ref_sum_of_sample_mean(per_token, batch["response_lengths"], [m.tolist() for m in batch["loss_masks"]])

    def args(self, **overrides):
        base = dict(eps_clip=0.2, eps_clip_high=0.28, entropy_coef=0.0, use_kl_loss=False, use_rollout_logprobs=False, openclaw_rl_w_opd=1.0, openclaw_rl_w_rl=1.0)
        base.update(overrides)
        return SimpleNamespace(**base)

    def test_combine_loss_matches_reference_and_has_gradients(self):
        for w_opd, w_rl in ((1.0, 1.0), (0.0, 1.0), (1.0, 0.0), (0.5, 2.0)):
            batch, logits, reducer = self.make_batch([[1, 1, 0, 1], [1, 1], [0, 0, 0], [1]])
            loss, reported = losses.combine_loss_function(self.args(openclaw_rl_w_opd=w_opd, openclaw_rl_w_rl=w_rl), batch, logits, reducer)
            self.assertAlmostEqual(loss.item(), self.combine_reference(batch, logits, w_opd, w_rl), places=4, msg=f"w_opd={w_opd} w_rl={w_rl}")
            for name in ("loss", "pg_loss", "entropy_loss", "pg_clipfrac", "ppo_kl", "train_rollout_logprob_abs_diff"):
                self.assertEqual(reported[name].dim(), 0, name)
            loss.backward()
            self.assertGreater(logits.grad.abs().sum().item(), 0.0)
            # tokens of the all-zero-mask sample (the third) get no gradient
            third = slice(7 + 5, 7 + 5 + 6)
            self.assertEqual(logits.grad[0, third].abs().sum().item(), 0.0)

    def test_combine_all_zero_masks_and_kl_term(self):
        batch, logits, reducer = self.make_batch([[0, 0], [0, 0, 0]])
        loss, _ = losses.combine_loss_function(self.args(), batch, logits, reducer)
        self.assertEqual(loss.item(), 0.0)
        loss.backward()
        self.assertEqual(logits.grad.abs().sum().item(), 0.0)
        batch, logits, reducer = self.make_batch([[1, 1], [1, 0, 1]])
        batch["ref_log_probs"] = [torch.full((length,), -2.0) for length in batch["response_lengths"]]
        args = self.args(use_kl_loss=True, kl_loss_coef=0.5, kl_loss_type="low_var_kl")
        loss, reported = losses.combine_loss_function(args, batch, logits, reducer)
        new = self.new_log_probs_reference(batch, logits)
        kl = ref_sum_of_sample_mean([min(math.exp(-(n + 2.0)) - 1 + (n + 2.0), 10.0) for n in new], batch["response_lengths"], [m.tolist() for m in batch["loss_masks"]])
        self.assertAlmostEqual(reported["kl_loss"].item(), kl, places=4)
        self.assertAlmostEqual(loss.item(), self.combine_reference(batch, logits, 1.0, 1.0) + 0.5 * kl, places=4)

    def test_topk_loss_matches_reference_and_has_gradients(self):
        batch, logits, reducer = self.make_batch([[1, 1, 1], [1, 0], [1, 1, 1, 1]], topk=4)
        loss, reported = losses.topk_distillation_loss_function(SimpleNamespace(openclaw_rl_topk=3, entropy_coef=0.0), batch, logits, reducer)
        student_rows = []
        start = 0
        for total, length in zip(batch["total_lengths"], batch["response_lengths"]):
            for position in range(length):
                student_rows.append(ref_log_softmax(logits[0, start + total - length - 1 + position].double().tolist()))
            start += total
        teacher = torch.cat(batch["teacher_topk_log_probs"]).double()
        indices = torch.cat(batch["teacher_topk_indices"])
        per_token = [ref_reverse_kl([row[i] for i in indices[t, :3].tolist()], teacher[t, :3].tolist()) for t, row in enumerate(student_rows)]
        want = ref_sum_of_sample_mean(per_token, batch["response_lengths"], [m.tolist() for m in batch["loss_masks"]])
        self.assertAlmostEqual(loss.item(), want, places=4)
        self.assertEqual(set(reported), {"loss", "kl_loss", "entropy_loss"})
        loss.backward()
        self.assertGreater(logits.grad.abs().sum().item(), 0.0)

    def test_topk_k_falls_back_to_distill_topk_and_checks_inputs(self):
        batch, logits, reducer = self.make_batch([[1, 1]], topk=2)
        loss, _ = losses.topk_distillation_loss_function(SimpleNamespace(distill_topk=2, entropy_coef=0.1), batch, logits, reducer)
        self.assertTrue(torch.isfinite(loss).item())
        with self.assertRaisesRegex(ValueError, "K=3"):
            losses.topk_distillation_loss_function(SimpleNamespace(openclaw_rl_topk=3, entropy_coef=0.0), batch, logits, reducer)
        with self.assertRaisesRegex(ValueError, "openclaw_rl_topk"):
            losses.topk_distillation_loss_function(SimpleNamespace(entropy_coef=0.0), batch, logits, reducer)
        del batch["teacher_topk_log_probs"]
        with self.assertRaisesRegex(ValueError, "without teacher_topk"):
            losses.topk_distillation_loss_function(SimpleNamespace(openclaw_rl_topk=2, entropy_coef=0.0), batch, logits, reducer)


class ShimTest(unittest.TestCase):
    def test_reward_returns_score_and_generate_refuses(self):
        sample = SimpleNamespace(reward={"score": -1})
        self.assertEqual(asyncio.run(shims.reward(None, sample)), {"score": -1.0})
        self.assertEqual(asyncio.run(shims.reward(None, [sample, SimpleNamespace(reward=None)])), [{"score": -1.0}, {"score": 0.0}])
        with self.assertRaisesRegex(RuntimeError, "generate_rollout"):
            asyncio.run(shims.generate(None, sample, {}))


if __name__ == "__main__":
    unittest.main()
