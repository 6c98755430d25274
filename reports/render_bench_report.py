#!/usr/bin/env python3
"""Renders the depth-stage benchmark report from one GPU run (scripts/gpu-bench) and, optionally, the host arm's
bench-depth run on the CPU machine.

Usage: render_bench_report.py --gpu-dir DIR [--cpu-bench-depth FILE] [--name NAME] [--out-dir DIR]

DIR holds what scripts/gpu-bench writes: bench-ops.json and bench-depth.json (Google Benchmark JSON), gates.json
(the gate record, bench/ab/gate_evidence.h), peer-check.json (torch_depth_peer.py --check) and ab/*.json (ab-bench
reports, schema music3-ab/1) named ...-device-vs-upstream, ...-device-vs-torch-graph, ...-device-aa and
...-device-vs-host-mid. Missing inputs are reported as missing, never invented.

Writes OUT_DIR/<date>-<name>.json and .md (date: the A/B runs' date, else today's, UTC). The JSON has at least
device_depth_stage_ms_per_frame (the median of the device arm's repetition medians over the A/B runs),
floor_ms_per_frame, copy_TBps, peer_upstream_ms_per_frame, peer_torch_graph_ms_per_frame, gpu, git_rev,
binary_sha256 and gates_passed, plus the targets of issue 5 with met / not met (the host arm's storage target on
the "arm" sweep, the arm's own working set; the uncached sweep is listed beside it). Prints the summary table
last. Exit status 0 when written, 2 on bad arguments or unreadable input. Standard library only (it runs on the
GPU box's python3 as well as here).
"""
import argparse
import datetime
import json
import pathlib
import statistics
import sys

AB_RUNS = {
    "upstream": "device-vs-upstream",
    "graph": "device-vs-torch-graph",
    "aa": "device-aa",
    "host": "device-vs-host-mid",
}
TARGETS = {"device_ms_max": 2.3, "speedup_vs_upstream_min": 6.0, "speedup_vs_graph_min": 1.8,
           "host_bf16_over_f32_min": 1.7}


def load_json(path):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as error:
        sys.exit(f"render_bench_report: {path} is not JSON: {error}")


def benchmarks(doc):
    """name (without /manual_time) -> the benchmark's record, for a Google Benchmark JSON document."""
    if not doc:
        return {}
    return {b["name"].removesuffix("/manual_time"): b for b in doc.get("benchmarks", [])}


def find_ab_runs(directory):
    runs = {}
    for path in sorted(pathlib.Path(directory).glob("*.json")):
        doc = load_json(path)
        if not doc or doc.get("schema") != "music3-ab/1":
            continue
        for key, suffix in AB_RUNS.items():
            if doc["name"].endswith(suffix):
                runs[key] = doc
    return runs


def arm_median(run, label):
    return run["arms"][label]["median_ms_per_frame"] if run else None


def fmt(value, digits=3):
    return "—" if value is None else f"{value:.{digits}f}"


def op_rows(ops):
    rows = []
    for name, b in ops.items():
        if b.get("error_occurred"):
            rows.append({"bench": name, "error": b.get("error_message", "")})
            continue
        rate = b.get("TBps", b.get("GBps", 0) / 1e3)
        rows.append({"bench": name, "us_per_call": b.get("us_per_call"), "bytes_per_call": b.get("bytes_per_call"),
                     "TBps": rate, "of_ceiling": b.get("of_ceiling")})
    return rows


def host_arm(doc):
    """The host arm's frame and storage-control numbers from a bench-depth JSON document."""
    b, context = benchmarks(doc), doc.get("context", {})
    arm = b.get("depth/cpu/mid/host", {})
    ceiling = context.get("cpu_copy_ceiling_GBps")
    return {"host": context.get("host_name"), "cpus": context.get("num_cpus"),
            "copy_ceiling_GBps": float(ceiling) if ceiling is not None else None,
            "ms_per_frame": arm.get("ms_per_frame"), "GBps": arm.get("GBps"), "of_ceiling": arm.get("of_ceiling"),
            "sweeps": {k.split("/")[3]: {c: v.get(c) for c in ("bf16_ms", "f32_ms", "f32_over_bf16", "bf16_GBps",
                                                                 "f32_GBps")}
                       for k, v in b.items() if k.startswith("host_sweep/") and not v.get("error_occurred")}}


