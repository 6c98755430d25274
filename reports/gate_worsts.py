#!/usr/bin/env python3
"""Prints, per bounded statistic of a gate run, the worst value over every case beside its bound: the "correct
worst" that each bound in gates/*/…_bounds.h is placed against.

Contract: reads gate records (JSON lines written through gates/lib/gate_record.cpp, plain or .gz; several files
are joined), groups them by (gate, metric, bound kind, bound) and keeps the worst value: the largest for an upper
bound ("<="), the smallest for a lower bound (">="); "report" records are left out. Writes a Markdown table to
stdout: gate, metric, kind, bound, worst, the case that gave it, and the headroom (bound / worst for "<=", worst /
bound for ">="). --gate REGEX keeps the matching gate names. Exit status: 0, 1 when a bounded record failed, 2
when nothing was read. Python standard library only.
"""
import argparse
import gzip
import json
import re
import sys


def records(paths):
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def headroom(kind, bound, worst):
    if kind == "<=":
        return "inf" if worst == 0 else f"{bound / worst:.3g}x"
    return "inf" if bound == 0 else f"{worst / bound:.3g}x"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", nargs="+", help="records.jsonl or .jsonl.gz files")
    ap.add_argument("--gate", default="", help="keep gates whose name matches this regular expression")
    args = ap.parse_args()
    keep = re.compile(args.gate)
    worst, failed, seen = {}, 0, 0
    for r in records(args.records):
        kind = r.get("kind")
        if kind not in ("<=", ">=") or not keep.search(r["gate"]):
            continue
        seen += 1
        failed += not r.get("pass", True)
        key = (r["gate"], r["metric"], kind, r["bound"])
        v = r["value"]
        if key not in worst or (v > worst[key][0] if kind == "<=" else v < worst[key][0]):
            worst[key] = (v, r.get("case", ""))
    if not seen:
        print("no bounded records read", file=sys.stderr)
        return 2
    print("| gate | metric | kind | bound | worst | case | headroom |")
    print("|---|---|---|---|---|---|---|")
    for (gate, metric, kind, bound), (v, case) in sorted(worst.items()):
        print(f"| {gate} | {metric} | {kind} | {bound:g} | {v:g} | {case} | {headroom(kind, bound, v)} |")
    print(f"\n{seen} bounded records, {failed} failed.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
