"""Fake of slime.rollout.base_types.RolloutFnTrainOutput (Gen-Verse/OpenClaw-RL 0d034dd, slime/slime/rollout/base_types.py:8).

Owns the dataclass a rollout function returns; ignores RolloutFnEvalOutput and call_rollout_fn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slime.utils.types import Sample


@dataclass
class RolloutFnTrainOutput:
    samples: list[list[Sample]]
    metrics: dict[str, Any] = None
