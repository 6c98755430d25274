"""Requires the committed goldens, manifest and embedded checkpoint to equal a fresh generate_all.py output.

Usage: compare_committed.py REGEN_DIR [--update]
  REGEN_DIR is generate_all.py's OUTDIR. Compared byte for byte:
    oracle_bridge/goldens/**             with REGEN_DIR/goldens/**  (same set of files, manifest.json included)
    oracle_bridge/embedded/<component>/  with REGEN_DIR/<manifest's embedded path>/
  and the regenerated manifest must describe the regenerated files (sha256 of every listed file).
  Every difference is printed: missing or extra files, the tensors whose bytes differ, the manifest keys that
  differ. Exit status 0 when everything is identical, 1 otherwise.
--update replaces the committed goldens and embedded checkpoint by the regenerated ones (after an intended
change of the generator or a pin), then compares again.
"""
import json
import pathlib
import shutil
import sys

import pins

pins.require_pinned()

import manifest  # noqa: E402
import safetensors_file  # noqa: E402

BRIDGE_DIR = pathlib.Path(__file__).resolve().parent
COMMITTED_GOLDENS = BRIDGE_DIR / "goldens"
COMMITTED_EMBEDDED = BRIDGE_DIR / "embedded"


def _files(root):
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} if root.is_dir() else set()


def _tensor_differences(committed, regenerated):
    """Names of tensors (and metadata) whose header entry or bytes differ between two safetensors files."""
    meta_a, tensors_a = safetensors_file.read_header(committed)
    meta_b, tensors_b = safetensors_file.read_header(regenerated)
    names = ["__metadata__"] if meta_a != meta_b else []
    data_a, data_b = committed.read_bytes(), regenerated.read_bytes()
    for name in sorted(set(tensors_a) | set(tensors_b)):
        a, b = tensors_a.get(name), tensors_b.get(name)
        if a is None or b is None or a["dtype"] != b["dtype"] or a["shape"] != b["shape"] or \
                data_a[slice(*a["data_offsets"])] != data_b[slice(*b["data_offsets"])]:
            names.append(name)
    return names


def _json_differences(a, b, where=""):
    """Dotted keys at which two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in sorted(set(a) | set(b)):
            found += _json_differences(a.get(key), b.get(key), f"{where}.{key}" if where else key)
        return found
    return [] if a == b else [f"{where}: committed {json.dumps(a)}, regenerated {json.dumps(b)}"]


def compare_trees(committed_root, regenerated_root, label):
    problems = []
    committed, regenerated = _files(committed_root), _files(regenerated_root)
    problems += [f"{label}/{name}: committed but not regenerated" for name in sorted(committed - regenerated)]
    problems += [f"{label}/{name}: regenerated but not committed" for name in sorted(regenerated - committed)]
    for name in sorted(committed & regenerated):
        a, b = committed_root / name, regenerated_root / name
        if a.read_bytes() == b.read_bytes():
            continue
        if name.endswith(".safetensors"):
            detail = "tensors differ: " + ", ".join(_tensor_differences(a, b))
        elif name.endswith(".json"):
            detail = "; ".join(_json_differences(json.loads(a.read_text()), json.loads(b.read_text()))) or \
                "same content, different bytes"
        else:
            detail = "bytes differ"
        problems.append(f"{label}/{name}: {detail}")
    return problems, len(committed | regenerated)


def manifest_self_check(regen_dir, listed):
    problems = []
    for name, entry in sorted(listed["files"].items()):
        path = regen_dir / name
        if not path.is_file():
            problems.append(f"manifest lists {name}, which generate_all did not write")
        elif manifest.sha256_file(path) != entry["sha256"]:
            problems.append(f"manifest's sha256 of {name} does not match the file")
    return problems


def compare(regen_dir):
    regen_dir = pathlib.Path(regen_dir).resolve()
    listed = json.loads((regen_dir / "goldens" / "manifest.json").read_text())
    embedded_source = regen_dir / listed["embedded"]["path"]
    component = embedded_source.name
    problems, count = compare_trees(COMMITTED_GOLDENS, regen_dir / "goldens", "goldens")
    more, more_count = compare_trees(COMMITTED_EMBEDDED / component, embedded_source, f"embedded/{component}")
    problems += more + manifest_self_check(regen_dir, listed)
    return problems, count + more_count


def update(regen_dir):
    regen_dir = pathlib.Path(regen_dir).resolve()
    listed = json.loads((regen_dir / "goldens" / "manifest.json").read_text())
    embedded_source = regen_dir / listed["embedded"]["path"]
    shutil.rmtree(COMMITTED_GOLDENS, ignore_errors=True)
    shutil.copytree(regen_dir / "goldens", COMMITTED_GOLDENS)
    shutil.rmtree(COMMITTED_EMBEDDED, ignore_errors=True)
    shutil.copytree(embedded_source, COMMITTED_EMBEDDED / embedded_source.name)


def main(argv):
    args = [a for a in argv[1:] if a != "--update"]
    if len(args) != 1:
        print(f"usage: {argv[0]} REGEN_DIR [--update]", file=sys.stderr)
        return 64
    if len(args) != len(argv) - 1:
        update(args[0])
    problems, count = compare(args[0])
    for problem in problems:
        print(f"compare_committed: {problem}", file=sys.stderr)
    if problems:
        print(f"compare_committed: {len(problems)} differences; if the change is intended, regenerate and run "
              f"{argv[0]} REGEN_DIR --update", file=sys.stderr)
        return 1
    print(f"compare_committed: {count} committed files identical to the regenerated ones")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
