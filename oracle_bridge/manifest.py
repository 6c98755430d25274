"""Describes generated files for the manifest: sha256, and each safetensors tensor's dtype and shape.

Contract: `describe(path)` returns {"sha256": hex, "tensors": {name: {"dtype": "BF16"|"F32"|..., "shape": [..],
"sha256": hex of the tensor's bytes}}} ("tensors" only for .safetensors files), read from the file's own header,
so a consumer can check the exact bytes and layout of the file and of each tensor.
Manifest JSON is written with sorted keys and a trailing newline, so equal content means equal bytes.
"""
import hashlib
import json
import pathlib

import safetensors_file


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def describe(path):
    entry = {"sha256": sha256_file(path)}
    if str(path).endswith(".safetensors"):
        _, tensors = safetensors_file.read_header(path)
        data = pathlib.Path(path).read_bytes()
        entry["tensors"] = {name: {"dtype": t["dtype"], "shape": t["shape"],
                                   "sha256": hashlib.sha256(data[slice(*t["data_offsets"])]).hexdigest()}
                            for name, t in sorted(tensors.items())}
    return entry


def dumps(manifest):
    return json.dumps(manifest, indent=1, sort_keys=True) + "\n"
