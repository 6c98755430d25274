"""The loader gates' independent reader: torch and safetensors (not the engine) read a checkpoint, and what the
engine's loader made resident is compared with it bit for bit.

  independent_reader.py f32-copy SRC DST SEED
      DST: a copy of component folder SRC (config.json, index) whose tensors are stored F32, each value the
      original's times (1 + u * 2^-8) for u uniform in [-1, 1) from SEED, so most values are not bf16 and the
      engine's F32 path must round them (torch's own round-to-nearest-even gives the reference).
  independent_reader.py bf16-copy SRC DST
      DST: a copy of component folder SRC whose tensors torch has rounded to BF16 (nearest, ties to even), for a
      loader's BF16 path when the oracle's checkpoint is F32; a sharded index's total_size is rewritten.
  independent_reader.py compare CHECKPOINT RESIDENT
      RESIDENT: the engine's dump (BF16 tensors; a name "T[a:b]" holds rows a..b-1 of checkpoint tensor T).
      Every resident tensor must equal torch's bf16 of the checkpoint's tensor (or rows), bit for bit, with the
      same shape; prints one JSON line {tensors, elements, mismatched: {name: count}, first: {...}} and exits 1
      on any difference, a resident name the checkpoint lacks, or a shape that differs.
      A resident "P.weight" that the checkpoint holds as an old-style weight-norm pair P.weight_g / P.weight_v is
      compared with the fold torch's weight_norm defines, w = v * (g / ||v||), the norm over every dimension
      where g has size 1, computed here on the raw tensors as a bf16 model loads them (each rounded to bf16
      first), in f32 with the norm rounded once from f64. torch._weight_norm itself reduces the norm in f32 in its
      build's lane order (on perturbed copies of the oracle's vocoder weights its bf16 and f32 kernels disagree
      with each other on 1 element in 3.6 million), so it cannot be a bit-exact reference; the JSON's
      "weight_norm_kernel_disagrees" counts, without failing, the elements where its f32 kernel differs from this
      reference.
  independent_reader.py serve
      One request per stdin line, a JSON array: a command above with its arguments, then the log path its output
      is appended to; answers each with one stdout line {"exit": STATUS} (3: the command raised, its traceback in the
      log). So a gate pays python's and torch's start once, not per command (gates/lib/independent_reader.cpp).
"""
import contextlib
import json
import pathlib
import re
import shutil
import sys
import traceback

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


def bf16_copy(src, dst):
    src, dst = pathlib.Path(src), pathlib.Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    total = 0
    for shard in sorted(src.glob("*.safetensors")):
        with safe_open(str(shard), "pt") as f:
            tensors = {name: f.get_tensor(name).to(torch.bfloat16).contiguous() for name in f.keys()}
            total += sum(t.numel() * t.element_size() for t in tensors.values())
            save_file(tensors, str(dst / shard.name), metadata=f.metadata())
    for item in src.iterdir():
        if item.name.endswith(".index.json"):
            index = json.loads(item.read_text())
            index.setdefault("metadata", {})["total_size"] = total
            (dst / item.name).write_text(json.dumps(index, indent=2))
        elif item.suffix != ".safetensors":
            shutil.copy(item, dst / item.name)


def weight_norm_fold(g, v):
    """The weight-norm fold of raw g, v as a bf16 model holds them: (reference, torch._weight_norm's f32 kernel)."""
    g, v = g.to(torch.bfloat16).to(torch.float32), v.to(torch.bfloat16).to(torch.float32)
    dims = tuple(d for d in range(v.dim()) if g.shape[d] == 1)
    norm = torch.linalg.vector_norm(v.to(torch.float64), dim=dims, keepdim=True).to(torch.float32)
    kept = next((d for d in range(v.dim()) if g.shape[d] != 1), 0)
    return (v * (g / norm)).to(torch.bfloat16), torch._weight_norm(v, g, kept).to(torch.bfloat16)


def reference(where, name, report):
    """torch's bf16 of the checkpoint tensor (or rows, or weight-norm fold) a resident name stands for; None if absent."""
    m = re.fullmatch(r"(.+)\[(\d+):(\d+)\]", name)
    base, rows = (m.group(1), (int(m.group(2)), int(m.group(3)))) if m else (name, None)
    if base in where:
        with safe_open(str(where[base]), "pt") as f:
            want = f.get_tensor(base)
        return (want[rows[0]:rows[1]] if rows else want).to(torch.bfloat16)
    g, v = base + "_g", base + "_v"
    if rows or g not in where or v not in where:
        return None
    with safe_open(str(where[g]), "pt") as fg, safe_open(str(where[v]), "pt") as fv:
        want, kernel = weight_norm_fold(fg.get_tensor(g), fv.get_tensor(v))
    report["weight_norm_kernel_disagrees"] += int((want.view(torch.int16) != kernel.view(torch.int16)).sum())
    return want


def compare(checkpoint, resident):
    where = checkpoint_tensors(checkpoint)
    report = {"tensors": 0, "elements": 0, "mismatched": {}, "first": {}, "weight_norm_kernel_disagrees": 0}
    with safe_open(str(resident), "pt") as r:
        for name in r.keys():
            got = r.get_tensor(name)
            want = reference(where, name, report)
            if want is None:
                report["mismatched"][name] = "not in the checkpoint"
                continue
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


def serve():
    replies = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        with open(request[-1], "a") as log, contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            try:
                status = main([sys.argv[0]] + request[:-1])
            except Exception:  # the request's failure, not the server's: reported, and the next request served
                traceback.print_exc()
                status = 3
        replies.write(json.dumps({"exit": status}) + "\n")
        replies.flush()
    return 0


def main(argv):
    if argv[1:] == ["serve"]:
        return serve()
    if len(argv) == 5 and argv[1] == "f32-copy":
        f32_copy(argv[2], argv[3], argv[4])
        return 0
    if len(argv) == 4 and argv[1] == "bf16-copy":
        bf16_copy(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
