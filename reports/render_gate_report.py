#!/usr/bin/env python3
"""Renders a gate run's records into reports/gates/<component>/<date>-<rev>.md and .json, and prints the summary.

Contract: reads RECORD_DIR/records.jsonl (one JSON object per bounded statistic, written by the gate binaries
through gates/lib/gate_record.cpp; gate names are <component>.<gate>) and writes, for each component present,
OUT_DIR/<component>/<date>-<rev>[-<tag>].{md,json} with provenance: git revision
(and whether the tree was dirty), the sha256 of every gate binary, the machine, the GPU when there is one, the date.
Exit status: 0 when every bounded record passed, 1 when any failed, 2 when there are no records (a gate run that
recorded nothing proved nothing). Python standard library only.
"""
import argparse
import collections
import datetime
import hashlib
import json
import os
import platform
import subprocess
import sys


STATISTICS = (".median", ".mean", ".p99.9", ".max_cond")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def git(*args):
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def gpu_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def fmt(v):
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, float) and v != int(v):
        return f"{v:.4g}"
    return str(int(v)) if isinstance(v, float) else str(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("record_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--bin-dir", required=True, help="where the gate binaries are (hashed into the report)")
    ap.add_argument("--tag", default="")
    ap.add_argument("--rev", default="", help="the revision, where the tree has no .git (the GPU box)")
    a = ap.parse_args()

    path = os.path.join(a.record_dir, "records.jsonl")
    records = []
    if os.path.exists(path):
        with open(path) as f:
            records = [json.loads(line) for line in f if line.strip()]
    if not records:
        print(f"render_gate_report: no records in {path}", file=sys.stderr)
        return 2

    rev = a.rev[:12] if a.rev else git("rev-parse", "--short=12", "HEAD")
    dirty = False if a.rev else bool(git("status", "--porcelain", "--untracked-files=no"))
    binaries = {name: sha256(os.path.join(a.bin_dir, name))
                for name in sorted(os.listdir(a.bin_dir)) if name.startswith("gate_")}
    date = datetime.datetime.now(datetime.timezone.utc)
    meta = {"date": date.isoformat(timespec="seconds"), "git_rev": rev, "dirty_tree": dirty,
            "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus", "gpu": gpu_name(),
            "gate_binaries_sha256": binaries}

    by_component = collections.OrderedDict()
    for r in records:
        by_component.setdefault(r["gate"].split(".", 1)[0], []).append(r)
    summary, stems = [], []
    for component, component_records in by_component.items():
        stem = render(component_records, meta, rev, dirty, binaries, date, os.path.join(a.out_dir, component), a.tag, summary)
        stems.append(stem)
    failed = [r for r in records if r.get("pass") is False]
    print(f"\nGate summary ({', '.join(s + '.md' for s in stems)})")
    print(f"{'gate':38} {'device':6} {'cases':>5} {'checks':>6} {'failed':>6} {'tightest ULP margin':>18}")
    for row in summary:
        print(f"{row[0]:38} {row[1]:6} {row[2]:5d} {row[3]:6d} {row[4]:6d} {fmt(row[5]) if row[5] is not None else '-':>18}")
    return 1 if failed else 0


def render(records, meta, rev, dirty, binaries, date, out_dir, tag, summary):
    """Writes one component's report; appends its summary rows; returns the path stem."""
    groups = collections.OrderedDict()
    for r in records:
        groups.setdefault((r["gate"], r["device"]), []).append(r)
    failed = [r for r in records if r.get("pass") is False]

    lines = [f"# Gate report {meta['date']} @ {rev}{' (dirty tree)' if dirty else ''}", "",
             f"- machine: {meta['machine']}", f"- GPU: {meta['gpu'] or 'none'}",
             f"- records: {len(records)}, bounded: {sum('bound' in r for r in records)}, failed: {len(failed)}", "",
             "## Summary", "", "| gate | device | cases | bounded checks | failed | tightest margin (ULP statistics) |", "|---|---|---|---|---|---|"]
    for (gate, dev), rs in groups.items():
        bounded = [r for r in rs if "bound" in r]
        # The tightest margin is reported over the ULP statistics; the exact checks
        # (counts == 0, booleans) are either met or failed.
        margins = [r["margin"] for r in bounded if r["metric"].endswith(STATISTICS)]
        row = (gate, dev, len({r["case"] for r in rs}), len(bounded), sum(r["pass"] is False for r in bounded),
               min(margins) if margins else None)
        summary.append(row)
        lines.append("| " + " | ".join(fmt(x) for x in row) + " |")
    lines += ["", "## Per case", ""]
    for (gate, dev), rs in groups.items():
        lines += [f"### {gate} on {dev}", "", "| case | metric | value | bound | margin | pass |", "|---|---|---|---|---|---|"]
        for r in rs:
            lines.append("| " + " | ".join([r["case"], r["metric"], fmt(r["value"]), fmt(r.get("bound", "report")),
                                             fmt(r.get("margin", "")), fmt(r.get("pass", ""))]) + " |")
        lines.append("")
    lines += ["## Gate binaries", "", "| binary | sha256 |", "|---|---|"]
    lines += [f"| {k} | `{v}` |" for k, v in binaries.items()]

    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, f"{date:%Y-%m-%d}-{rev}{'-' + tag if tag else ''}")
    with open(stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(stem + ".json", "w") as f:
        json.dump({"meta": meta, "records": records}, f, indent=1)
    return stem


if __name__ == "__main__":
    sys.exit(main())
