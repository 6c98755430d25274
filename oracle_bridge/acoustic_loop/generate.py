"""Writes every window-loop oracle checkpoint and golden, and checks them against the committed manifest.

  generate.py OUT_DIR [--write-manifest]

Contract: OUT_DIR/checkpoints/<geometry>/seed<k>/{condition_encoder,transformer}/ (loop_checkpoint.py) and
OUT_DIR/goldens/<geometry>/seed<k>.safetensors (loop_goldens.py) for every geometry and seed of
loop_geometries.py, and OUT_DIR/goldens/schedules.safetensors (the scheduler's sigmas for many N); both folders are removed first. Every written file's sha256 and per-tensor dtype, shape and
sha256 must equal oracle_bridge/goldens/acoustic_loop/manifest.json (component_oracle.main_regenerated), so the gates read exactly
what was reviewed (reproducible_cpu's pins make the bytes independent of the instruction set). --write-manifest
rewrites the manifest (after an intended change) with the versions, geometry table, seeds, golden tensor roles,
per-golden metadata and the producer (provenance, never compared). Exit status: 0 ok, 1 mismatch or self-check
failure, 2 pin violation, 64 usage.
"""
import os
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

import pins  # noqa: E402
import reproducible_cpu  # noqa: E402

pins.require_pinned()
reproducible_cpu.pin()

from diffusers.utils import logging as diffusers_logging  # noqa: E402

import component_oracle  # noqa: E402
import loop_checkpoint  # noqa: E402
import loop_geometries as geometries  # noqa: E402
import loop_goldens  # noqa: E402

MANIFEST = HERE.parent / "goldens" / "acoustic_loop" / "manifest.json"
RUNS = {}


def generate(outdir):
    for sub in ("checkpoints", "goldens"):
        shutil.rmtree(outdir / sub, ignore_errors=True)
    written = [loop_goldens.write_schedules(outdir / "goldens" / "schedules.safetensors")]
    for geometry in geometries.GEOMETRIES:
        for seed in geometries.SEEDS:
            root = loop_checkpoint.write_checkpoint(geometry, seed, outdir / "checkpoints" / geometry / f"seed{seed}")
            written += sorted(p for p in root.rglob("*") if p.is_file())
            path, metadata = loop_goldens.write_golden(geometry, seed, root,
                                                       outdir / "goldens" / geometry / f"seed{seed}.safetensors")
            written.append(path)
            RUNS[f"{geometry}/seed{seed}"] = metadata
    return written


def build_manifest(outdir, written):
    return {
        "versions": {p: pins.installed_version(p) for p in ("torch", "diffusers", "safetensors", "numpy")},
        "golden_tensors": {"inputs": list(loop_goldens.INPUTS), "outputs": list(loop_goldens.OUTPUTS)},
        "producer": reproducible_cpu.describe(),
        "geometries": geometries.GEOMETRIES,
        "seeds": list(geometries.SEEDS),
        "schedule_steps": list(loop_goldens.SCHEDULE_STEPS),
        "runs": RUNS,
        "files": component_oracle.file_table(outdir, written),
    }


if __name__ == "__main__":
    diffusers_logging.set_verbosity_error()
    try:
        sys.exit(component_oracle.main_regenerated(sys.argv, "acoustic loop", generate, MANIFEST, build_manifest))
    except loop_goldens.GoldenSelfCheckError as error:
        print(f"acoustic loop oracle: golden self-check failed: {error}", file=sys.stderr)
        sys.exit(1)
