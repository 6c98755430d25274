"""Writes every acoustic checkpoint (condition encoder and DiT) and golden and the manifest that describes them.

Usage: generate.py OUTDIR [--checkpoints-only | --check]
  OUTDIR/checkpoints/<geometry>/seed<k>/{condition_encoder,transformer}/ (save_pretrained; transformer sharded)
  OUTDIR/goldens/<geometry>/seed<k>.safetensors
  OUTDIR/goldens/manifest.json: the pinned versions, the geometry table, seeds, frame counts and timestep steps,
    which golden tensors are inputs and which outputs, the producer (provenance, never compared), and per file its
    sha256 and per tensor its dtype, shape and sha256.
OUTDIR/checkpoints (and OUTDIR/goldens, unless --checkpoints-only) are removed first. The committed copies live in
oracle_bridge/goldens/acoustic/ (copy OUTDIR/goldens/* there after an intended change). --checkpoints-only (the
ctest fixture `acoustic_oracle`) requires each checkpoint file to match the committed manifest's sha256; --check
(ctest acoustic_oracle_regen) regenerates everything and requires every checkpoint and golden to match it.
Exit status: 0 ok, 1 mismatch, 2 pin violation, 64 usage.
"""
import os
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import pins  # noqa: E402
import reproducible_cpu  # noqa: E402

pins.require_pinned()
reproducible_cpu.pin()
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from diffusers.utils import logging as diffusers_logging  # noqa: E402

import acoustic_geometries as geometries  # noqa: E402
import component_oracle  # noqa: E402
import make_acoustic_checkpoint  # noqa: E402
import make_acoustic_goldens  # noqa: E402
import manifest  # noqa: E402

COMMITTED_MANIFEST = HERE.parent / "goldens" / "acoustic" / "manifest.json"


def build_manifest(outdir, written):
    return {
        "versions": {p: pins.installed_version(p) for p in ("torch", "diffusers", "safetensors", "numpy")},
        "golden_tensors": {"inputs": list(make_acoustic_goldens.INPUTS),
                           "outputs": list(make_acoustic_goldens.OUTPUTS)},
        "producer": reproducible_cpu.describe(),
        "geometries": geometries.GEOMETRIES,
        "rates": geometries.RATES,
        "seeds": list(geometries.SEEDS),
        "cases": {f"{g}/seed{s}": {"frames": geometries.frames(g, s), "step": geometries.timestep_step(g, s)}
                  for g in geometries.GEOMETRIES for s in geometries.SEEDS},
        "files": component_oracle.file_table(outdir, written),
    }


def generate(outdir, checkpoints_only):
    for sub in ("checkpoints",) if checkpoints_only else ("checkpoints", "goldens"):
        shutil.rmtree(outdir / sub, ignore_errors=True)
    written = []
    for geometry in geometries.GEOMETRIES:
        for seed in geometries.SEEDS:
            root = outdir / "checkpoints" / geometry / f"seed{seed}"
            encoder, transformer = make_acoustic_checkpoint.write_checkpoint(geometry, seed, root)
            written += sorted(p for folder in (encoder, transformer) for p in folder.iterdir() if p.is_file())
            if not checkpoints_only:
                golden = outdir / "goldens" / geometry / f"seed{seed}.safetensors"
                written.append(make_acoustic_goldens.write_golden(geometry, seed, encoder, transformer, golden))
    if not checkpoints_only:
        (outdir / "goldens" / "manifest.json").write_text(manifest.dumps(build_manifest(outdir, written)))
    return written


if __name__ == "__main__":
    diffusers_logging.set_verbosity_error()
    diffusers_logging.disable_progress_bar()
    sys.exit(component_oracle.main(sys.argv, "acoustic", generate, COMMITTED_MANIFEST))
