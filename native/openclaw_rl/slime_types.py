"""slime's Sample and RolloutFnTrainOutput: the real ones when slime is importable, else a stand-in; and which
teacher arrays the installed slime carries from a Sample into the training batch.

The stand-in mirrors the OpenClaw-RL fork's slime (where, at which commit: native/tests/fixtures/slime_citations.json
sample_types): same field names, types, defaults and Status values. Upstream THUDM/slime
has ``weight_versions`` too. Only what the rollout function builds is mirrored (no spec/prefix-cache helpers).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


@dataclass
class StandInSample:
    group_index: int | None = None
    index: int | None = None
    prompt: str | list[dict[str, str]] = ""
    tokens: list[int] = field(default_factory=list)
    multimodal_inputs: dict[str, Any] = None
    multimodal_train_inputs: dict[str, Any] = None
    response: str = ""
    response_length: int = 0
    label: str | None = None
    reward: float | dict[str, Any] | None = None
    loss_mask: list[int] | None = None
    weight_versions: list[str] = field(default_factory=list)
    rollout_log_probs: list[float] | None = None
    rollout_routed_experts: list[list[int]] | None = None
    remove_sample: bool = False

    class Status(Enum):
        PENDING = "pending"
        COMPLETED = "completed"
        TRUNCATED = "truncated"
        ABORTED = "aborted"
        FAILED = "failed"

    status: Status = Status.PENDING
    metadata: dict = field(default_factory=dict)
    generate_function_path: str | None = None
    train_metadata: dict | None = None
    non_generation_time: float = 0.0


@dataclass
class StandInRolloutFnTrainOutput:
    samples: list[list[StandInSample]]
    metrics: dict[str, Any] = None


def slime_types():
    """(Sample, RolloutFnTrainOutput, is_real_slime)."""
    try:
        from slime.rollout.base_types import RolloutFnTrainOutput
        from slime.utils.types import Sample
    except ImportError:
        return StandInSample, StandInRolloutFnTrainOutput, False
    return Sample, RolloutFnTrainOutput, True


TEACHER_ARRAYS = ("teacher_log_probs", "teacher_topk_log_probs", "teacher_topk_indices")


def carried_teacher_arrays(sample_class) -> frozenset[str]:
    """The teacher arrays slime's converter puts into the training batch, read from the Sample it declares.

    The fork's Sample declares no teacher field and its converter carries every array found in samples[0].__dict__;
    upstream's declares teacher_log_probs and carries that field only (native/tests/fixtures/slime_signatures.json,
    each flavour's converter). So a Sample that declares none travels with all three as attributes, and one that
    declares some carries exactly those.
    """
    declared = {item.name for item in dataclasses.fields(sample_class)} & set(TEACHER_ARRAYS)
    return frozenset(declared or TEACHER_ARRAYS)
