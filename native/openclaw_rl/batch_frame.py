"""Decodes the bridge's binary batch frame (contracts/bridge.ts) into per-sample torch tensors.

Layout: b"OCB1" | u32 LE header length | JSON header | zero padding to 8 | data section of little-endian
int32/float32 blocks referenced by {dtype, offset, count}. Knows nothing of HTTP or slime.
"""

from __future__ import annotations

import json
import struct
import sys
from dataclasses import dataclass
from typing import Any

import torch

BATCH_MAGIC = b"OCB1"
BRIDGE_VERSION = 1
_DTYPES = {"int32": torch.int32, "float32": torch.float32}


class BridgeProtocolError(RuntimeError):
    """The orchestrator sent something this plugin does not understand."""


@dataclass
class DecodedSample:
    header: dict[str, Any]
    arrays: dict[str, torch.Tensor]  # block name -> 1-D tensor (a view of the frame's buffer)


@dataclass
class DecodedBatch:
    header: dict[str, Any]
    samples: list[DecodedSample]


def _pad8(length: int) -> int:
    return (length + 7) & ~7


def decode_batch_frame(frame: bytearray) -> DecodedBatch:
    if sys.byteorder != "little":
        raise BridgeProtocolError("bridge frames are little-endian; this host is big-endian")
    if len(frame) < 8 or bytes(frame[:4]) != BATCH_MAGIC:
        raise BridgeProtocolError("answer is not an OCB1 batch frame")
    (header_length,) = struct.unpack_from("<I", frame, 4)
    if 8 + header_length > len(frame):
        raise BridgeProtocolError("batch frame header overruns the frame")
    header = json.loads(bytes(frame[8 : 8 + header_length]).decode("utf-8"))
    if header.get("version") != BRIDGE_VERSION or header.get("type") != "batch":
        raise BridgeProtocolError(f"unsupported batch frame version {header.get('version')!r} (this plugin speaks {BRIDGE_VERSION})")
    data_start = _pad8(8 + header_length)
    samples = []
    for sample_header in header["samples"]:
        arrays = {}
        for name, ref in sample_header["blocks"].items():
            dtype = _DTYPES.get(ref["dtype"])
            if dtype is None:
                raise BridgeProtocolError(f"unknown block dtype {ref['dtype']!r}")
            count = int(ref["count"])
            offset = data_start + int(ref["offset"])
            if offset + 4 * count > len(frame):
                raise BridgeProtocolError(f"block {name} of sample {sample_header.get('id')} overruns the frame")
            if count == 0:
                arrays[name] = torch.empty(0, dtype=dtype)
            else:
                arrays[name] = torch.frombuffer(frame, dtype=dtype, count=count, offset=offset)
        samples.append(DecodedSample(header=sample_header, arrays=arrays))
    return DecodedBatch(header=header, samples=samples)
