"""Fake of slime.rollout.base_types.RolloutFnTrainOutput (THUDM/slime 624b824, slime/rollout/base_types.py:8).

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
