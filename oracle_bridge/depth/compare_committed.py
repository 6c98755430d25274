"""Requires what must be bit-identical on every machine to equal a fresh generate_all.py output.

Usage: compare_committed.py REGEN_DIR [--update]
  REGEN_DIR is generate_all.py's OUTDIR. Byte for byte:
    oracle_bridge/embedded/<component>/  with REGEN_DIR/<manifest's embedded path>/ (checkpoint and config);
    oracle_bridge/goldens/depth/**       with REGEN_DIR/goldens/**: the same set of files; per golden its
                                         metadata, every tensor's dtype and shape, and the bytes of the manifest's
                                         input tensors (inputs, recorded draws);
    goldens/manifest.json                every key but the producer (provenance) and the sha256 of golden files
                                         and of their output tensors;
  the regenerated manifest must describe the regenerated files (sha256 of every listed file), and its producer
  must show reproducible_cpu's settings in effect (capability DEFAULT, oneDNN off, one thread, the environment).
  The output tensors (upstream's bf16 computation) are not compared here: gate_depth_oracle_regen compares them
  with the parity gates' ULP statistics and near-tie rule. This script reports how many are bit-identical.
  Every difference is printed. Exit status 0 when everything required is identical, 1 otherwise.
--update replaces the committed goldens and embedded checkpoint by the regenerated ones (after an intended
change of the generator or a pin), then compares again.
"""
import json
import pathlib
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # the shared bridge modules
import pins  # noqa: E402

pins.require_pinned()

import manifest  # noqa: E402
import reproducible_cpu  # noqa: E402
import safetensors_file  # noqa: E402

BRIDGE_DIR = pathlib.Path(__file__).resolve().parent.parent
COMMITTED_GOLDENS = BRIDGE_DIR / "goldens" / "depth"
COMMITTED_EMBEDDED = BRIDGE_DIR / "embedded"


def _files(root):
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} if root.is_dir() else set()


def _differing_tensors(committed, regenerated, names=None):
    """Names of tensors (and metadata) whose header entry differs, or, for `names` (None: all), whose bytes differ."""
    meta_a, tensors_a = safetensors_file.read_header(committed)
    meta_b, tensors_b = safetensors_file.read_header(regenerated)
    found = ["__metadata__"] if meta_a != meta_b else []
    data_a, data_b = committed.read_bytes(), regenerated.read_bytes()
    for name in sorted(set(tensors_a) | set(tensors_b)):
        a, b = tensors_a.get(name), tensors_b.get(name)
        if a is None or b is None or a["dtype"] != b["dtype"] or a["shape"] != b["shape"]:
            found.append(name)
        elif (names is None or name in names) and \
                data_a[slice(*a["data_offsets"])] != data_b[slice(*b["data_offsets"])]:
            found.append(name)
    return found


