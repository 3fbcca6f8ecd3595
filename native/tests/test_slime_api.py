"""slime_api binds slime's helpers from their signatures: how it calls each fake slime, and the clear error (helper,
file, expectation) for a slime whose helpers have neither known shape, raised when the losses are imported."""

from __future__ import annotations

import importlib
import json
import os
import sys
import unittest
from pathlib import Path

from openclaw_rl.slime_api import SlimeApiMismatch, bind_slime_api

from .slime_fakes import FAKES, fake_slime, import_losses


SIGNATURES = {
    flavour: recorded["functions"]
    for flavour, recorded in json.loads((Path(__file__).parent / "fixtures" / "slime_signatures.json").read_text(encoding="utf-8"))["flavours"].items()
}


def _fake_file(flavour: str, *parts: str) -> str:
    return os.path.join(FAKES, flavour, "slime", *parts)


class BindingTest(unittest.TestCase):
    def test_fork_binding_passes_max_seq_lens(self):
        with fake_slime("fork"):
            api = bind_slime_api()
        self.assertTrue(api.log_probs.passes_max_seq_lens)
        self.assertTrue(api.responses.passes_max_seq_lens)
        self.assertEqual(api.responses.fixed_keywords, {})
        self.assertIsNotNone(api.compute_log_probs)
        self.assertIn(_fake_file("fork", "backends", "megatron_utils", "loss.py"), api.describe())

    def test_upstream_binding_asks_for_temperature_and_has_no_compute_log_probs(self):
        with fake_slime("upstream"):
            api = bind_slime_api()
        self.assertFalse(api.log_probs.passes_max_seq_lens)
        self.assertFalse(api.responses.passes_max_seq_lens)
        self.assertEqual(api.responses.fixed_keywords, {"apply_temperature": True})
        self.assertIsNone(api.compute_log_probs)
        self.assertIn("compute_log_probs (slime.utils.ppo_utils in " + _fake_file("upstream", "utils", "ppo_utils.py") + "): absent", api.describe())


class MismatchTest(unittest.TestCase):
    """Each case swaps one helper of a fake slime for a function with another signature, then binds."""

    def bind_with(self, flavour: str, module_name: str, helper: str, replacement):
        with fake_slime(flavour):
            module = importlib.import_module(module_name)
            if replacement is None:
                delattr(module, helper)
            else:
                setattr(module, helper, replacement)
            with self.assertRaises(SlimeApiMismatch) as caught:
                bind_slime_api()
        return str(caught.exception)

    def assertNames(self, message: str, *parts: str):
        for part in parts:
            self.assertIn(part, message)

    def test_get_responses_with_neither_known_keyword(self):
        def get_responses(logits, *, args, unconcat_tokens, total_lengths, response_lengths):
            raise AssertionError("never called")

        message = self.bind_with("upstream", "slime.backends.megatron_utils.loss", "get_responses", get_responses)
        self.assertNames(
            message,
            "slime helper get_responses",
            _fake_file("upstream", "backends", "megatron_utils", "loss.py"),
            "neither max_seq_lens nor apply_temperature",
            SIGNATURES["fork"]["get_responses"]["file"],
            SIGNATURES["upstream"]["get_responses"]["file"],
        )

    def test_get_responses_with_both_known_keywords(self):
        def get_responses(logits, *, args, unconcat_tokens, total_lengths, response_lengths, max_seq_lens=None, apply_temperature=True):
            raise AssertionError("never called")

        message = self.bind_with("fork", "slime.backends.megatron_utils.loss", "get_responses", get_responses)
        self.assertNames(message, "get_responses", "both max_seq_lens and apply_temperature")

    def test_get_log_probs_and_entropy_missing_or_reshaped(self):
        message = self.bind_with("fork", "slime.backends.megatron_utils.loss", "get_log_probs_and_entropy", None)
        self.assertNames(message, "get_log_probs_and_entropy", "has no such function", _fake_file("fork", "backends", "megatron_utils", "loss.py"), SIGNATURES["fork"]["get_log_probs_and_entropy"]["file"], SIGNATURES["upstream"]["get_log_probs_and_entropy"]["file"])

        def requires_more(logits, *, args, unconcat_tokens, total_lengths, response_lengths, with_entropy=False, cp_group):
            raise AssertionError("never called")

        self.assertNames(self.bind_with("upstream", "slime.backends.megatron_utils.loss", "get_log_probs_and_entropy", requires_more), "requires cp_group")

        def keyword_logits(*, logits, args, unconcat_tokens, total_lengths, response_lengths, with_entropy=False):
            raise AssertionError("never called")

        self.assertNames(self.bind_with("fork", "slime.backends.megatron_utils.loss", "get_log_probs_and_entropy", keyword_logits), "not a positional logits")

        def positional_args(logits, args, unconcat_tokens, total_lengths, response_lengths, /, with_entropy=False):
            raise AssertionError("never called")

        self.assertNames(self.bind_with("fork", "slime.backends.megatron_utils.loss", "get_log_probs_and_entropy", positional_args), "no keyword parameter args")

    def test_compute_log_probs_with_another_shape(self):
        def compute_log_probs(logits, tokens):
            raise AssertionError("never called")

        message = self.bind_with("fork", "slime.utils.ppo_utils", "compute_log_probs", compute_log_probs)
        self.assertNames(message, "compute_log_probs", _fake_file("fork", "utils", "ppo_utils.py"), "['logits', 'tokens']", SIGNATURES["fork"]["compute_log_probs"]["file"])

    def test_losses_fail_at_import_not_at_the_first_micro_batch(self):
        with fake_slime("fork"):
            module = importlib.import_module("slime.backends.megatron_utils.loss")
            module.get_responses = lambda logits, **keywords: iter(())
            with self.assertRaisesRegex(SlimeApiMismatch, "get_responses"):
                import_losses()
            self.assertNotIn("openclaw_rl.losses", sys.modules)

    def test_no_slime_at_all(self):
        with fake_slime("fork"):
            sys.path[:] = [entry for entry in sys.path if not entry.startswith(FAKES)]
            with self.assertRaisesRegex(SlimeApiMismatch, r"get_log_probs_and_entropy \(slime.backends.megatron_utils.loss\): the module cannot be imported"):
                bind_slime_api()


if __name__ == "__main__":
    unittest.main()
