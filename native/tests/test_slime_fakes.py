"""Each fake slime has exactly the signatures recorded from the real sources (tests/fixtures/slime_signatures.json):
functions, the Sample and RolloutFnTrainOutput fields, Megatron's mpu queries, and nothing upstream lacks."""

from __future__ import annotations

import dataclasses
import enum
import importlib
import inspect
import unittest

import torch

from .slime_fakes import FLAVOURS, fake_slime, signatures


def _resolve(module_name: str, qualname: str):
    target = importlib.import_module(module_name)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def _parameters(function) -> list[dict]:
    described = []
    for parameter in inspect.signature(function).parameters.values():
        described.append({
            "name": parameter.name,
            "kind": parameter.kind.name,
            "default": None if parameter.default is inspect.Parameter.empty else repr(parameter.default),
            "annotation": None if parameter.annotation is inspect.Parameter.empty else parameter.annotation,
        })
    return described


def _returns(function):
    annotation = inspect.signature(function).return_annotation
    return None if annotation is inspect.Signature.empty else annotation


def _default(item: dataclasses.Field):
    if item.default_factory is not dataclasses.MISSING:
        return f"field(default_factory={item.default_factory.__name__})"
    if item.default is dataclasses.MISSING:
        return None
    if isinstance(item.default, enum.Enum):
        return f"{type(item.default).__name__}.{item.default.name}"
    return repr(item.default)


def _fields(cls) -> list[dict]:
    return [{"name": item.name, "annotation": item.type, "default": _default(item)} for item in dataclasses.fields(cls)]


class FakeSignatureTest(unittest.TestCase):
    def test_functions_match_the_real_signatures(self):
        for flavour in FLAVOURS:
            recorded = signatures()["flavours"][flavour]
            entries = dict(recorded["functions"], **recorded["megatron"]["functions"])
            with fake_slime(flavour):
                for name, entry in entries.items():
                    with self.subTest(flavour=flavour, function=name):
                        function = _resolve(entry["module"], entry["qualname"])
                        self.assertEqual(_parameters(function), entry["parameters"], f"{entry['file']}:{entry['line']}")
                        self.assertEqual(_returns(function), entry["returns"])

    def test_sample_and_rollout_output_match_the_real_dataclasses(self):
        for flavour in FLAVOURS:
            recorded = signatures()["flavours"][flavour]
            with fake_slime(flavour):
                from slime.rollout.base_types import RolloutFnTrainOutput
                from slime.utils.types import Sample

                with self.subTest(flavour=flavour, dataclass="Sample"):
                    self.assertEqual(_fields(Sample), recorded["sample"]["fields"])
                    declared = [item.name for item in dataclasses.fields(Sample) if item.name.startswith("teacher")]
                    self.assertEqual(declared, recorded["sample"]["teacher_fields_declared"])
                    self.assertEqual([status.value for status in Sample.Status], ["pending", "completed", "truncated", "aborted", "failed"])
                with self.subTest(flavour=flavour, dataclass="RolloutFnTrainOutput"):
                    want = [{key: item[key] for key in ("name", "annotation", "default")} for item in recorded["rollout_fn_train_output"]["fields"]]
                    self.assertEqual(_fields(RolloutFnTrainOutput), want)

    def test_upstream_fake_lacks_what_upstream_lacks(self):
        recorded = signatures()["flavours"]["upstream"]
        self.assertEqual(set(recorded["absent"]), {"compute_log_probs"})
        with fake_slime("upstream"):
            import slime.utils.ppo_utils as ppo_utils
            from slime.backends.megatron_utils.loss import get_log_probs_and_entropy, get_responses

            self.assertFalse(hasattr(ppo_utils, "compute_log_probs"))
            logits = torch.zeros(1, 6, 5)
            common = dict(args=None, unconcat_tokens=[torch.arange(6)], total_lengths=[6], response_lengths=[2])
            # the fork-only keyword the combine and top-K losses used to pass
            with self.assertRaisesRegex(TypeError, "max_seq_lens"):
                get_log_probs_and_entropy(logits, max_seq_lens=None, **common)
            with self.assertRaisesRegex(TypeError, "max_seq_lens"):
                next(get_responses(logits, max_seq_lens=None, **common))
            with self.assertRaises(AssertionError):
                next(get_responses(logits.bfloat16(), **common))  # upstream takes float32 logits only


if __name__ == "__main__":
    unittest.main()
