"""Writes every LM-oracle checkpoint and golden, and checks them against the committed manifest.

  generate.py OUT_DIR [--write-manifest] [--checkpoints-only]

Contract: OUT_DIR/checkpoints/<geometry>/seed<k>/{language_model,rvq_depth_decoder}/ (lm_checkpoint.py) and
OUT_DIR/goldens/<geometry>/seed<k>.safetensors (lm_goldens.py), for every geometry and seed of lm_geometries.py;
both folders are removed first, so nothing stale survives. Every written file's sha256, and per safetensors
tensor its dtype, shape and sha256, must equal oracle_bridge/goldens/lm/manifest.json (exit 1 naming every file that
differs), so the gates read exactly what was reviewed: under reproducible_cpu's pins the bytes do not depend on
the machine's instruction set (the depth oracle's measurement); a machine that escapes the pins fails here,
loudly. --write-manifest rewrites the manifest instead (after an intended change); it records the versions,
the geometry table, seeds, golden tensor roles, per-golden metadata and the producer (provenance, never
compared). Exit status: 0 ok, 1 mismatch or self-check failure, 2 pin violation, 64 usage.
"""
import json
import os
import pathlib
import shutil
import sys
import time

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
from transformers.utils import logging as transformers_logging  # noqa: E402

import lm_checkpoint  # noqa: E402
import lm_geometries  # noqa: E402
import lm_goldens  # noqa: E402
import manifest  # noqa: E402

MANIFEST = HERE.parent / "goldens" / "lm" / "manifest.json"


def generate(outdir, checkpoints_only):
    outdir = pathlib.Path(outdir).resolve()
    for sub in ("checkpoints",) if checkpoints_only else ("checkpoints", "goldens"):
        shutil.rmtree(outdir / sub, ignore_errors=True)
    written, runs = [], {}
    for geometry in lm_geometries.GEOMETRIES:
        for seed in lm_geometries.SEEDS:
            root = lm_checkpoint.write_checkpoint(geometry, seed, outdir / "checkpoints" / geometry / f"seed{seed}")
            written += sorted(p for p in root.rglob("*") if p.is_file())
            if not checkpoints_only:
                path, metadata = lm_goldens.write_golden(geometry, seed, root,
                                                         outdir / "goldens" / geometry / f"seed{seed}.safetensors")
                written.append(path)
                runs[f"{geometry}/seed{seed}"] = metadata
    return outdir, written, runs


def build_manifest(outdir, written, runs):
    return {
        "versions": {p: pins.installed_version(p) for p in ("torch", "diffusers", "safetensors", "numpy",
                                                             "transformers")},
        "golden_tensors": {"inputs": list(lm_goldens.INPUTS), "outputs": list(lm_goldens.OUTPUTS)},
        "producer": reproducible_cpu.describe(),
        "geometries": lm_geometries.GEOMETRIES,
        "seeds": list(lm_geometries.SEEDS),
        "runs": runs,
        "files": {p.relative_to(outdir).as_posix(): manifest.describe(p) for p in sorted(written)},
    }


def differences(outdir, written):
    if not MANIFEST.is_file():
        return [f"{MANIFEST} is missing"]
    recorded = json.loads(MANIFEST.read_text())["files"]
    problems = []
    for path in written:
        key = path.relative_to(outdir).as_posix()
        if manifest.describe(path) != recorded.get(key):
            problems.append(f"{key}: differs from the manifest (sha256 {manifest.sha256_file(path)}, recorded "
                            f"{recorded.get(key, {}).get('sha256')})")
    return problems


def main(argv):
    flags = {a for a in argv[1:] if a.startswith("--")}
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 1 or not flags <= {"--write-manifest", "--checkpoints-only"}:
        print(f"usage: {argv[0]} OUT_DIR [--write-manifest] [--checkpoints-only]", file=sys.stderr)
        return 64
    diffusers_logging.set_verbosity_error()
    transformers_logging.set_verbosity_error()
    started = time.monotonic()
    try:
        outdir, written, runs = generate(args[0], "--checkpoints-only" in flags)
    except lm_goldens.GoldenSelfCheckError as error:
        print(f"generate.py: golden self-check failed: {error}", file=sys.stderr)
        return 1
    if "--write-manifest" in flags:
        MANIFEST.write_text(manifest.dumps(build_manifest(outdir, written, runs)))
        print(f"generate.py: wrote {MANIFEST}")
    else:
        problems = differences(outdir, written)
        for problem in problems:
            print(f"generate.py: {problem}", file=sys.stderr)
        if problems:
            return 1
    print(f"generate.py: {len(written)} files under {outdir} in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
