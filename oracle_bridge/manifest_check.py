"""Checks a generator's written files against its committed manifest (sha256, and per safetensors tensor its
dtype, shape and sha256, as manifest.describe() gives them).

Contract: `describe_files(outdir, written)` maps each written path, relative to outdir, to manifest.describe();
`differences(outdir, written, manifest_path)` returns one message per written file whose description differs from
the manifest's `files` entry, one when the manifest is missing, and one per manifest entry under one of `prefixes`
(relative paths; default: every entry) that was not written, so a regeneration passes only when every byte is
what was reviewed and nothing reviewed is missing.
"""
import json

import manifest


def describe_files(outdir, written):
    return {p.relative_to(outdir).as_posix(): manifest.describe(p) for p in sorted(written)}


def differences(outdir, written, manifest_path, prefixes=("",)):
    if not manifest_path.is_file():
        return [f"{manifest_path} is missing"]
    recorded = json.loads(manifest_path.read_text())["files"]
    problems = []
    names = set()
    for path in written:
        key = path.relative_to(outdir).as_posix()
        names.add(key)
        if manifest.describe(path) != recorded.get(key):
            problems.append(f"{key}: differs from the manifest (sha256 {manifest.sha256_file(path)}, recorded "
                            f"{recorded.get(key, {}).get('sha256')})")
    for key in sorted(k for k in set(recorded) - names if k.startswith(tuple(prefixes))):
        problems.append(f"{key}: in the manifest but not written")
    return problems
