"""Sends each training step's metrics, exactly as slime logs them to W&B / TensorBoard, to the orchestrator's bridge.

Installed by slime's --custom-megatron-init-path in every Megatron trainer process, it wraps slime's per-step
logging_utils.log so the same numbers also reach the bridge (where slime calls it, per flavour and commit:
tests/fixtures/checkpoint-facts.json, trainer_metrics). Ignores the FSDP backend (no such hook) and every other dict.
Best effort: an orchestrator that does not answer costs the trainer at most one short timeout per step and one
warning, never the step.
"""

from __future__ import annotations

import importlib
import logging
import math

from .bridge_client import BridgeClient, BridgeEndpoint

LOGGER = logging.getLogger(__name__)
STEP_KEY = "train/step"
# Where each flavour's trainer finds `log` (the module model.py imported, looked up at call time).
LOGGING_MODULES = ("slime.utils.logging_utils", "slime.observability.logging_utils")
SEND_TIMEOUT_S = 5.0


class StepMetricsForwarder:
    """Wraps a `log(args, metrics, step_key)` function: calls it, then posts the training step's numbers."""

    def __init__(self, original, client: BridgeClient):
        self._original = original
        self._client = client
        self._warned = False

    def __call__(self, args, metrics, step_key: str, *rest, **keywords):
        result = self._original(args, metrics, step_key, *rest, **keywords)
        if step_key == STEP_KEY and STEP_KEY in metrics:
            self._send(metrics)
        return result

    def _send(self, metrics: dict) -> None:
        numbers = step_numbers(metrics)
        try:
            self._client.trainer_metrics(int(metrics[STEP_KEY]), numbers, timeout_s=SEND_TIMEOUT_S)
        except Exception as error:  # noqa: BLE001 - metrics never stop a training step
            if not self._warned:
                LOGGER.warning("openclaw_rl: could not send training metrics to the orchestrator (%s); training goes on", error)
                self._warned = True


def step_numbers(metrics: dict) -> dict[str, float]:
    """The finite numbers of a `train/*` log dict (tensors of one value included), keyed without the `train/` prefix."""
    numbers: dict[str, float] = {}
    for key, value in metrics.items():
        if not key.startswith("train/") or key == STEP_KEY:
            continue
        if hasattr(value, "item") and getattr(value, "numel", lambda: 1)() == 1:
            value = value.item()
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(float(value)):
            numbers[key[len("train/"):]] = float(value)
    return numbers


def install(args) -> list[str]:
    """slime's --custom-megatron-init-path entry: wraps `log` in each flavour's logging module that imports here.
    Returns the modules wrapped (none outside slime; then nothing happens)."""
    del args
    client = BridgeClient(BridgeEndpoint.from_environment())
    wrapped = []
    for name in LOGGING_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if not isinstance(module.log, StepMetricsForwarder):
            module.log = StepMetricsForwarder(module.log, client)
        wrapped.append(name)
    if not wrapped:
        LOGGER.warning("openclaw_rl: none of %s could be imported; training metrics will not reach the orchestrator", ", ".join(LOGGING_MODULES))
    return wrapped
