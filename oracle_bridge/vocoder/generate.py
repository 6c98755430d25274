"""Writes every vocoder checkpoint and golden and the manifest that describes them.

Usage: generate.py OUTDIR [--checkpoints-only | --check]
  OUTDIR/checkpoints/<geometry>/seed<k>/vocoder/{config.json,diffusion_pytorch_model.safetensors}
  OUTDIR/goldens/parity/<geometry>/seed<k>.safetensors, OUTDIR/goldens/stitch/seed<k>.safetensors
  OUTDIR/goldens/manifest.json: the pinned versions, the geometry table, seeds, crops and hop, which golden tensors
    are inputs and which outputs, the producer (provenance, never compared), and per file its sha256 and per
    tensor its dtype, shape and sha256.
OUTDIR/checkpoints (and OUTDIR/goldens, unless --checkpoints-only) are removed first. The committed copies live in
oracle_bridge/goldens/vocoder/ (copy OUTDIR/goldens/* there after an intended change).
--checkpoints-only writes the checkpoints alone (the ctest fixture `vocoder_oracle`) and requires each to match the
sha256 in the committed manifest, so the gates read exactly the weights the goldens were made from; --check requires
every written file to match it (the committed goldens are what the pinned upstream code produces here).
Exit status: 0 ok, 1 mismatch, 2 pin violation, 64 usage (component_oracle.main).
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

import component_oracle  # noqa: E402
import make_vocoder_checkpoint  # noqa: E402
import make_vocoder_goldens  # noqa: E402
import manifest  # noqa: E402
import vocoder_geometries as geometries  # noqa: E402

COMMITTED_MANIFEST = HERE.parent / "goldens" / "vocoder" / "manifest.json"


def build_manifest(outdir, written):
    return {
        "versions": {p: pins.installed_version(p) for p in ("torch", "diffusers", "safetensors", "numpy")},
        "upstream": {"hop": geometries.HOP, "crop_left": geometries.CROP_LEFT, "crop_right": geometries.CROP_RIGHT},
        "golden_tensors": {"inputs": list(make_vocoder_goldens.INPUTS), "outputs": list(make_vocoder_goldens.OUTPUTS)},
        "producer": reproducible_cpu.describe(),
        "geometries": geometries.GEOMETRIES,
        "seeds": list(geometries.SEEDS),
        "stitch": {"geometry": geometries.STITCH_GEOMETRY,
                   "lengths": {str(s): geometries.stitch_lengths(s) for s in geometries.SEEDS}},
        "files": component_oracle.file_table(outdir, written),
    }


def generate(outdir, checkpoints_only):
    for sub in ("checkpoints",) if checkpoints_only else ("checkpoints", "goldens"):
        shutil.rmtree(outdir / sub, ignore_errors=True)
    written = []
    for geometry in geometries.GEOMETRIES:
        for seed in geometries.SEEDS:
            root = outdir / "checkpoints" / geometry / f"seed{seed}"
            folder = make_vocoder_checkpoint.write_checkpoint(geometry, seed, root)
            written += sorted(p for p in folder.iterdir() if p.is_file())
            if checkpoints_only:
                continue
            golden = outdir / "goldens" / "parity" / geometry / f"seed{seed}.safetensors"
            written.append(make_vocoder_goldens.write_parity(geometry, seed, folder, golden))
            if geometry == geometries.STITCH_GEOMETRY:
                stitch = outdir / "goldens" / "stitch" / f"seed{seed}.safetensors"
                written.append(make_vocoder_goldens.write_stitch(seed, folder, stitch))
    if not checkpoints_only:
        (outdir / "goldens" / "manifest.json").write_text(manifest.dumps(build_manifest(outdir, written)))
    return written


if __name__ == "__main__":
    diffusers_logging.set_verbosity_error()
    sys.exit(component_oracle.main(sys.argv, "vocoder", generate, COMMITTED_MANIFEST))
