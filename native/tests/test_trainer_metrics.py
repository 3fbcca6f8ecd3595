"""trainer_metrics: slime's per-step log call, wrapped by the --custom-megatron-init-path hook, still logs and also
posts the step's numbers to the real bridge (tests/bridge/bridge-fixture-server.ts); a bridge that is gone costs a
warning, never the step."""

from __future__ import annotations

import json
import os
import re
import sys
import types
import unittest
import unittest.mock

import torch

from openclaw_rl import trainer_metrics

from .fixture_bridge import FixtureBridge


def _fake_logging_module(name: str) -> tuple[types.ModuleType, list]:
    calls: list = []
    module = types.ModuleType(name)
    module.log = lambda args, metrics, step_key: calls.append((metrics, step_key))
    return module, calls


class TrainerMetricsTest(unittest.TestCase):
    def setUp(self):
        self.saved_modules = {name: sys.modules.get(name) for name in ("slime", "slime.utils", *trainer_metrics.LOGGING_MODULES)}
        self.saved_environment = {key: os.environ.get(key) for key in ("OPENCLAW_RL_BRIDGE", "OPENCLAW_RL_BRIDGE_TOKEN")}

    def tearDown(self):
        for name, module in self.saved_modules.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        for key, value in self.saved_environment.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    def _install_fork_module(self) -> tuple[types.ModuleType, list]:
        module, calls = _fake_logging_module("slime.utils.logging_utils")
        sys.modules["slime"] = types.ModuleType("slime")
        sys.modules["slime.utils"] = types.ModuleType("slime.utils")
        sys.modules["slime.utils.logging_utils"] = module
        sys.modules.pop("slime.observability.logging_utils", None)
        return module, calls

    def test_a_training_step_reaches_the_bridge_and_is_still_logged(self):
        bridge = FixtureBridge()
        self.addCleanup(bridge.close)
        bridge.environment()
        module, calls = self._install_fork_module()
        self.assertEqual(trainer_metrics.install(types.SimpleNamespace()), ["slime.utils.logging_utils"])
        log_dict = {
            "train/loss": torch.tensor(0.25),
            "train/pg_loss": torch.tensor([0.125]),
            "train/train_rollout_logprob_abs_diff": 0.0625,
            "train/grad_norm": 3.5,
            "train/lr-pg_0": 1e-6,
            "train/nan_metric": float("nan"),
            "train/step": 12,
        }
        module.log(None, log_dict, step_key="train/step")
        module.log(None, {"rollout/raw_reward": 1.0, "rollout/step": 3}, step_key="rollout/step")  # not a training step
        self.assertEqual(len(calls), 2)
        events = bridge.command("trainer-metrics")["events"]
        self.assertEqual(len(events), 1)
        self.assertEqual(events[0]["step"], 12)
        self.assertEqual(events[0]["loss"], 0.25)
        self.assertEqual(events[0]["gradNorm"], 3.5)
        self.assertEqual(events[0]["logprobDiff"], 0.0625)
        self.assertEqual(events[0]["lr"], 1e-6)
        self.assertEqual(events[0]["metrics"]["pg_loss"], 0.125)
        self.assertNotIn("nan_metric", events[0]["metrics"])

    def test_the_logging_modules_are_those_slime_logs_through(self):
        facts_path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "checkpoint-facts.json")
        with open(facts_path, encoding="utf-8") as facts_file:
            per_step_log = json.load(facts_file)["trainer_metrics"]["per_step_log"]
        modules = {flavour: re.search(r"module (slime\.[\w.]+)", text).group(1) for flavour, text in per_step_log.items()}
        self.assertEqual(set(trainer_metrics.LOGGING_MODULES), set(modules.values()))

    def test_installing_twice_wraps_once(self):
        os.environ["OPENCLAW_RL_BRIDGE"] = "http://127.0.0.1:9"
        os.environ["OPENCLAW_RL_BRIDGE_TOKEN"] = "t"
        module, _ = self._install_fork_module()
        trainer_metrics.install(None)
        first = module.log
        trainer_metrics.install(None)
        self.assertIs(module.log, first)

    def test_an_unreachable_bridge_costs_one_warning_not_the_step(self):
        os.environ["OPENCLAW_RL_BRIDGE"] = "http://127.0.0.1:9"  # discard port: nothing listens
        os.environ["OPENCLAW_RL_BRIDGE_TOKEN"] = "t"
        module, calls = self._install_fork_module()
        trainer_metrics.install(None)
        with self.assertLogs("openclaw_rl.trainer_metrics", level="WARNING") as logs:
            for step in range(3):
                module.log(None, {"train/loss": 1.0, "train/step": step}, step_key="train/step")
        self.assertEqual(len(calls), 3)
        self.assertEqual(len(logs.records), 1)
        self.assertIn("training goes on", logs.output[0])

    def test_outside_slime_nothing_is_wrapped(self):
        os.environ["OPENCLAW_RL_BRIDGE"] = "http://127.0.0.1:9"
        os.environ["OPENCLAW_RL_BRIDGE_TOKEN"] = "t"
        for name in trainer_metrics.LOGGING_MODULES:
            sys.modules[name] = None  # import raises ImportError
        with self.assertLogs("openclaw_rl.trainer_metrics", level="WARNING"):
            self.assertEqual(trainer_metrics.install(None), [])


if __name__ == "__main__":
    unittest.main()
