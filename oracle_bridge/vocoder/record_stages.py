"""Records what every stage of the pinned upstream vocoder receives and returns, for the per-stage gate.

Usage: record_stages.py ORACLE_DIR
  Reads ORACLE_DIR/checkpoints/<geometry>/seed<k>/vocoder/ (what `generate.py --checkpoints-only` wrote, verified
  there against the committed manifest) and the committed parity goldens' latents, runs upstream's
  MiniMaxMusic3Vocoder on them with forward hooks on each stage module, and writes
  ORACLE_DIR/stages/<geometry>/seed<k>.safetensors: for every stage of stage_names(blocks), `<stage>.in` and
  `<stage>.out`, bf16 [2, C, T] (the two stereo streams are upstream's batch). The stages, in forward order:
  dec_in_proj, conv_in, then per up-block i blocks.i.snake1, blocks.i.conv_t1, blocks.i.res_unit1..3, then
  snake_out, conv_out and tanh (the last is no module: its input is conv_out's output, its output the waveform).
Checks, each failing the run (exit 1) with the case named: the waveform of the hooked forward equals the committed
golden's bit for bit (the same upstream computation the goldens hold), and every stage's input is bit for bit the
previous stage's output (the stage list covers the forward with no gap).
Exit status: 0 ok, 1 mismatch, 2 pin violation, 64 usage.
"""
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import pins  # noqa: E402
import reproducible_cpu  # noqa: E402

pins.require_pinned()
reproducible_cpu.pin()

import torch  # noqa: E402
from diffusers.utils import logging as diffusers_logging  # noqa: E402

import make_vocoder_goldens  # noqa: E402
import safetensors_file  # noqa: E402
import vocoder_geometries as geometries  # noqa: E402

GOLDENS = HERE.parent / "goldens" / "vocoder" / "parity"


def stage_names(blocks):
    names = ["dec_in_proj", "conv_in"]
    for i in range(blocks):
        names += [f"blocks.{i}.snake1", f"blocks.{i}.conv_t1"] + [f"blocks.{i}.res_unit{u}" for u in (1, 2, 3)]
    return names + ["snake_out", "conv_out", "tanh"]


def read_golden(path, name):
    _, tensors = safetensors_file.read_header(path)
    entry = tensors[name]
    begin, end = entry["data_offsets"]
    raw = bytearray(path.read_bytes()[begin:end])
    return torch.frombuffer(raw, dtype=torch.bfloat16).reshape(entry["shape"]).clone()


@torch.no_grad()
def record_case(geometry, seed, oracle_dir):
    """Returns ({tensor name: tensor}, problems) for one case."""
    model = make_vocoder_goldens.load(oracle_dir / "checkpoints" / geometry / f"seed{seed}" / "vocoder")
    golden = GOLDENS / geometry / f"seed{seed}.safetensors"
    latents, expected = read_golden(golden, "latents"), read_golden(golden, "waveform")
    names = stage_names(len(model.blocks))
    recorded, handles = {}, []

    def hook(name):
        def record(_module, inputs, output):
            recorded[f"{name}.in"] = inputs[0].detach().clone()
            recorded[f"{name}.out"] = output.detach().clone()
        return record

    modules = dict(model.named_modules())
    for name in names[:-1]:
        handles.append(modules[name].register_forward_hook(hook(name)))
    waveform = model(latents)
    for handle in handles:
        handle.remove()
    recorded["tanh.in"] = recorded["conv_out.out"]
    recorded["tanh.out"] = waveform.reshape(2, 1, -1)
    case = f"{geometry}/seed{seed}"
    problems = []
    if not torch.equal(waveform.view(torch.int16), expected.view(torch.int16)):
        problems.append(f"{case}: the hooked forward's waveform differs from the committed golden {golden}")
    for before, after in zip(names, names[1:]):
        a, b = recorded[f"{before}.out"], recorded[f"{after}.in"]
        if a.shape != b.shape or not torch.equal(a.view(torch.int16), b.view(torch.int16)):
            problems.append(f"{case}: stage {after}'s input is not stage {before}'s output")
    return {k: v.contiguous() for k, v in recorded.items()}, problems


def main(argv):
    if len(argv) != 2:
        print(f"usage: {argv[0]} ORACLE_DIR", file=sys.stderr)
        return 64
    diffusers_logging.set_verbosity_error()
    started = time.monotonic()
    oracle_dir = pathlib.Path(argv[1]).resolve()
    problems, written = [], 0
    for geometry in geometries.GEOMETRIES:
        for seed in geometries.SEEDS:
            tensors, found = record_case(geometry, seed, oracle_dir)
            problems += found
            out = oracle_dir / "stages" / geometry / f"seed{seed}.safetensors"
            out.parent.mkdir(parents=True, exist_ok=True)
            safetensors_file.write(out, tensors, {"geometry": geometry, "seed": str(seed)})
            written += 1
    for problem in problems:
        print(f"vocoder stages: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"vocoder stages: wrote {written} files under {oracle_dir / 'stages'} in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
