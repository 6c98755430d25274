"""What every component's oracle generator shares: seeded re-drawing of a module's parameters, and the checked
golden set (every written file against the committed manifest, or the manifest rewritten after an intended change).

Contract:
- `redraw(model, seed, rule)` replaces every parameter of `model`, in sorted name order, with
  `rule(name, shape, generator)` (a float32 tensor) from one CPU torch.Generator seeded with `seed`; a rule that
  raises for an unknown name keeps an upstream change from leaving default-initialised weights. Returns the model.
- `differences(outdir, written, manifest_path)` lists, per written file, a message when its manifest.describe()
  (sha256, and per safetensors tensor dtype/shape/sha256) differs from the committed manifest's entry.
- `main(argv, label, manifest_path, generate, build_manifest)` is a generator's command line
  `OUT_DIR [--write-manifest]`: `generate(outdir)` writes everything and returns the written paths;
  --write-manifest writes `build_manifest(outdir, written)` to manifest_path, otherwise every file must equal the
  manifest. Exit status: 0 ok, 1 mismatch, 64 usage (the caller has already refused a pin violation with 2).
"""
import json
import pathlib
import sys
import time

import torch

import manifest


def redraw(model, seed, rule):
    params = dict(model.named_parameters())
    generator = torch.Generator(device="cpu").manual_seed(seed)
    with torch.no_grad():
        for name in sorted(params):
            params[name].data = rule(name, tuple(params[name].shape), generator).to(params[name].dtype)
    return model


def describe_files(outdir, written):
    return {p.relative_to(outdir).as_posix(): manifest.describe(p) for p in sorted(written)}


def differences(outdir, written, manifest_path):
    if not manifest_path.is_file():
        return [f"{manifest_path} is missing"]
    recorded = json.loads(manifest_path.read_text())["files"]
    problems = []
    for path in written:
        key = path.relative_to(outdir).as_posix()
        if manifest.describe(path) != recorded.get(key):
            problems.append(f"{key}: differs from the manifest (sha256 {manifest.sha256_file(path)}, recorded "
                            f"{recorded.get(key, {}).get('sha256')})")
    missing = sorted(set(recorded) - {p.relative_to(outdir).as_posix() for p in written})
    problems += [f"{key}: in the manifest, not written" for key in missing]
    return problems


def main(argv, label, manifest_path, generate, build_manifest):
    flags = {a for a in argv[1:] if a.startswith("--")}
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 1 or not flags <= {"--write-manifest"}:
        print(f"usage: {argv[0]} OUT_DIR [--write-manifest]", file=sys.stderr)
        return 64
    started = time.monotonic()
    outdir = pathlib.Path(args[0]).resolve()
    written = generate(outdir)
    if "--write-manifest" in flags:
        manifest_path.parent.mkdir(parents=True, exist_ok=True)
        manifest_path.write_text(manifest.dumps(build_manifest(outdir, written)))
        print(f"{label}: wrote {manifest_path}")
    else:
        problems = differences(outdir, written, manifest_path)
        for problem in problems:
            print(f"{label}: {problem}", file=sys.stderr)
        if problems:
            return 1
    print(f"{label}: {len(written)} files under {outdir} in {time.monotonic() - started:.1f} s")
    return 0
