"""The device the loss tests put their tensors on: OPENCLAW_RL_TEST_DEVICE, "cpu" (the default) or "cuda".

Owns the choice and its tolerance against the CPU float64 reference. Asking for cuda where torch sees none is an
error that says so, never a silent fall back to the CPU. Ignores which GPU.
"""

from __future__ import annotations

import os

import torch

VARIABLE = "OPENCLAW_RL_TEST_DEVICE"
# absolute tolerance of a float32 loss against its float64 reference: CPU float32 math, or CUDA kernels that reduce
# in another order
TOLERANCE = {"cpu": 2e-5, "cuda": 2e-4}


def chosen_device() -> torch.device:
    value = os.environ.get(VARIABLE, "cpu").strip().lower() or "cpu"
    if value == "cpu":
        return torch.device("cpu")
    if value == "cuda":
        if not torch.cuda.is_available():
            raise RuntimeError(
                f"{VARIABLE}=cuda, but torch {torch.__version__} sees no CUDA device (torch.cuda.is_available() is False; "
                f"built with CUDA {torch.version.cuda}): the loss tests cannot run on CUDA here"
            )
        return torch.device("cuda")
    raise ValueError(f"{VARIABLE}={value!r}: use cpu or cuda")


def tolerance(device: torch.device) -> float:
    return TOLERANCE[device.type]
