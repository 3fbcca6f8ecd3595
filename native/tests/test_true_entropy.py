"""The policy's true entropy (openclaw_rl_entropy) that every openclaw_rl loss reports, against the float64 reference,
and the fork's fault it stands in for: slime's own policy_loss_function (the fake mirrors loss.py:562-793) reports
the entropy of the softmax Megatron's cross entropy wrote into the logits when it has no entropy term."""

from __future__ import annotations

import unittest

import torch

from openclaw_rl import loss_math, rollout

from . import loss_reference
from .loss_device import chosen_device, tolerance
from .slime_fakes import fake_slime, import_losses, signatures
from .training_batch import decoded_batch, logits_for, micro_batch, response_rows, slime_args

VOCAB = 11
PROMPTS = [2, 3, 1]
MASKS = [[1, 1, 1, 0], [1, 0, 1], [1, 1, 1, 1, 1]]


class TrueEntropyTest(unittest.TestCase):
    def setUp(self):
        self.device = chosen_device()
        self.tolerance = tolerance(self.device)
        self.signatures = signatures()["flavours"]["fork"]

    def prepare(self, layout: str = "thd", topk: int = 0, **overrides):
        """(args, batch, logits, reducer) as the fork hands them to a loss; call inside fake_slime("fork")."""
        from slime.ray.rollout import RolloutManager

        samples = rollout.build_samples(decoded_batch(PROMPTS, MASKS, VOCAB, topk=topk, seed=3))
        train_data = RolloutManager(None)._convert_samples_to_train_data(samples)
        generator = torch.Generator().manual_seed(11)
        lengths = [len(mask) for mask in MASKS]
        computed = {
            "log_probs": [torch.rand(length, generator=generator) * -3.0 for length in lengths],
            "advantages": [torch.full((length,), reward["score"]) for length, reward in zip(lengths, train_data["rewards"])],
        }
        batch = micro_batch(train_data, self.signatures, layout, self.device, computed)
        logits = logits_for(batch, layout, VOCAB, self.device, seed=5)
        reducer = lambda values: loss_math.sum_of_sample_mean(values, batch["response_lengths"], batch["loss_masks"])  # noqa: E731
        args = slime_args(self.signatures, layout, openclaw_rl_w_opd=0.0, openclaw_rl_w_rl=1.0, openclaw_rl_topk=3, **overrides)
        return args, batch, logits, reducer

    def reference_entropy(self, logits: torch.Tensor, batch: dict, layout: str, temperature: float) -> float:
        rows = response_rows(loss_reference.reference_logits(logits), batch, layout)
        masks = [mask.cpu().double() for mask in batch["loss_masks"]]
        entropy = torch.cat([loss_math.softmax_entropy(row.detach(), temperature) for row in rows])
        return loss_math.sum_of_sample_mean(entropy, batch["response_lengths"], masks).item()

    def assertNear(self, got: float, want: float, what: str):
        self.assertLessEqual(abs(got - want), self.tolerance * (1 + abs(want)), f"{what}: {got} vs {want}")

    def test_the_fork_policy_loss_reports_a_wrong_entropy_and_ours_reports_the_true_one(self):
        for layout in ("thd", "bshd"):
            for temperature in (0.6, 1.0):
                with self.subTest(layout=layout, temperature=temperature), fake_slime("fork"):
                    from slime.backends.megatron_utils.loss import policy_loss_function as slime_policy_loss

                    args, batch, logits, reducer = self.prepare(layout, rollout_temperature=temperature)
                    want = self.reference_entropy(logits, batch, layout, temperature)
                    slime_logits = logits.detach().clone().requires_grad_(True)
                    slime_loss, slime_reported = slime_policy_loss(args, batch, slime_logits, reducer)
                    # the fault: the entropy of the in-place softmax, far from the policy's
                    self.assertGreater(abs(slime_reported["entropy_loss"].item() - want), 0.1, "the fake no longer shows the fork's fault")

                    loss, reported = import_losses().policy_loss_function(args, batch, logits, reducer)
                    self.assertNear(reported["openclaw_rl_entropy"].item(), want, f"{layout} T={temperature}: openclaw_rl_entropy")
                    self.assertEqual(reported["openclaw_rl_entropy"].dim(), 0)
                    self.assertEqual(set(reported), set(slime_reported) | {"openclaw_rl_entropy"})
                    for key, value in slime_reported.items():
                        self.assertNear(reported[key].item(), value.item(), f"slime's own {key} is passed on unchanged")
                    loss.backward()
                    slime_loss.backward()
                    self.assertLessEqual((logits.grad - slime_logits.grad).abs().max().item(), self.tolerance, "the gradient is slime's own")

    def test_with_an_entropy_term_slime_is_right_and_nothing_is_added(self):
        with fake_slime("fork"):
            args, batch, logits, reducer = self.prepare(entropy_coef=0.01)
            loss, reported = import_losses().policy_loss_function(args, batch, logits, reducer)
        self.assertNotIn("openclaw_rl_entropy", reported)
        self.assertNear(reported["entropy_loss"].item(), self.reference_entropy(logits, batch, "thd", 0.6), "slime's entropy_loss with grad")

    def test_combine_and_topk_report_the_true_entropy_with_and_without_grad(self):
        for name in ("combine", "topk"):
            for grad in (True, False):
                with self.subTest(loss=name, grad=grad), fake_slime("fork"):
                    args, batch, logits, reducer = self.prepare(topk=4 if name == "topk" else 0)
                    losses = import_losses()
                    function = losses.topk_distillation_loss_function if name == "topk" else losses.combine_loss_function
                    with torch.set_grad_enabled(grad):
                        _, reported = function(args, batch, logits, reducer)
                    self.assertNear(reported["openclaw_rl_entropy"].item(), self.reference_entropy(logits, batch, "thd", 0.6), f"{name}: openclaw_rl_entropy")

    def test_policy_loss_refuses_a_slime_without_one_naming_it(self):
        from openclaw_rl.slime_api import SlimeApiMismatch

        with fake_slime("fork"):
            args, batch, logits, reducer = self.prepare()
        with fake_slime("upstream"), self.assertRaises(SlimeApiMismatch) as caught:
            import_losses().policy_loss_function(args, batch, logits, reducer)
        self.assertIn("policy_loss_function", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
