#!/usr/bin/env python3
"""The last step of the merge gate (scripts/merge-gate, and the merge job of .github/workflows/merge-gate.yml):
one verdict table from the cpu-gates step's folder and the merged battery report.

Rows: the build; the gates (passed, failed, skipped, each named when not passed); the battery (as expected or
not, with the in-diff choice); what was not run on this machine (the GPU gates, the GPU mutations the change
chose) with the commands that run them on the GPU box. Writes the table to stdout and to --out.
Exit (the shared table, engine/core/exit_code.h): the battery's 9 / 70 / 4 / 5 / 1 first (the evidence could not
be judged), 4 when the build failed, 2 when a gate failed or a mutation missed its expected outcome, else 0.
Standard library only: it runs before any venv exists.
"""
import argparse
import importlib.machinery
import importlib.util
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

OK, FOUND_PROBLEMS, BASELINE_FAILED, BAD_INPUT, USAGE, VOID_RUN, SOFTWARE = 0, 2, 4, 5, 1, 9, 70
# Exit statuses that mean "could not judge", most severe first.
CANNOT_JUDGE = [VOID_RUN, SOFTWARE, BASELINE_FAILED, BAD_INPUT, USAGE]


def read_json(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def ctest_results(gates_dir):
    """(passed, failed, skipped, labels) by scripts/ctest-summary's reading, or None without a ctest run."""
    loader = importlib.machinery.SourceFileLoader("ctest_summary", str(Path(__file__).resolve().parents[1] / "ctest-summary"))
    spec = importlib.util.spec_from_loader("ctest_summary", loader)
    summary = importlib.util.module_from_spec(spec)
    loader.exec_module(summary)
    try:
        return summary.read_results(Path(gates_dir) / "ctest-junit.xml", Path(gates_dir) / "tests.json")
    except (OSError, ValueError, ET.ParseError):
        return None


def battery_rows(battery_dir, battery_exit):
    """(result, details, gpu mutations chosen by the change but not run here)."""
    run = read_json(Path(battery_dir) / "run.json")
    if run is None:
        return f"no report (exit {battery_exit})", f"see {battery_dir}", []
    judged, unexpected = 0, []
    outcomes = Path(battery_dir) / "outcomes.jsonl"
    for line in outcomes.read_text().splitlines() if outcomes.exists() else []:
        j = json.loads(line)
        if j.get("phase") == "mutation":
            judged += 1
            if not j["as_expected"]:
                unexpected.append(f'{j["id"]} ({j["outcome"]})')
    planned = {m["id"] for m in read_json(Path(battery_dir) / "mutants.json") or []}
    in_diff = run.get("in_diff")
    other_label = []
    details = []
    if in_diff:
        other_label = [e["id"] for e in in_diff["chosen"] if e["id"] not in planned]
        details.append(f'in-diff {in_diff["merge_base"][:12]}: {len(in_diff["chosen"])} chosen, '
                       f'{len(in_diff["skipped"])} skipped ({len(in_diff["changed"])} files changed)')
    if unexpected:
        result = f"NOT as expected: {len(unexpected)} of {judged}"
        details.append("unexpected: " + ", ".join(unexpected))
    elif run.get("void_run") or not run.get("complete"):
        result = f"incomplete (exit {battery_exit})"
        details.append(run.get("stopped", ""))
    else:
        result = f"as expected: {judged} of {judged}"
    details.append(f"report: {battery_dir}/summary.md")
    return result, "; ".join(d for d in details if d), other_label


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gates", required=True, help="the cpu-gates step's folder")
    ap.add_argument("--battery", required=True, help="the merged battery report")
    ap.add_argument("--battery-exit", type=int, required=True, help="the battery merge step's exit status")
    ap.add_argument("--base", default="", help="the merge base the battery's --in-diff used ('' = whole battery)")
    ap.add_argument("--owed-gpu", help="`mutation-battery owed --label gpu --json`: the GPU mutations without a "
                    "current verdict in the committed reports (informative: it does not change the exit status)")
    ap.add_argument("--out", help="also write the table here")
    a = ap.parse_args()

    rows = []
    status = read_json(Path(a.gates) / "status.json") or {}
    build_ok = status.get("build_exit") == 0
    rows.append(("build", "ok" if build_ok else f"FAILED (exit {status.get('build_exit', '?')})",
                 f"{a.gates}/build.log"))
    gates = ctest_results(a.gates) if build_ok else None
    failed, skipped, gpu_skipped = [], [], []
    if gates is None:
        rows.append(("gates", "not run" if not build_ok else "no ctest-junit.xml / tests.json", ""))
    else:
        passed, failed, skipped, labels = len(gates[0]), sorted(gates[1]), sorted(gates[2]), gates[3]
        gpu_skipped = [n for n in skipped if "gpu" in labels.get(n, [])]
        detail = []
        if failed:
            detail.append("failed: " + ", ".join(failed))
        other = [n for n in skipped if n not in gpu_skipped]
        if other:
            detail.append("skipped (not GPU): " + ", ".join(other))
        if gpu_skipped:
            detail.append(f"skipped: {len(gpu_skipped)} GPU tests (no GPU here)")
        rows.append(("gates", f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped",
                     "; ".join(detail) + f"; log: {a.gates}/ctest.log"))
    battery_result, battery_detail, gpu_mutations = battery_rows(a.battery, a.battery_exit)
    rows.append((f"battery (cpu{', in-diff' if a.base else ''})", battery_result, battery_detail))
    on_box = ["scripts/gpu-gates", "scripts/gpu-bench"]
    gpu_battery = "build/bin/mutation-battery --label gpu" + (f" --in-diff {a.base}" if a.base else "")
    not_run = [f"{len(gpu_skipped)} GPU gates"]
    if gpu_mutations:
        not_run.append(f"{len(gpu_mutations)} GPU mutations the change chose: " + ", ".join(gpu_mutations))
        on_box.append(gpu_battery)
    elif not a.base:
        not_run.append("the GPU battery")
        on_box.append(gpu_battery)
    owed = read_json(a.owed_gpu) if a.owed_gpu else None
    if owed and owed.get("owed"):
        not_run.append(f"{len(owed['owed'])} GPU mutations without a current H200 verdict in the committed reports "
                       "(mutation-battery owed --label gpu)")
        on_box.append(f"MUSIC3_BATTERY_IDS={owed['ids']} scripts/gpu-battery")
    rows.append(("not run on this machine", "; ".join(not_run),
                 "on the GPU box (README, 'On the GPU box'): " + " && ".join(on_box)))

    if a.battery_exit in CANNOT_JUDGE:
        code = a.battery_exit
    elif not build_ok:
        code = BASELINE_FAILED
    elif failed or gates is None or a.battery_exit == FOUND_PROBLEMS:
        code = FOUND_PROBLEMS
    elif a.battery_exit != OK:
        code = SOFTWARE
    else:
        code = OK
    width = max(len(r[0]) for r in rows)
    lines = ["== merge gate ==", ""]
    lines += [f"{name:<{width}}  {result}" + (f"\n{'':<{width}}    {detail}" if detail else "") for name, result, detail in rows]
    lines += ["", f"verdict: {'PASS' if code == OK else 'FAIL'} (exit {code})"]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        Path(a.out).write_text(text)
    return code


if __name__ == "__main__":
    sys.exit(main())
