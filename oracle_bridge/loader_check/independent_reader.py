"""The loader gates' independent reader: torch and safetensors (not the engine) read a checkpoint, and what the
engine's loader made resident is compared with it bit for bit.

  independent_reader.py f32-copy SRC DST SEED
      DST: a copy of component folder SRC (config.json, index) whose tensors are stored F32, each value the
      original's times (1 + u * 2^-8) for u uniform in [-1, 1) from SEED, so most values are not bf16 and the
      engine's F32 path must round them (torch's own round-to-nearest-even gives the reference).
  independent_reader.py compare CHECKPOINT RESIDENT
      RESIDENT: the engine's dump (BF16 tensors; a name "T[a:b]" holds rows a..b-1 of checkpoint tensor T).
      Every resident tensor must equal torch's bf16 of the checkpoint's tensor (or rows), bit for bit, with the
      same shape; prints one JSON line {tensors, elements, mismatched: {name: count}, first: {...}} and exits 1
      on any difference, a resident name the checkpoint lacks, or a shape that differs.
"""
import json
import pathlib
import re
import shutil
import sys

import torch
from safetensors import safe_open
from safetensors.torch import save_file


def checkpoint_tensors(folder):
    """name -> (shard path) for every tensor of the component folder (single file or sharded)."""
    folder = pathlib.Path(folder)
    out = {}
    for shard in sorted(folder.glob("*.safetensors")):
        with safe_open(str(shard), "pt") as f:
            for name in f.keys():
                out[name] = shard
    return out


def f32_copy(src, dst, seed):
    src, dst = pathlib.Path(src), pathlib.Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    for item in src.iterdir():
        if item.suffix != ".safetensors":
            shutil.copy(item, dst / item.name)
    gen = torch.Generator().manual_seed(int(seed))
    for shard in sorted(src.glob("*.safetensors")):
        with safe_open(str(shard), "pt") as f:
            tensors = {}
            for name in f.keys():
                t = f.get_tensor(name).to(torch.float32)
                u = torch.rand(t.shape, generator=gen, dtype=torch.float32) * 2 - 1
                tensors[name] = (t * (1 + u * 2.0 ** -8)).contiguous()
            save_file(tensors, str(dst / shard.name), metadata=f.metadata())


def compare(checkpoint, resident):
    where = checkpoint_tensors(checkpoint)
    report = {"tensors": 0, "elements": 0, "mismatched": {}, "first": {}}
    with safe_open(str(resident), "pt") as r:
        for name in r.keys():
            got = r.get_tensor(name)
            m = re.fullmatch(r"(.+)\[(\d+):(\d+)\]", name)
            base, rows = (m.group(1), (int(m.group(2)), int(m.group(3)))) if m else (name, None)
            if base not in where:
                report["mismatched"][name] = "not in the checkpoint"
                continue
            with safe_open(str(where[base]), "pt") as f:
                want = f.get_tensor(base)
            if rows:
                want = want[rows[0]:rows[1]]
            want = want.to(torch.bfloat16)
            report["tensors"] += 1
            report["elements"] += want.numel()
            if got.dtype != torch.bfloat16 or tuple(got.shape) != tuple(want.shape):
                report["mismatched"][name] = f"resident {got.dtype} {list(got.shape)}, checkpoint {list(want.shape)}"
                continue
            diff = (got.view(torch.int16) != want.view(torch.int16)).flatten()
            count = int(diff.sum())
            if count:
                i = int(diff.nonzero()[0])
                report["mismatched"][name] = count
                report["first"][name] = {"element": i, "resident_bits": int(got.flatten().view(torch.int16)[i]) & 0xFFFF,
                                         "checkpoint_bits": int(want.flatten().view(torch.int16)[i]) & 0xFFFF}
    print(json.dumps(report))
    return 1 if report["mismatched"] or report["tensors"] == 0 else 0


def main(argv):
    if len(argv) == 5 and argv[1] == "f32-copy":
        f32_copy(argv[2], argv[3], argv[4])
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