def _json_differences(a, b, where=""):
    """Dotted keys at which two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in sorted(set(a) | set(b)):
            found += _json_differences(a.get(key), b.get(key), f"{where}.{key}" if where else key)
        return found
    return [] if a == b else [f"{where}: committed {json.dumps(a)}, regenerated {json.dumps(b)}"]


def machine_independent(listed):
    """The manifest without what may move between machines: the producer, and the sha256 of golden files and of
    their output tensors."""
    kept = {key: value for key, value in listed.items() if key != "producer"}
    outputs = set(listed.get("golden_tensors", {}).get("outputs", []))
    files = {}
    for name, entry in listed["files"].items():
        if name.startswith("goldens/"):
            entry = {"tensors": {tensor: {k: v for k, v in t.items() if k != "sha256" or tensor not in outputs}
                                 for tensor, t in entry.get("tensors", {}).items()}}
        files[name] = entry
    kept["files"] = files
    return kept


def compare_goldens(committed_root, regenerated_root, inputs, outputs):
    """Problems, the number of files compared, and (identical, total) counts of output tensors."""
    problems = []
    committed, regenerated = _files(committed_root), _files(regenerated_root)
    problems += [f"goldens/{name}: committed but not regenerated" for name in sorted(committed - regenerated)]
    problems += [f"goldens/{name}: regenerated but not committed" for name in sorted(regenerated - committed)]
    identical_outputs = total_outputs = 0
    for name in sorted(committed & regenerated):
        a, b = committed_root / name, regenerated_root / name
        if name == "manifest.json":
            detail = "; ".join(_json_differences(machine_independent(json.loads(a.read_text())),
                                                 machine_independent(json.loads(b.read_text()))))
        elif name.endswith(".safetensors"):
            differing = _differing_tensors(a, b, set(inputs))
            detail = ("inputs or layout differ: " + ", ".join(differing)) if differing else ""
            moved = _differing_tensors(a, b, set(outputs))
            total_outputs += len(outputs)
            identical_outputs += len(outputs) - len(moved)
        else:
            detail = "bytes differ" if a.read_bytes() != b.read_bytes() else ""
        if detail:
            problems.append(f"goldens/{name}: {detail}")
    return problems, len(committed | regenerated), (identical_outputs, total_outputs)


def compare_trees(committed_root, regenerated_root, label):
    """Byte-for-byte comparison of two folders (the embedded checkpoint)."""
    problems = []
    committed, regenerated = _files(committed_root), _files(regenerated_root)
    problems += [f"{label}/{name}: committed but not regenerated" for name in sorted(committed - regenerated)]
    problems += [f"{label}/{name}: regenerated but not committed" for name in sorted(regenerated - committed)]
    for name in sorted(committed & regenerated):
        a, b = committed_root / name, regenerated_root / name
        if a.read_bytes() != b.read_bytes():
            detail = ("tensors differ: " + ", ".join(_differing_tensors(a, b))) if name.endswith(".safetensors") \
                else "bytes differ"
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


def producer_check(listed):
    """Problems with the regeneration's producer record: the settings that make outputs ISA-independent."""
    producer = listed.get("producer", {})
    want = {"torch_cpu_capability": "DEFAULT", "mkldnn_enabled": False, "threads": 1,
            "environment": dict(sorted(reproducible_cpu.PINNED_ENVIRONMENT.items()))}
    return [f"the regeneration did not run pinned: producer.{key} is {json.dumps(producer.get(key))}, "
            f"expected {json.dumps(value)}" for key, value in want.items() if producer.get(key) != value]


def compare(regen_dir):
    regen_dir = pathlib.Path(regen_dir).resolve()
    listed = json.loads((regen_dir / "goldens" / "manifest.json").read_text())
    committed_listed = json.loads((COMMITTED_GOLDENS / "manifest.json").read_text())
    roles = committed_listed.get("golden_tensors", {})
    embedded_source = regen_dir / listed["embedded"]["path"]
    component = embedded_source.name
    problems, count, outputs = compare_goldens(COMMITTED_GOLDENS, regen_dir / "goldens",
                                               roles.get("inputs", []), roles.get("outputs", []))
    if not roles.get("inputs") or not roles.get("outputs"):
        problems.append("goldens/manifest.json: the committed manifest names no input or no output tensors")
    more, more_count = compare_trees(COMMITTED_EMBEDDED / component, embedded_source, f"embedded/{component}")
    problems += more + manifest_self_check(regen_dir, listed) + producer_check(listed)
    return problems, count + more_count, outputs


def update(regen_dir):
    regen_dir = pathlib.Path(regen_dir).resolve()
    listed = json.loads((regen_dir / "goldens" / "manifest.json").read_text())
    embedded_source = regen_dir / listed["embedded"]["path"]
    shutil.rmtree(COMMITTED_GOLDENS, ignore_errors=True)
    shutil.copytree(regen_dir / "goldens", COMMITTED_GOLDENS)
    shutil.rmtree(COMMITTED_EMBEDDED / embedded_source.name, ignore_errors=True)
    shutil.copytree(embedded_source, COMMITTED_EMBEDDED / embedded_source.name)


def main(argv):
    args = [a for a in argv[1:] if a != "--update"]
    if len(args) != 1:
        print(f"usage: {argv[0]} REGEN_DIR [--update]", file=sys.stderr)
        return 64
    if len(args) != len(argv) - 1:
        update(args[0])
    problems, count, (identical_outputs, total_outputs) = compare(args[0])
    for problem in problems:
        print(f"compare_committed: {problem}", file=sys.stderr)
    if problems:
        print(f"compare_committed: {len(problems)} differences; if the change is intended, regenerate and run "
              f"{argv[0]} REGEN_DIR --update", file=sys.stderr)
        return 1
    print(f"compare_committed: {count} committed files agree with the regenerated ones (inputs, checkpoints, "
          f"configs, manifest); output tensors bit-identical: {identical_outputs} of {total_outputs}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
