"""How the hybrid's per-sample rows (hybrid_math.SampleRows) reach the loss inside one trainer process.

slime's get_batch hands a custom loss only the keys it names, and upstream's names none that holds rows of several
candidates, so the trainer-side teacher (slime_teacher.py) publishes the rows here, keyed by each sample's token ids,
just before slime trains the batch, and hybrid_loss_function looks each sample of a micro-batch up by its tokens
(batch["unconcat_tokens"]). Samples with equal tokens share a key; their rows are handed out in publication order
(equal rows, the usual case of equal tokens, make the order moot; with different candidates and
--recompute-loss-function, which calls the loss twice per micro-batch, the second call would get the next sample's).

Owns the key and the table. Ignores how the rows were computed.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .hybrid_math import SampleRows

_TABLE: dict[tuple[int, ...], list[SampleRows]] = {}


class HybridRowsMissing(RuntimeError):
    """The loss met a sample the trainer-side teacher published no rows for."""


def _key(tokens) -> tuple[int, ...]:
    return tuple(torch.as_tensor(tokens).detach().to("cpu", torch.int64).tolist())


def publish(tokens: Sequence, rows: Sequence[SampleRows]) -> None:
    """Replaces the table with this batch's rows (one SampleRows per sample, in the batch's order)."""
    if len(tokens) != len(rows):
        raise ValueError(f"{len(tokens)} samples but {len(rows)} rows")
    _TABLE.clear()
    for sample_tokens, sample_rows in zip(tokens, rows):
        _TABLE.setdefault(_key(sample_tokens), []).append(sample_rows)


def lookup(tokens) -> SampleRows:
    """The rows of the sample with these token ids (a later sample with the same tokens gets the next rows)."""
    entries = _TABLE.get(_key(tokens))
    if not entries:
        raise HybridRowsMissing(
            f"openclaw-rl hybrid: no teacher rows for a {len(tokens)}-token sample. The hybrid loss needs the trainer-side "
            "teacher (openclaw_rl_teacher: trainer, --custom-megatron-init-path openclaw_rl.trainer_hooks.install) and "
            "a batch whose samples carry hint candidates"
        )
    return entries.pop(0) if len(entries) > 1 else entries[0]


def clear() -> None:
    _TABLE.clear()
