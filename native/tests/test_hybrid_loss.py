"""openclaw_rl.losses.hybrid_loss_function against each fake slime, all 9 cells of selection × subset, compared
with the float64 hand computation of tests/hybrid_reference.py (values and gradients), and the vocab-parallel
log-probs on two gloo ranks."""

from __future__ import annotations

import os
import tempfile
import unittest

import torch

from openclaw_rl import hybrid_math, hybrid_rows, loss_math

from . import hybrid_reference, loss_reference
from .loss_device import chosen_device, tolerance
from .slime_fakes import FLAVOURS, fake_slime, import_losses, signatures
from .test_loss_adapters import LAYOUTS, MASKS, LossAdapterTest
from .training_batch import response_rows, slime_args

CANDIDATES = [3, 1, 2, 3]  # hint candidates per sample (the second: evaluation only, the un-enhanced prompt)
K = 4


class HybridLossTest(unittest.TestCase):
    def setUp(self):
        self.device = chosen_device()
        self.tolerance = tolerance(self.device)
        self.signatures = signatures()["flavours"]
        self.adapter = LossAdapterTest()
        self.adapter.setUp()

    def tearDown(self):
        hybrid_rows.clear()

    def run_cell(self, flavour, layout, selection, subset, **overrides):
        batch, logits, reducer = self.adapter.prepare(flavour, layout)
        rows = hybrid_reference.make_rows([len(mask) for mask in MASKS], CANDIDATES, logits.shape[-1], K, 0.6, seed=11)
        hybrid_rows.publish(batch["unconcat_tokens"], rows)
        values = dict(openclaw_rl_hybrid_selection=selection, openclaw_rl_hybrid_subset=subset, openclaw_rl_hybrid_clip=1.0, openclaw_rl_w_rl=1.0, openclaw_rl_w_opd=1.0)
        values.update(overrides)
        args = slime_args(self.signatures[flavour], layout, **values)
        loss, reported = import_losses().hybrid_loss_function(args, batch, logits, reducer)
        reference_logits = loss_reference.reference_logits(logits)
        masks = [mask.cpu().double() for mask in batch["loss_masks"]]
        reduce = lambda values: loss_math.sum_of_sample_mean(values, batch["response_lengths"], masks)  # noqa: E731
        hybrid_rows.publish(batch["unconcat_tokens"], rows)
        want = hybrid_reference.hybrid(reference_logits, batch, layout, rows, args, reduce)
        return batch, logits, loss, reported, reference_logits, want

    def test_nine_cells_match_the_hand_computation_on_each_slime(self):
        for flavour in FLAVOURS:
            for layout in LAYOUTS[flavour]:
                for selection in hybrid_math.SELECTIONS:
                    for subset in hybrid_math.SUBSETS:
                        with self.subTest(flavour=flavour, layout=layout, selection=selection, subset=subset), fake_slime(flavour):
                            batch, logits, loss, reported, reference_logits, want = self.run_cell(flavour, layout, selection, subset)
                            for metric in want:
                                self.adapter.assertClose(reported[metric], want[metric], f"{flavour}/{layout}/{selection}/{subset}: {metric}")
                            loss.backward()
                            want["loss"].backward()
                            self.adapter.assertGradientClose(logits, reference_logits, f"{flavour}/{layout}/{selection}/{subset}")
                            self.assertEqual(response_rows(logits.grad, batch, layout)[2].abs().sum().item(), 0.0)

    def test_the_cells_differ_where_the_choice_matters(self):
        with fake_slime("fork"):
            values = {(selection, subset): self.run_cell("fork", "thd", selection, subset)[3]["opd_loss"].item() for selection in hybrid_math.SELECTIONS for subset in hybrid_math.SUBSETS}
        self.assertEqual(len({round(value, 6) for value in values.values()}), 9, values)

    def test_weights_clip_and_the_kl_term(self):
        for overrides in ({"openclaw_rl_w_rl": 0.0}, {"openclaw_rl_w_opd": 0.0}, {"openclaw_rl_w_rl": 0.5, "openclaw_rl_w_opd": 2.0}, {"openclaw_rl_hybrid_clip": 0.0}, {"openclaw_rl_hybrid_clip": 0.05}):
            with self.subTest(**overrides), fake_slime("upstream"):
                _, logits, loss, reported, reference_logits, want = self.run_cell("upstream", "thd", "token_optimal", "overlap", **overrides)
                self.adapter.assertClose(reported["loss"], want["loss"], str(overrides))
                loss.backward()
                want["loss"].backward()
                self.adapter.assertGradientClose(logits, reference_logits, str(overrides))
        with fake_slime("fork"):
            extra = dict(use_kl_loss=True, kl_loss_coef=0.5, kl_loss_type="low_var_kl")
            batch, _, _, reported, reference_logits, want = self.run_cell("fork", "thd", "sequence_optimal", "student", **extra)
            new = loss_reference.new_log_probs(reference_logits, batch, "thd", 0.6)
            masks = [mask.cpu().double() for mask in batch["loss_masks"]]
            kl = loss_math.sum_of_sample_mean(loss_math.approx_kl(new, torch.cat([r.double() for r in batch["ref_log_probs"]]), "low_var_kl"), batch["response_lengths"], masks)
            self.adapter.assertClose(reported["loss"], want["loss"] + 0.5 * kl, "with the KL term")

    def test_refuses_unknown_choices_and_missing_rows(self):
        with fake_slime("fork"):
            with self.assertRaisesRegex(ValueError, "openclaw_rl_hybrid_selection 'best'"):
                self.run_cell("fork", "thd", "best", "student")
            batch, logits, reducer = self.adapter.prepare("fork", "thd")
            hybrid_rows.clear()
            args = slime_args(self.signatures["fork"], "thd", openclaw_rl_hybrid_selection="shortest")
            with self.assertRaisesRegex(hybrid_rows.HybridRowsMissing, "no teacher rows"):
                import_losses().hybrid_loss_function(args, batch, logits, reducer)


def _log_probs_rank(rank: int, world: int, store: str, rows: torch.Tensor, indices: torch.Tensor, weights: torch.Tensor, out: str) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        width = rows.shape[-1] // world
        mine = rows[:, rank * width : (rank + 1) * width].clone().requires_grad_(True)
        values = hybrid_math.vocab_parallel_log_probs_at(mine, indices, dist.group.WORLD)
        (values * weights).sum().backward()
        torch.save((values.detach(), mine.grad), f"{out}.{rank}")
    finally:
        dist.destroy_process_group()


class VocabParallelLogProbsTest(unittest.TestCase):
    def test_two_ranks_give_the_full_vocabulary_values_and_each_its_half_of_the_gradient(self):
        import torch.multiprocessing as mp

        generator = torch.Generator().manual_seed(5)
        rows = torch.randn(6, 10, generator=generator) * 3
        indices = torch.randint(0, 10, (6, 4), generator=generator)
        weights = torch.randn(6, 4, generator=generator)
        full = rows.clone().requires_grad_(True)
        want = torch.log_softmax(full, dim=-1).gather(-1, indices)
        (want * weights).sum().backward()
        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "values")
            mp.spawn(_log_probs_rank, args=(2, os.path.join(folder, "store"), rows, indices, weights, out), nprocs=2, join=True)
            for rank in range(2):
                values, grad = torch.load(f"{out}.{rank}")
                torch.testing.assert_close(values, want.detach(), rtol=1e-5, atol=1e-5)
                torch.testing.assert_close(grad, full.grad[:, rank * 5 : (rank + 1) * 5], rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    unittest.main()
