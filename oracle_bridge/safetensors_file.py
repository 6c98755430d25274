"""The safetensors container, read and written without torch's help where order matters.

Contract: `read_header(path)` returns (metadata, {tensor: {"dtype", "shape", "data_offsets"}}) with offsets
measured from the start of the file. `write(path, tensors, metadata)` writes a standard safetensors file whose
bytes depend only on its arguments: the JSON header has sorted keys (the safetensors package serialises
__metadata__ from a hash map, so its key order, hence the file's sha256, changes from run to run), tensors are
laid out by element size (largest first) then name, so every tensor starts aligned to its element size, and
the header is padded with spaces to a multiple of 8 bytes.
"""
import json
import struct

import torch

_DTYPE_NAMES = {torch.bfloat16: "BF16", torch.float16: "F16", torch.float32: "F32", torch.int32: "I32",
                torch.int64: "I64", torch.uint8: "U8"}


def read_header(path):
    with open(path, "rb") as stream:
        prefix = stream.read(8)
        if len(prefix) != 8:
            raise ValueError(f"{path}: shorter than the 8-byte safetensors header length")
        (length,) = struct.unpack("<Q", prefix)
        header = json.loads(stream.read(length))
    metadata = header.pop("__metadata__", {})
    base = 8 + length
    tensors = {name: {"dtype": entry["dtype"], "shape": entry["shape"],
                      "data_offsets": [base + entry["data_offsets"][0], base + entry["data_offsets"][1]]}
               for name, entry in header.items()}
    return metadata, tensors


def write(path, tensors, metadata):
    order = sorted(tensors, key=lambda name: (-tensors[name].element_size(), name))
    header, blobs, offset = {"__metadata__": dict(metadata)}, [], 0
    for name in order:
        tensor = tensors[name]
        if tensor.dtype not in _DTYPE_NAMES:
            raise TypeError(f"tensor {name}: dtype {tensor.dtype} has no safetensors name here")
        blob = tensor.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": _DTYPE_NAMES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as stream:
        stream.write(struct.pack("<Q", len(text)))
        stream.write(text)
        for blob in blobs:
            stream.write(blob)