def render(gpu_dir, cpu_bench_depth, name, out_dir):
    gpu_dir = pathlib.Path(gpu_dir)
    ops_doc, depth_doc = load_json(gpu_dir / "bench-ops.json"), load_json(gpu_dir / "bench-depth.json")
    gates = load_json(gpu_dir / "gates.json")
    peer_check = load_json(gpu_dir / "peer-check.json")
    ab = find_ab_runs(gpu_dir / "ab")
    cpu_depth = load_json(cpu_bench_depth) if cpu_bench_depth else None
    ops, depth = benchmarks(ops_doc), benchmarks(depth_doc)
    context = (depth_doc or {}).get("context", {})

    stage = depth.get("depth/cuda/full/device", {})
    device_ab = [arm_median(ab.get(k), "A") for k in ("upstream", "graph", "aa") if ab.get(k)]
    device_ms = statistics.median(device_ab) if device_ab else stage.get("ms_per_frame")
    copy_tbps = float(context["cuda_copy_ceiling_TBps"]) if "cuda_copy_ceiling_TBps" in context else None
    floor_ms = float(context["full_floor_ms_per_frame"]) if "full_floor_ms_per_frame" in context else None
    upstream_ms, graph_ms = arm_median(ab.get("upstream"), "B"), arm_median(ab.get("graph"), "B")
    any_run = next(iter(ab.values()), None)
    gpu = None
    if any_run and any_run["machine"]["gpu_start"].get("available"):
        first = any_run["machine"]["gpu_start"]["gpus"][0]
        gpu = f"{first['name']} (driver {first['driver']})"
    ab_gates = [run["gates_passed"] for run in ab.values()]
    gates_passed = bool(gates and gates.get("passed") and ab_gates and all(ab_gates))

    def ratio(a, b):
        return None if a is None or b is None or a == 0 else b / a

    speedup_upstream, speedup_graph = ratio(device_ms, upstream_ms), ratio(device_ms, graph_ms)
    host = {source: host_arm(doc) for source, doc in (("cpu_machine", cpu_depth), ("gpu_box", depth_doc)) if doc}
    host = {source: numbers for source, numbers in host.items() if numbers["ms_per_frame"] is not None}
    host_source = "cpu_machine" if "cpu_machine" in host else "gpu_box" if "gpu_box" in host else None
    host_ratio = host[host_source]["sweeps"].get("arm", {}).get("f32_over_bf16") if host_source else None

    def target(value, bound, kind):
        if value is None:
            return {"value": None, "bound": bound, "met": None}
        return {"value": value, "bound": bound, "met": value <= bound if kind == "max" else value >= bound}

    report = {
        "schema": "music3-bench-report/1",
        "device_depth_stage_ms_per_frame": device_ms,
        "device_depth_stage_ms_per_frame_bench_depth": stage.get("ms_per_frame"),
        "floor_ms_per_frame": floor_ms,
        "bytes_per_frame": float(context["full_bytes_per_frame"]) if "full_bytes_per_frame" in context else None,
        "copy_TBps": copy_tbps,
        "peer_upstream_ms_per_frame": upstream_ms,
        "peer_torch_graph_ms_per_frame": graph_ms,
        "gpu": gpu,
        "git_rev": any_run["git_rev"] if any_run else None,
        "binary_sha256": any_run["arms"]["A"]["binary_sha256"] if any_run else None,
        "gates_passed": gates_passed,
        "gates": {k: gates.get(k) for k in ("command", "exit_code", "tests_total", "tests_failed", "tests_skipped",
                                            "passed", "binaries", "when")} if gates else None,
        "targets": {
            "device_ms_per_frame": target(device_ms, TARGETS["device_ms_max"], "max"),
            "speedup_vs_upstream": target(speedup_upstream, TARGETS["speedup_vs_upstream_min"], "min"),
            "speedup_vs_torch_graph": target(speedup_graph, TARGETS["speedup_vs_graph_min"], "min"),
            "host_bf16_speedup_over_f32": {**target(host_ratio, TARGETS["host_bf16_over_f32_min"], "min"),
                                           "measured_on": host_source},
        },
        "ab_runs": {k: {"name": r["name"], "A": r["arms"]["A"]["spec"], "B": r["arms"]["B"]["spec"],
                        "A_ms": arm_median(r, "A"), "B_ms": arm_median(r, "B"), "ratio_b_over_a": r["ratio_b_over_a"],
                        "ratio_ci": r["ratio_ci"], "verdict": r["verdict"], "gates_passed": r["gates_passed"]}
                    for k, r in ab.items()},
        "ops": op_rows(ops),
        "stage_bench": {k: {c: v.get(c) for c in ("ms_per_frame", "TBps", "GBps", "of_ceiling", "floor_ms")}
                        for k, v in depth.items() if k.startswith("depth/")},
        "peer_check": peer_check,
        "host_arm": host or None,
        "missing": [p for p, d in (("bench-ops.json", ops_doc), ("bench-depth.json", depth_doc), ("gates.json", gates),
                                   ("peer-check.json", peer_check)) if d is None]
                   + [f"ab run *{s}" for k, s in AB_RUNS.items() if k not in ab],
    }
    date = any_run["date"] if any_run else datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = str(out_dir / f"{date}-{name}")
    pathlib.Path(stem + ".json").write_text(json.dumps(report, indent=2) + "\n")
    pathlib.Path(stem + ".md").write_text(markdown(report, date, name))
    print(summary_table(report))
    print(f"render_bench_report: wrote {stem}.json and {stem}.md")


