"""How a sample's teacher travels from the rollout function to slime's Megatron trainer when the trainer computes the
teacher's log-probs (recipe opd.teacher: trainer).

Neither slime flavour has a Sample field for the teacher's tokens, so they ride in `multimodal_train_inputs`, a
per-sample dict both flavours' converter, DP split and actor pass through untouched (where, per flavour and commit:
native/tests/fixtures/slime_actor.json, facts carriage_*); the fork drops a sample without one, so every
sample of a carried batch gets one. The trainer-side teacher (slime_teacher.py) takes
our keys out of it before slime's forward steps, which would pass the dict to the model as keyword arguments.

A carried batch is one where some sample holds teacher tokens (hinted prompt + response). In it every sample carries
exactly one of: its teacher tokens, or the teacher log-probs the orchestrator sent (a combine sample without a hint:
its rollout log-probs), so the trainer fills `teacher_log_probs` for all of them. A batch with no teacher tokens is not
carried; its teacher log-probs go through slime's own teacher field as with opd.teacher: engine.

method: hybrid carries each sample's hint candidates (hinted prompt ids + the response's ids, one list per candidate,
shortest hint first) under a third key; the trainer-side teacher forwards each of them (slime_hybrid.py).

Owns the three keys and the per-sample record. Ignores which model the teacher is and how its forward runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

TOKENS_KEY = "openclaw_rl_teacher_tokens"
LOG_PROBS_KEY = "openclaw_rl_teacher_log_probs"
CANDIDATES_KEY = "openclaw_rl_hint_candidates"
KEYS = (TOKENS_KEY, LOG_PROBS_KEY, CANDIDATES_KEY)


@dataclass(frozen=True)
class CarriedTeacher:
    """One sample's teacher as it reached the trainer: tokens to forward, or log-probs to use as they are."""

    tokens: torch.Tensor | None  # [L] int, hinted prompt + response
    log_probs: torch.Tensor | None  # [R] float32


def attach(sample, tokens: Sequence[int] | torch.Tensor | None, log_probs: torch.Tensor | None) -> None:
    """Puts a sample's teacher into its multimodal_train_inputs (beside whatever multimodal inputs it already has)."""
    if (tokens is None) == (log_probs is None):
        raise ValueError("a carried teacher is either teacher tokens or teacher log-probs, exactly one of them")
    inputs = dict(sample.multimodal_train_inputs or {})
    clash = [key for key in KEYS if key in inputs]
    if clash:
        raise ValueError(f"sample {getattr(sample, 'index', '?')} already has {', '.join(clash)} in multimodal_train_inputs")
    if tokens is not None:
        inputs[TOKENS_KEY] = torch.as_tensor(tokens, dtype=torch.int32).clone()
    else:
        inputs[LOG_PROBS_KEY] = torch.as_tensor(log_probs, dtype=torch.float32).clone()
    sample.multimodal_train_inputs = inputs


def attach_candidates(sample, candidates: Sequence[Sequence[int] | torch.Tensor]) -> None:
    """Puts a hybrid sample's hint candidates into its multimodal_train_inputs. Each must be a prompt followed by the
    sample's response ids exactly (its last response_length ids equal the sample's)."""
    length = int(sample.response_length)
    response = [int(token) for token in list(sample.tokens)[-length:]] if length > 0 else []
    if not candidates:
        raise ValueError(f"sample {getattr(sample, 'index', '?')}: a hybrid sample carries at least one hint candidate")
    carried_candidates = []
    for number, candidate in enumerate(candidates):
        ids = torch.as_tensor(candidate, dtype=torch.int32).clone()
        if ids.numel() <= length or ids[-length:].tolist() != response:
            raise ValueError(f"sample {getattr(sample, 'index', '?')}: hint candidate {number} ({ids.numel()} ids) does not end with the sample's {length}-token response")
        carried_candidates.append(ids)
    inputs = dict(sample.multimodal_train_inputs or {})
    if CANDIDATES_KEY in inputs:
        raise ValueError(f"sample {getattr(sample, 'index', '?')} already has {CANDIDATES_KEY} in multimodal_train_inputs")
    inputs[CANDIDATES_KEY] = carried_candidates
    sample.multimodal_train_inputs = inputs


def take_candidates(rollout_data: dict) -> list[list[torch.Tensor]] | None:
    """Removes the hint candidates from a trainer rank's rollout_data (as take does the teacher) and returns them per
    sample (int64 ids); None when the batch carries none."""
    inputs = rollout_data.get("multimodal_train_inputs")
    if inputs is None:
        return None
    found = [None if not entry else entry.get(CANDIDATES_KEY) for entry in inputs]
    if all(candidates is None for candidates in found):
        return None
    missing = [index for index, candidates in enumerate(found) if not candidates]
    if missing:
        raise RuntimeError(f"openclaw-rl: samples {missing[:10]} of a hybrid batch carry no hint candidates; every sample of it should")
    _drop_keys(rollout_data, inputs)
    return [[torch.as_tensor(ids).to(torch.int64) for ids in candidates] for candidates in found]


def _drop_keys(rollout_data: dict, inputs: list) -> None:
    rest = [{key: value for key, value in (entry or {}).items() if key not in KEYS} for entry in inputs]
    if any(rest):
        rollout_data["multimodal_train_inputs"] = [entry or None for entry in rest]
    else:
        del rollout_data["multimodal_train_inputs"]


def carried(sample) -> CarriedTeacher | None:
    """The teacher a sample carries (None when it carries none): what the rehearsal trainer reads from a Sample."""
    return _from_inputs(sample.multimodal_train_inputs, where=f"sample {getattr(sample, 'index', '?')}")


def take(rollout_data: dict) -> list[CarriedTeacher] | None:
    """Removes the carried teachers from a trainer rank's rollout_data and returns them per sample; None when the batch
    carries none. The key multimodal_train_inputs goes too when nothing else was in it (a text model's batch), so
    slime's forward steps see the rollout data they would have seen without a teacher."""
    inputs = rollout_data.get("multimodal_train_inputs")
    if inputs is None:
        return None
    teachers = [_from_inputs(entry, where=f"sample {index}") for index, entry in enumerate(inputs)]
    if all(teacher is None for teacher in teachers):
        return None
    missing = [index for index, teacher in enumerate(teachers) if teacher is None]
    if missing:
        raise RuntimeError(f"openclaw-rl: samples {missing[:10]} of a carried batch have no teacher (tokens or log-probs); every sample of it should")
    _drop_keys(rollout_data, inputs)
    return teachers


def _from_inputs(inputs: dict | None, where: str) -> CarriedTeacher | None:
    if not inputs:
        return None
    tokens, log_probs = inputs.get(TOKENS_KEY), inputs.get(LOG_PROBS_KEY)
    if tokens is None and log_probs is None:
        return None
    if tokens is not None and log_probs is not None:
        raise RuntimeError(f"openclaw-rl: {where} carries both teacher tokens and teacher log-probs")
    return CarriedTeacher(
        tokens=None if tokens is None else torch.as_tensor(tokens).to(torch.int64),
        log_probs=None if log_probs is None else torch.as_tensor(log_probs).to(torch.float32),
    )
