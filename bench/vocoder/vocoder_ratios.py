"""Joins one H200 run of bench-vocoder and of the torch peer into the ratios the issue asks for.

Usage: vocoder_ratios.py BENCH_JSON PEER_JSON [PEER_JSON...] [--target-ms 4]
  BENCH_JSON  bench-vocoder's --benchmark_out (Google Benchmark JSON); every benchmark whose name holds
              "cuda/full/689" is an engine row (the plain arm, and each conv:<layout> variant), timed by its median
              aggregate when --benchmark_repetitions gave one, else by its single run.
  PEER_JSON   torch_vocoder_peer.py's default-mode output (one JSON object: variant, median_ms, ...).
Prints a markdown table (ms per 689-latent window, the upstream module's time over each engine row, whether the
row meets --target-ms, and the row's conv TFLOP/s: bench-vocoder's conv_tflops counter, "-" when the file has none)
and, last, one JSON line with the same numbers. Exit status: 0 ok, 2 bad input (named).
"""
import json
import sys


def engine_rows(path):
    data = json.load(open(path))
    rows = {}
    for b in data.get("benchmarks", []):
        if "cuda/full/689" not in b["name"] or b.get("error_occurred"):
            continue
        if b.get("time_unit") != "ms":
            raise ValueError(f"{path}: {b['name']} is timed in {b.get('time_unit')}, expected ms")
        base = b.get("run_name", b["name"]).removesuffix("/real_time")
        row = (b["real_time"], b.get("label", ""), b.get("conv_tflops"))
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                rows[base] = row
        else:
            rows.setdefault(base, row)
    if not rows:
        raise ValueError(f"{path}: no cuda/full/689 benchmark (was it run on a CUDA machine?)")
    return rows


def main(argv):
    args, target = [], 4.0
    it = iter(argv[1:])
    for a in it:
        if a == "--target-ms":
            target = float(next(it))
        else:
            args.append(a)
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        rows = engine_rows(args[0])
        peers = {}
        for path in args[1:]:
            p = json.load(open(path))
            if "error" in p or "median_ms" not in p:
                raise ValueError(f"{path}: no median_ms ({p.get('error', 'not a peer result')})")
            peers[p.get("variant", path)] = p["median_ms"]
    except (OSError, ValueError, KeyError) as error:
        print(f"vocoder_ratios: {error}", file=sys.stderr)
        return 2
    print(f"| engine (full, 689 latents) | ms/window | meets <= {target:g} ms | " +
          " | ".join(f"{v} ({ms:.2f} ms) / engine" for v, ms in peers.items()) + " | conv TFLOP/s |")
    print("|---|---|---|" + "---|" * len(peers) + "---|")
    for name, (ms, label, tflops) in sorted(rows.items()):
        ratios = " | ".join(f"{pm / ms:.2f}x" for pm in peers.values())
        shown = f"{tflops:.1f}" if tflops is not None else "-"
        print(f"| {name} ({label}) | {ms:.2f} | {'yes' if ms <= target else 'no'} | {ratios} | {shown} |")
    print(json.dumps({"engine_ms": {n: r[0] for n, r in rows.items()}, "peer_ms": peers, "target_ms": target,
                      "conv_tflops": {n: r[2] for n, r in rows.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
