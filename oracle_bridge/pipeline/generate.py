"""Writes every tiny pipeline and every song's trace of the pipeline oracle, and checks them against the committed
manifest.

  generate.py OUT_DIR --tiktoken PATH [--write-manifest] [--checkpoints-only]

Contract: OUT_DIR/pipelines/<geometry>/ (pipeline_checkpoint.py: the hub layout, written by upstream's
save_pretrained) for every geometry of pipeline_geometries.py, and OUT_DIR/traces/<case>.safetensors
(pipeline_trace.py: the real MiniMaxMusic3ModularPipeline loaded from that folder) for every case; both folders are
removed first, so nothing stale survives. The traces are written by up to MAX_WORKERS spawned processes (one per
usable core; each is pinned as this one, one torch thread), each song's bytes independent of the others'. --checkpoints-only writes the pipelines alone (the embedded default for
scripts/run). Every written file's sha256, and per safetensors tensor its dtype, shape and sha256, must equal
oracle_bridge/goldens/pipeline/manifest.json (exit 1 naming every file that differs or is missing): under
reproducible_cpu's pins the bytes do not depend on the machine, so a regeneration is byte-identical or fails here.
--write-manifest rewrites the manifest instead (after an intended change), recording the versions, geometries,
cases, the perturbed parameters per component, per-trace metadata and the producer (provenance, never compared).
--tiktoken: dashscope==2.0.2's qwen.tiktoken (scripts/install-deps downloads it to .downloads/), the real
vocabulary of the tiny_qwen geometry; a missing file exits 2 naming it.
Exit status: 0 ok, 1 mismatch or self-check failure, 2 pin violation or no tiktoken file, 64 usage.
"""
import multiprocessing
import os
import pathlib
import shutil
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TQDM_DISABLE"] = "1"

import pins  # noqa: E402
import reproducible_cpu  # noqa: E402

pins.require_pinned()
reproducible_cpu.pin()

import warnings  # noqa: E402

from diffusers.utils import logging as diffusers_logging  # noqa: E402
from transformers.utils import logging as transformers_logging  # noqa: E402

import manifest  # noqa: E402
import manifest_check  # noqa: E402
import pipeline_checkpoint  # noqa: E402
import pipeline_geometries  # noqa: E402
import pipeline_trace  # noqa: E402

MANIFEST = HERE.parent / "goldens" / "pipeline" / "manifest.json"
MAX_WORKERS = 4


def generate(outdir, checkpoints_only, tiktoken):
    outdir = pathlib.Path(outdir).resolve()
    for sub in ("pipelines", "traces"):
        shutil.rmtree(outdir / sub, ignore_errors=True)
    written, perturbed, traces = [], {}, {}
    for geometry in pipeline_geometries.GEOMETRIES:
        root, perturbed[geometry] = pipeline_checkpoint.write_pipeline(geometry, outdir / "pipelines" / geometry,
                                                                        tiktoken)
        written += sorted(p for p in root.rglob("*") if p.is_file())
    if not checkpoints_only:
        jobs = [(name, outdir / "pipelines" / geometry, outdir / "traces" / f"{name}.safetensors")
                for name, geometry, *_ in pipeline_geometries.CASES]
        workers = min(len(jobs), len(os.sched_getaffinity(0)), MAX_WORKERS)
        context = multiprocessing.get_context("spawn")  # each worker imports pipeline_trace: pinned as this process
        with context.Pool(workers, initializer=_quiet) as pool:
            results = pool.starmap(pipeline_trace.write_trace, jobs, chunksize=1)
            pool.close()
            pool.join()
        for path, metadata in results:
            written.append(path)
            traces[metadata["case"]] = metadata
    return outdir, written, perturbed, traces


def _quiet():
    diffusers_logging.set_verbosity_error()
    transformers_logging.set_verbosity_error()
    warnings.filterwarnings("ignore", category=FutureWarning)


def build_manifest(outdir, written, perturbed, traces):
    return {
        "versions": {p: pins.installed_version(p) for p in ("torch", "diffusers", "transformers", "tokenizers",
                                                             "safetensors", "numpy")},
        "producer": reproducible_cpu.describe(),
        "geometries": pipeline_geometries.GEOMETRIES,
        "embedded": pipeline_geometries.EMBEDDED,
        "cases": [list(case) for case in pipeline_geometries.CASES],
        "early_eos": pipeline_geometries.EARLY_EOS,
        "perturbed": perturbed,
        "traces": traces,
        "files": manifest_check.describe_files(outdir, written),
    }


def main(argv):
    rest = list(argv[1:])
    tiktoken = None
    if "--tiktoken" in rest:
        at = rest.index("--tiktoken")
        tiktoken = rest[at + 1] if at + 1 < len(rest) else None
        del rest[at:at + 2]
    flags = {a for a in rest if a.startswith("--")}
    args = [a for a in rest if not a.startswith("--")]
    if len(args) != 1 or not tiktoken or not flags <= {"--write-manifest", "--checkpoints-only"}:
        print(f"usage: {argv[0]} OUT_DIR --tiktoken PATH [--write-manifest] [--checkpoints-only]", file=sys.stderr)
        return 64
    if not pathlib.Path(tiktoken).is_file():
        print(f"generate.py: {tiktoken}: no such file (scripts/install-deps downloads qwen.tiktoken)", file=sys.stderr)
        return 2
    if "--write-manifest" in flags and "--checkpoints-only" in flags:
        print("generate.py: --write-manifest needs the traces too", file=sys.stderr)
        return 64
    _quiet()
    started = time.monotonic()
    try:
        outdir, written, perturbed, traces = generate(args[0], "--checkpoints-only" in flags, tiktoken)
    except pipeline_trace.TraceSelfCheckError as error:
        print(f"generate.py: trace self-check failed: {error}", file=sys.stderr)
        return 1
    if "--write-manifest" in flags:
        MANIFEST.parent.mkdir(parents=True, exist_ok=True)
        MANIFEST.write_text(manifest.dumps(build_manifest(outdir, written, perturbed, traces)))
        print(f"generate.py: wrote {MANIFEST}")
    else:
        prefixes = ("pipelines/",) if "--checkpoints-only" in flags else ("",)
        problems = manifest_check.differences(outdir, written, MANIFEST, prefixes)
        for problem in problems:
            print(f"generate.py: {problem}", file=sys.stderr)
        if problems:
            return 1
    print(f"generate.py: {len(written)} files under {outdir} in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
