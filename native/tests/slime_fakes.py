"""Puts one fake slime (tests/fakes/fork or tests/fakes/upstream) and the single-rank fake Megatron on sys.path.

Owns the import switch: the slime, megatron and openclaw_rl.losses modules are dropped from sys.modules
on the way in and on the way out, so every test imports the losses fresh against the fake it asked for (the losses
bind slime's helpers at import). Ignores what the fakes contain (see tests/fixtures/slime_signatures.json).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAKES = os.path.join(HERE, "fakes")
FIXTURE = os.path.join(HERE, "fixtures", "slime_signatures.json")
FLAVOURS = ("fork", "upstream")
_BOUND_MODULES = ("slime", "megatron", "openclaw_rl.losses")


def signatures() -> dict:
    with open(FIXTURE, encoding="utf-8") as handle:
        return json.load(handle)


def _forget_bound_modules() -> dict:
    dropped = {}
    for name in list(sys.modules):
        if any(name == root or name.startswith(root + ".") for root in _BOUND_MODULES):
            dropped[name] = sys.modules.pop(name)
    return dropped


@contextlib.contextmanager
def fake_slime(flavour: str):
    """Within the block, `import slime` is the fake of that flavour and `import megatron` the single-rank fake."""
    if flavour not in FLAVOURS:
        raise ValueError(f"unknown slime flavour {flavour!r} (fakes exist for {FLAVOURS})")
    saved_path = list(sys.path)
    saved_modules = _forget_bound_modules()
    sys.path[:0] = [os.path.join(FAKES, flavour), os.path.join(FAKES, "megatron_single_rank")]
    try:
        yield
    finally:
        _forget_bound_modules()
        sys.path[:] = saved_path
        sys.modules.update(saved_modules)


def import_losses():
    """openclaw_rl.losses imported now, against whatever slime is on sys.path."""
    return importlib.import_module("openclaw_rl.losses")