def summary_table(r):
    t = r["targets"]

    def met(entry):
        return {True: "met", False: "NOT met", None: "not measured"}[entry["met"]]

    def row(label, value, digits=3, bound="", entry=None):
        target = f"{bound} ({met(entry)})" if entry else ""
        return f"{label:44} {fmt(value, digits):>12}  {target}".rstrip()

    lines = [
        f"{'quantity':44} {'value':>12}  target",
        row("device depth stage, ms/frame", r["device_depth_stage_ms_per_frame"], 3, "<= 2.3",
            t["device_ms_per_frame"]),
        row("floor (bytes / copy ceiling), ms/frame", r["floor_ms_per_frame"]),
        row("copy ceiling, TB/s", r["copy_TBps"]),
        row("upstream torch (recompute), ms/frame", r["peer_upstream_ms_per_frame"]),
        row("torch KV cache + CUDA graph, ms/frame", r["peer_torch_graph_ms_per_frame"]),
        row("speed-up vs upstream", t["speedup_vs_upstream"]["value"], 2, ">= 6", t["speedup_vs_upstream"]),
        row("speed-up vs torch graph", t["speedup_vs_torch_graph"]["value"], 2, ">= 1.8", t["speedup_vs_torch_graph"]),
        row("host arm bf16 speed-up over f32 containers", t["host_bf16_speedup_over_f32"]["value"], 2,
            f">= 1.7 on the {str(t['host_bf16_speedup_over_f32']['measured_on']).replace('_', ' ')}",
            t["host_bf16_speedup_over_f32"]),
        f"{'gates passed on the timed binary':44} {str(r['gates_passed']):>12}",
    ]
    for run in r["ab_runs"].values():
        lo, hi = run["ratio_ci"]
        lines.append(f"A/B {run['name']:40} {run['verdict']:>12}  B/A {run['ratio_b_over_a']:.4f} [{lo:.4f}, {hi:.4f}]"
                     " (verdict: B against A)")
    if r["missing"]:
        lines.append("missing: " + ", ".join(r["missing"]))
    return "\n".join(lines)


def markdown(r, date, name):
    m = [f"# Depth-stage benchmark report: {name} ({date})", "",
         f"GPU: {r['gpu'] or 'not recorded'}; git {r['git_rev']}; timed binary sha256 `{r['binary_sha256']}`; "
         f"gates passed: **{r['gates_passed']}**.", "", "```", summary_table(r), "```", ""]
    m += ["## A/B runs", "", "| run | A | B | A ms/frame | B ms/frame | B/A (95% CI) | verdict, B against A |",
          "|---|---|---|---|---|---|---|"]
    for run in r["ab_runs"].values():
        lo, hi = run["ratio_ci"]
        m.append(f"| {run['name']} | `{run['A']}` | `{run['B']}` | {fmt(run['A_ms'])} | {fmt(run['B_ms'])} | "
                 f"{run['ratio_b_over_a']:.4f} ({lo:.4f}–{hi:.4f}) | {run['verdict']} |")
    m += ["", "Each run's own report (method, clocks, raw samples, plot) is beside this file.", "",
          "## Ops (bench-ops)", "", "| bench | µs/call | bytes/call | TB/s | of ceiling |", "|---|---|---|---|---|"]
    for op in r["ops"]:
        if "error" in op:
            m.append(f"| {op['bench']} | error: {op['error']} | | | |")
        else:
            m.append(f"| {op['bench']} | {fmt(op['us_per_call'], 2)} | {op['bytes_per_call']:.0f} | "
                     f"{fmt(op['TBps'], 4)} | {fmt(op['of_ceiling'], 3)} |")
    m += ["", "CPU rows report GB/s / 1000 in the TB/s column.", "", "## Stage (bench-depth)", ""]
    for k, v in r["stage_bench"].items():
        m.append(f"- {k}: {json.dumps(v)}")
    for source, numbers in (r["host_arm"] or {}).items():
        m += ["", f"## Host arm, mid geometry, on the {source.replace('_', ' ')}", "",
              f"```\n{json.dumps(numbers, indent=2)}\n```"]
    if r["peer_check"]:
        m += ["", "## Peer check (the torch peers compute upstream's function)", "",
              f"```\n{json.dumps(r['peer_check'], indent=2)}\n```"]
    if r["gates"]:
        m += ["", "## Gates", "", f"```\n{json.dumps(r['gates'], indent=2)}\n```"]
    if r["missing"]:
        m += ["", "Missing inputs: " + ", ".join(r["missing"])]
    return "\n".join(m) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpu-dir", required=True)
    parser.add_argument("--cpu-bench-depth")
    parser.add_argument("--name", default="h200")
    parser.add_argument("--out-dir", default=str(pathlib.Path(__file__).resolve().parent / "bench"))
    args = parser.parse_args(argv[1:])
    if not pathlib.Path(args.gpu_dir).is_dir():
        print(f"render_bench_report: --gpu-dir {args.gpu_dir} is not a directory", file=sys.stderr)
        return 2
    render(args.gpu_dir, args.cpu_bench_depth, args.name, args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
