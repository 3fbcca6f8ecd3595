"""OPENCLAW_RL_TEST_DEVICE: cpu by default, cuda when asked and present, an error (never a skip) otherwise."""

from __future__ import annotations

import os
import unittest
import unittest.mock

import torch

from .loss_device import VARIABLE, chosen_device, tolerance


class LossDeviceTest(unittest.TestCase):
    def choose(self, value: str | None, cuda_available: bool) -> torch.device:
        environment = {key: item for key, item in os.environ.items() if key != VARIABLE}
        if value is not None:
            environment[VARIABLE] = value
        with unittest.mock.patch.dict(os.environ, environment, clear=True), unittest.mock.patch.object(torch.cuda, "is_available", return_value=cuda_available):
            return chosen_device()

    def test_cpu_unless_asked(self):
        self.assertEqual(self.choose(None, cuda_available=True).type, "cpu")
        self.assertEqual(self.choose("CPU", cuda_available=True).type, "cpu")
        self.assertEqual(tolerance(torch.device("cpu")), 2e-5)

    def test_cuda_when_asked_and_present(self):
        self.assertEqual(self.choose("cuda", cuda_available=True).type, "cuda")

    def test_cuda_asked_but_absent_is_an_error_that_says_so(self):
        with self.assertRaisesRegex(RuntimeError, f"{VARIABLE}=cuda, but torch .* sees no CUDA device"):
            self.choose("cuda", cuda_available=False)

    def test_unknown_device_is_refused(self):
        with self.assertRaisesRegex(ValueError, "use cpu or cuda"):
            self.choose("tpu", cuda_available=True)


if __name__ == "__main__":
    unittest.main()
