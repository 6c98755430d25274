"""Writes every geometry x seed checkpoint, every golden, and the manifest that describes them.

Usage: generate_all.py OUTDIR [--checkpoints-only]
  OUTDIR/checkpoints/<geometry>/seed<k>/rvq_depth_decoder/{config.json,diffusion_pytorch_model.safetensors}
  OUTDIR/goldens/<geometry>/seed<k>.safetensors
  OUTDIR/goldens/manifest.json: package and python versions, upstream sampling constants, the geometry table,
    seeds, which golden tensors are inputs and which outputs, the producer (CPU model and flags, torch's CPU
    capability and backends: provenance, never compared), and for every file (path relative to OUTDIR) its
    sha256 and per tensor its dtype, shape and sha256.
OUTDIR/checkpoints (and OUTDIR/goldens, unless --checkpoints-only) are removed first, so nothing stale survives.

--checkpoints-only writes the checkpoints alone (the ctest fixture `oracle_checkpoints`) and then requires each
to match the sha256 recorded in the committed manifest, oracle_bridge/goldens/depth/manifest.json, so C++ gates read
exactly the weights the committed goldens were made from. Exit status: 0 ok, 1 mismatch, 2 pin violation.
"""
import os
import pathlib
import shutil
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # the shared bridge modules
import pins  # noqa: E402
import reproducible_cpu

pins.require_pinned()
reproducible_cpu.pin()
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from diffusers.modular_pipelines.minimax_music3 import encoders  # noqa: E402
from diffusers.utils import logging as diffusers_logging  # noqa: E402

import component_oracle  # noqa: E402
import geometries  # noqa: E402
import make_checkpoint  # noqa: E402
import make_goldens  # noqa: E402
import manifest  # noqa: E402

BRIDGE_DIR = pathlib.Path(__file__).resolve().parent.parent
COMMITTED_MANIFEST = BRIDGE_DIR / "goldens" / "depth" / "manifest.json"


def checkpoint_root(outdir, geometry, seed):
    return outdir / "checkpoints" / geometry / f"seed{seed}"


def golden_file(outdir, geometry, seed):
    return outdir / "goldens" / geometry / f"seed{seed}.safetensors"


def versions():
    """The pinned packages' versions (pins.py enforces them; the interpreter's version is the producer's)."""
    return {package: pins.installed_version(package)
            for package in ("torch", "diffusers", "safetensors", "numpy", "transformers")}


def build_manifest(outdir, written):
    geometry, seed = geometries.EMBEDDED
    return {
        "versions": versions(),
        "upstream": {"cfg_scale": encoders._AR_CFG_SCALE, "top_k": encoders._AR_SAMPLING_TOP_K},
        "golden_tensors": {"inputs": list(make_goldens.INPUTS), "outputs": list(make_goldens.OUTPUTS)},
        "producer": reproducible_cpu.describe(),
        "geometries": geometries.GEOMETRIES,
        "seeds": list(geometries.SEEDS),
        "embedded": {"geometry": geometry, "seed": seed,
                     "path": f"checkpoints/{geometry}/seed{seed}/{make_checkpoint.COMPONENT}"},
        "files": component_oracle.file_table(outdir, written),
    }


def generate(outdir, checkpoints_only):
    """Writes the files; returns the list of written paths."""
    outdir = pathlib.Path(outdir).resolve()
    for sub in ("checkpoints",) if checkpoints_only else ("checkpoints", "goldens"):
        shutil.rmtree(outdir / sub, ignore_errors=True)
    written = []
    for geometry in geometries.GEOMETRIES:
        for seed in geometries.SEEDS:
            root = checkpoint_root(outdir, geometry, seed)
            folder = make_checkpoint.write_checkpoint(geometry, seed, root)
            written += sorted(p for p in folder.iterdir() if p.is_file())
            if not checkpoints_only:
                written.append(make_goldens.write_golden(geometry, seed, root, golden_file(outdir, geometry, seed)))
    if not checkpoints_only:
        (outdir / "goldens" / "manifest.json").write_text(manifest.dumps(build_manifest(outdir, written)))
    return outdir, written


def main(argv):
    args = [a for a in argv[1:] if a != "--checkpoints-only"]
    checkpoints_only = len(args) != len(argv) - 1
    if len(args) != 1:
        print(f"usage: {argv[0]} OUTDIR [--checkpoints-only]", file=sys.stderr)
        return 64
    diffusers_logging.set_verbosity_error()
    started = time.monotonic()
    try:
        outdir, written = generate(args[0], checkpoints_only)
    except make_goldens.GoldenSelfCheckError as error:
        print(f"generate_all: golden self-check failed: {error}", file=sys.stderr)
        return 1
    if checkpoints_only:
        problems = component_oracle.committed_problems(outdir, written, COMMITTED_MANIFEST)
        for problem in problems:
            print(f"generate_all: checkpoint differs from the committed manifest: {problem}", file=sys.stderr)
        if problems:
            return 1
    print(f"generate_all: wrote {len(written)} files under {outdir} in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
