"""A .safetensors file's bytes, written as the format says: an 8-byte little-endian header length,
the JSON header, then each tensor's bytes in order."""

from __future__ import annotations

import json
import struct

import numpy as np

DTYPES = {"<f4": "F32", "<f8": "F64"}


def safetensors(tensors: dict[str, np.ndarray], dtype: str = "<f8",
                metadata: dict[str, str] | None = None) -> bytes:
    header: dict[str, object] = {"__metadata__": metadata} if metadata else {}
    data = b""
    for name, values in tensors.items():
        raw = np.ascontiguousarray(values, dtype=dtype).tobytes()
        header[name] = {"dtype": DTYPES[dtype], "shape": list(values.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data
