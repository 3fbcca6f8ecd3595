"""The custom losses run against each fake slime (tests/fakes/fork, tests/fakes/upstream) on the device that
OPENCLAW_RL_TEST_DEVICE names, from a bridge batch through build_samples and the fake's converter, and compared with
the float64 CPU reference built from loss_math (values and gradients)."""

from __future__ import annotations

import unittest

import torch

from openclaw_rl import loss_math, rollout

from . import loss_reference
from .loss_device import chosen_device, tolerance
from .slime_fakes import FLAVOURS, fake_slime, import_losses, signatures
from .training_batch import decoded_batch, logits_for, micro_batch, response_rows, slime_args

VOCAB = 13
PROMPTS = [3, 2, 4, 1]
MASKS = [[1, 1, 0, 1], [1, 1], [0, 0, 0], [1, 0, 1, 1, 1]]
LAYOUTS = {"fork": ("thd", "bshd"), "upstream": ("thd",)}  # upstream slime packs thd only
WEIGHTS = {"binary (PPO on the reward)": (0.0, 1.0), "opd (teacher - old)": (1.0, 0.0), "combine": (1.0, 1.0), "combine, weighted": (0.5, 2.0)}


class LossAdapterTest(unittest.TestCase):
    def setUp(self):
        self.device = chosen_device()
        self.tolerance = tolerance(self.device)
        self.signatures = signatures()["flavours"]

    def prepare(self, flavour: str, layout: str, topk: int = 0, seed: int = 0):
        """(batch, logits, reducer) as slime would hand them to the loss; call inside fake_slime(flavour)."""
        from slime.ray.rollout import RolloutManager

        samples = rollout.build_samples(decoded_batch(PROMPTS, MASKS, VOCAB, topk=topk, seed=seed))
        train_data = RolloutManager(None)._convert_samples_to_train_data(samples)
        generator = torch.Generator().manual_seed(seed + 7)
        lengths = [len(mask) for mask in MASKS]
        computed = {
            "log_probs": [torch.rand(length, generator=generator) * -3.0 for length in lengths],
            "advantages": [torch.full((length,), reward["score"]) for length, reward in zip(lengths, train_data["rewards"])],
            "ref_log_probs": [torch.rand(length, generator=generator) * -3.0 for length in lengths],
        }
        batch = micro_batch(train_data, self.signatures[flavour], layout, self.device, computed)
        logits = logits_for(batch, layout, VOCAB, self.device, seed=seed + 1)
        masks = batch["loss_masks"]
        reducer = lambda values: loss_math.sum_of_sample_mean(values, batch["response_lengths"], masks)  # noqa: E731
        return batch, logits, reducer

    def assertClose(self, got: torch.Tensor, want: torch.Tensor, what: str):
        self.assertEqual(got.dim(), 0, f"{what} is reported as a 0-d tensor")
        self.assertEqual(got.device.type, self.device.type, what)
        self.assertLessEqual(abs(got.item() - want.item()), self.tolerance * (1 + abs(want.item())), f"{what}: {got.item()} vs reference {want.item()}")

    def assertGradientClose(self, logits: torch.Tensor, reference: torch.Tensor, what: str):
        got = logits.grad.detach().cpu().double()
        self.assertGreater(reference.grad.abs().sum().item(), 0.0, what)
        self.assertLessEqual((got - reference.grad).abs().max().item(), self.tolerance * 10, f"{what}: gradient differs from the reference")

    def run_combine(self, flavour: str, layout: str, **overrides):
        batch, logits, reducer = self.prepare(flavour, layout)
        args = slime_args(self.signatures[flavour], layout, **{"openclaw_rl_w_opd": 1.0, "openclaw_rl_w_rl": 1.0, **overrides})
        loss, reported = import_losses().combine_loss_function(args, batch, logits, reducer)
        reference_logits = loss_reference.reference_logits(logits)
        want = loss_reference.combine(reference_logits, batch, layout, args)
        return batch, logits, loss, reported, reference_logits, want

    def test_binary_opd_and_combine_match_the_reference_on_each_slime(self):
        for flavour in FLAVOURS:
            for layout in LAYOUTS[flavour]:
                for name, (w_opd, w_rl) in WEIGHTS.items():
                    with self.subTest(flavour=flavour, layout=layout, loss=name), fake_slime(flavour):
                        batch, logits, loss, reported, reference_logits, want = self.run_combine(flavour, layout, openclaw_rl_w_opd=w_opd, openclaw_rl_w_rl=w_rl)
                        for metric in ("loss", "pg_loss", "entropy_loss", "pg_clipfrac", "ppo_kl"):
                            self.assertClose(reported[metric], want[metric], f"{flavour}/{layout}/{name}: {metric}")
                        self.assertIn("train_rollout_logprob_abs_diff", reported)
                        loss.backward()
                        want["loss"].backward()
                        self.assertGradientClose(logits, reference_logits, f"{flavour}/{layout}/{name}")
                        # the third sample's mask is all zero: its response rows get no gradient
                        self.assertEqual(response_rows(logits.grad, batch, layout)[2].abs().sum().item(), 0.0)

    def test_truncated_importance_sampling_matches_slimes_on_each_slime(self):
        """--use-tis (training.mismatch_correction: tis): the combine loss weighs each token as slime's policy loss does."""
        for flavour in FLAVOURS:
            for layout in LAYOUTS[flavour]:
                with self.subTest(flavour=flavour, layout=layout), fake_slime(flavour):
                    # a clip that cuts some tokens and not others: the prepared log-probs are 0 to 3 nats from the rollout's
                    extra = dict(use_tis=True, tis_clip=1.5, tis_clip_low=0.2)
                    _, logits, loss, reported, reference_logits, want = self.run_combine(flavour, layout, **extra)
                    for metric in ("loss", "pg_loss", "tis", "tis_clipfrac", "tis_abs"):
                        self.assertClose(reported[metric], want[metric], f"{flavour}/{layout}: {metric}")
                    # a sum of per-sample means over the three samples with trained tokens: 3 only if every token were clipped
                    self.assertGreater(want["tis_clipfrac"].item(), 0.0, "some weights are clipped")
                    self.assertLess(want["tis_clipfrac"].item(), 3.0, "some weights are not")
                    _, _, _, plain, _, _ = self.run_combine(flavour, layout)
                    self.assertNotAlmostEqual(plain["pg_loss"].item(), reported["pg_loss"].item(), places=4)
                    loss.backward()
                    want["loss"].backward()
                    self.assertGradientClose(logits, reference_logits, f"{flavour}/{layout} with TIS")

    def test_entropy_and_kl_terms_match_the_reference_on_each_slime(self):
        for flavour in FLAVOURS:
            layout = LAYOUTS[flavour][-1]
            with self.subTest(flavour=flavour, layout=layout), fake_slime(flavour):
                extra = dict(entropy_coef=0.01, use_kl_loss=True, kl_loss_coef=0.5, kl_loss_type="low_var_kl")
                _, logits, loss, reported, reference_logits, want = self.run_combine(flavour, layout, **extra)
                for metric in ("loss", "pg_loss", "entropy_loss", "kl_loss"):
                    self.assertClose(reported[metric], want[metric], f"{flavour}: {metric}")
                loss.backward()
                want["loss"].backward()
                self.assertGradientClose(logits, reference_logits, flavour)

    def test_topk_distillation_matches_the_reference_on_the_fork(self):
        for layout in LAYOUTS["fork"]:
            for entropy_coef in (0.0, 0.01):
                with self.subTest(layout=layout, entropy_coef=entropy_coef), fake_slime("fork"):
                    batch, logits, reducer = self.prepare("fork", layout, topk=5)
                    args = slime_args(self.signatures["fork"], layout, openclaw_rl_topk=4, entropy_coef=entropy_coef)
                    loss, reported = import_losses().topk_distillation_loss_function(args, batch, logits, reducer)
                    reference_logits = loss_reference.reference_logits(logits)
                    want = loss_reference.topk(reference_logits, batch, layout, args, 4)
                    self.assertEqual(set(reported), {"loss", "kl_loss", "entropy_loss", "openclaw_rl_entropy"})
                    for metric in ("loss", "kl_loss", "entropy_loss"):
                        self.assertClose(reported[metric], want[metric], f"top-K {layout}: {metric}")
                    loss.backward()
                    want["loss"].backward()
                    self.assertGradientClose(logits, reference_logits, f"top-K {layout}")

    def test_losses_without_grad_give_the_same_values(self):
        # slime's --recompute-loss-function runs the loss under torch.utils.checkpoint, first without grad; the fork's
        # compute_log_probs then writes its softmax into the logits it gets
        for flavour, name in (("fork", "topk"), ("fork", "combine"), ("upstream", "combine")):
            with self.subTest(flavour=flavour, loss=name), fake_slime(flavour):
                batch, logits, reducer = self.prepare(flavour, "thd", topk=5 if name == "topk" else 0)
                args = slime_args(self.signatures[flavour], "thd", openclaw_rl_topk=4, openclaw_rl_w_opd=1.0, openclaw_rl_w_rl=1.0)
                function = import_losses().topk_distillation_loss_function if name == "topk" else import_losses().combine_loss_function
                with torch.no_grad():
                    _, reported = function(args, batch, logits, reducer)
                reference_logits = loss_reference.reference_logits(logits)
                want = loss_reference.topk(reference_logits, batch, "thd", args, 4) if name == "topk" else loss_reference.combine(reference_logits, batch, "thd", args)
                for metric in want:
                    self.assertClose(reported[metric], want[metric], f"{flavour} {name} without grad: {metric}")

    def test_topk_loss_refuses_upstream_slime_naming_the_helper(self):
        from openclaw_rl.slime_api import SlimeApiMismatch

        with fake_slime("fork"):
            batch, logits, reducer = self.prepare("fork", "thd", topk=5)
        with fake_slime("upstream"):
            args = slime_args(self.signatures["upstream"], "thd", openclaw_rl_topk=4)
            with self.assertRaises(SlimeApiMismatch) as caught:
                import_losses().topk_distillation_loss_function(args, batch, logits, reducer)
        message = str(caught.exception)
        for part in ("compute_log_probs", "slime.utils.ppo_utils in", "fakes/upstream/slime/utils/ppo_utils.py", "slime/slime/utils/ppo_utils.py", "opd.topk: 0"):
            self.assertIn(part, message)


if __name__ == "__main__":
    unittest.main()
