"""The stand-in trainer's rollout function when /usr/bin/python3 cannot import torch: the real native rollout
function builds torch tensors, so without torch this one only fetches each batch over the real bridge (stdlib
client) and acknowledges it. It reads the frame's JSON header, never its arrays; nothing is learned.
"""

from __future__ import annotations

import json
import struct
import sys
import time
from types import SimpleNamespace

from openclaw_rl.bridge_client import BridgeClient, BridgeEndpoint

BATCH_MAGIC = b"OCB1"
_client: BridgeClient | None = None


def _frame_header(frame: bytearray) -> dict:
    if len(frame) < 8 or bytes(frame[:4]) != BATCH_MAGIC:
        raise RuntimeError("not an openclaw-rl batch frame")
    (length,) = struct.unpack_from("<I", frame, 4)
    return json.loads(bytes(frame[8 : 8 + length]).decode("utf-8"))


def generate_rollout(args, rollout_id, data_source, evaluation=False):
    global _client
    if evaluation:
        raise ValueError("openclaw-rl has no evaluation dataset")
    if _client is None:
        _client = BridgeClient(BridgeEndpoint.from_environment())
        _client.hello({"policy": None, "judge": None})
    size = int(args.rollout_batch_size)
    started = time.monotonic()
    while True:
        frame, ready = _client.request_batch(rollout_id, size, 20_000)
        if frame is not None:
            break
        print(f"[standin-trainer] waiting for samples: {ready}/{size}", file=sys.stderr, flush=True)
    header = _frame_header(frame)
    _client.ack(rollout_id, header["batchId"])
    samples = [[SimpleNamespace(reward={"score": float(entry.get("reward", 0.0))}, metadata={"kind": entry.get("kind", "?")})] for entry in header["samples"]]
    return SimpleNamespace(samples=samples, metrics={"openclaw/rollout_wait_s": round(time.monotonic() - started, 3), "openclaw/acknowledged_only": 1})

