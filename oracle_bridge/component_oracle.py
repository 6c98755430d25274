"""What a component's oracle generator shares with the others: parameter re-drawing, the manifest's file table,
the check of regenerated checkpoints against the committed manifest, and the command line.

Contract:
  redraw(model, seed, draw): re-draws every parameter of `model` from one CPU torch.Generator seeded with `seed`,
    in sorted parameter-name order, as float32 values from draw(name, shape, generator); draw raises for a name it
    has no rule for, so an upstream change cannot leave a default (constant) initialisation in place. Returns the
    sorted names.
  file_table(outdir, written): {posix path relative to outdir: manifest.describe(path)} for every written file.
  committed_problems(outdir, written, committed): one message per written file whose sha256 differs from the one
    the committed manifest records (or every file, when that manifest is missing).
  main(argv, tag, generate, committed): usage `OUTDIR [--checkpoints-only | --check]`; calls generate(outdir,
    checkpoints_only) -> written paths; with --checkpoints-only (checkpoints alone) or --check (everything: the
    committed goldens are what the pinned upstream code produces here), requires every written file to match the
    committed manifest. Exit status: 0 ok, 1 mismatch, 64 usage.
  main_regenerated(argv, tag, generate, committed, build_manifest): for a component whose goldens are regenerated
    at test time, not committed: usage `OUTDIR [--write-manifest]`; calls generate(outdir) -> written paths; with
    --write-manifest writes build_manifest(outdir, written) to `committed`, otherwise every written file must match
    it and every file it records must have been written. Exit status: 0 ok, 1 mismatch, 64 usage.
Import it after pins.require_pinned() and reproducible_cpu.pin(): it imports torch lazily, inside redraw().
"""
import json
import sys
import time

import manifest


def redraw(model, seed, draw):
    import torch
    params = dict(model.named_parameters())
    generator = torch.Generator(device="cpu").manual_seed(seed)
    with torch.no_grad():
        for name in sorted(params):
            params[name].data = draw(name, tuple(params[name].shape), generator).to(params[name].dtype)
    return sorted(params)


def file_table(outdir, written):
    return {p.relative_to(outdir).as_posix(): manifest.describe(p) for p in sorted(written)}


def committed_problems(outdir, written, committed):
    if not committed.is_file():
        return [f"{committed} is missing: cannot vouch for the checkpoints"]
    recorded = json.loads(committed.read_text())["files"]
    problems = []
    for path in written:
        key = path.relative_to(outdir).as_posix()
        actual, expected = manifest.sha256_file(path), recorded.get(key, {}).get("sha256")
        if actual != expected:
            problems.append(f"{key}: sha256 {actual}, committed manifest records {expected}")
    return problems


def main(argv, tag, generate, committed):
    import pathlib
    flags = [a for a in argv[1:] if a.startswith("--")]
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 1 or len(flags) > 1 or any(f not in ("--checkpoints-only", "--check") for f in flags):
        print(f"usage: {argv[0]} OUTDIR [--checkpoints-only | --check]", file=sys.stderr)
        return 64
    checkpoints_only, check = "--checkpoints-only" in flags, "--check" in flags
    started = time.monotonic()
    outdir = pathlib.Path(args[0]).resolve()
    written = generate(outdir, checkpoints_only)
    if checkpoints_only or check:
        problems = committed_problems(outdir, written, committed)
        for problem in problems:
            print(f"{tag} oracle: a written file differs from the committed manifest: {problem}", file=sys.stderr)
        if problems:
            return 1
    print(f"{tag} oracle: wrote {len(written)} files under {outdir} in {time.monotonic() - started:.1f} s")
    return 0


def main_regenerated(argv, tag, generate, committed, build_manifest):
    import pathlib
    flags = {a for a in argv[1:] if a.startswith("--")}
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 1 or not flags <= {"--write-manifest"}:
        print(f"usage: {argv[0]} OUTDIR [--write-manifest]", file=sys.stderr)
        return 64
    started = time.monotonic()
    outdir = pathlib.Path(args[0]).resolve()
    written = generate(outdir)
    if "--write-manifest" in flags:
        committed.parent.mkdir(parents=True, exist_ok=True)
        committed.write_text(manifest.dumps(build_manifest(outdir, written)))
        print(f"{tag} oracle: wrote {committed}")
    else:
        problems = committed_problems(outdir, written, committed)
        if committed.is_file():
            keys = {p.relative_to(outdir).as_posix() for p in written}
            problems += [f"{key}: in the committed manifest, not written"
                         for key in sorted(set(json.loads(committed.read_text())["files"]) - keys)]
        for problem in problems:
            print(f"{tag} oracle: {problem}", file=sys.stderr)
        if problems:
            return 1
    print(f"{tag} oracle: {len(written)} files under {outdir} in {time.monotonic() - started:.1f} s")
    return 0
