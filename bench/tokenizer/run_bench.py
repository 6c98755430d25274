#!/usr/bin/env python3
"""Runs bench-tokenizer and its HF tokenizers peer in one run and writes the report.

  bench/tokenizer/run_bench.py [--build build] [--repetitions 5] [--out reports/bench/tokenizer]

Contract: needs a built build/bin/bench-tokenizer and the oracle in build/tokenizer_oracle (ctest -R
tokenizer_oracle_setup). Runs the C++ bench (Google Benchmark, --benchmark_repetitions, one thread) and then
hf_tokenizers_peer.py with the project venv, on the same corpus and tokenizers, and writes
<out>/<date>-<rev12>.{json,md}: per tokenizer the C++ tokens/s (median of the repetitions), HF's one-thread and
all-core tokens/s (best of its repetitions), the ratios, and the recipe (git revision and whether the tree was
dirty, the bench binary's sha256, CPU model, core count, load average, the commands). Uses only the standard
library, so system python3 runs it.
"""
import argparse
import datetime
import hashlib
import json
import os
import pathlib
import platform
import statistics
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT, **kw).stdout


def cpu_model():
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--out", default="reports/bench/tokenizer")
    args = ap.parse_args()
    build = ROOT / args.build
    exe = build / "bin" / "bench-tokenizer"
    oracle = build / "tokenizer_oracle"
    cpp_cmd = [str(exe), "--benchmark_format=json", f"--benchmark_repetitions={args.repetitions}",
               "--benchmark_min_time=1", "--benchmark_report_aggregates_only=false"]
    peer_cmd = [str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "bench/tokenizer/hf_tokenizers_peer.py"),
                str(oracle), "--repetitions", str(args.repetitions)]
    env = dict(os.environ, MUSIC3_TOKENIZER_ORACLE_DIR=str(oracle))
    cpp = json.loads(run(cpp_cmd, env=env))
    peer = json.loads(run(peer_cmd, env=env))

    rev = run(["git", "rev-parse", "HEAD"]).strip()
    dirty = bool(run(["git", "status", "--porcelain", "--untracked-files=no"]).strip())
    recipe = {
        "git_rev": rev, "tree_dirty": dirty, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "bench_binary": str(exe.relative_to(ROOT)), "bench_sha256": hashlib.sha256(exe.read_bytes()).hexdigest(),
        "cpu_model": cpu_model(), "cpu_count": os.cpu_count(), "loadavg_at_start": os.getloadavg(),
        "cpp_command": " ".join(cpp_cmd[:1] + cpp_cmd[1:]), "peer_command": " ".join(peer_cmd),
        "context": cpp.get("context", {}),
    }
    rows = {}
    for name in ("tiny", "qwen"):
        runs = [b for b in cpp["benchmarks"] if b["name"].startswith(f"BM_EncodeCorpus/{name}/") and b.get("run_type") == "iteration"]
        cpp_tps = statistics.median(b["items_per_second"] for b in runs)
        hf = peer["tokenizers"][name]
        rows[name] = {
            "tokens_per_pass": hf["tokens_per_pass"], "cpp_tokens_per_pass": runs[0]["tokens_per_pass"],
            "cpp_tokens_per_s_median": cpp_tps, "cpp_samples": [b["items_per_second"] for b in runs],
            "hf_single_thread_tokens_per_s": hf["single_thread"]["tokens_per_s"],
            "hf_encode_batch_all_cores_tokens_per_s": hf["encode_batch_all_cores"]["tokens_per_s"],
            "hf_samples_seconds": {"single_thread": hf["single_thread"]["seconds"],
                                   "encode_batch_all_cores": hf["encode_batch_all_cores"]["seconds"]},
        }
        rows[name]["ratio_vs_hf_single_thread"] = cpp_tps / rows[name]["hf_single_thread_tokens_per_s"]
        rows[name]["ratio_vs_hf_all_cores"] = cpp_tps / rows[name]["hf_encode_batch_all_cores_tokens_per_s"]
    report = {"recipe": recipe, "corpus_strings": peer["strings"], "results": rows}

    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{datetime.date.today().isoformat()}-{rev[:12]}"
    (out / f"{stem}.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    lines = [f"# Tokenizer bench {stem}", "",
             f"Corpus: {peer['strings']} strings (oracle_bridge/tokenizer/corpus.py). C++: bench-tokenizer, one thread, "
             f"median of {args.repetitions} repetitions. HF: tokenizers (Rust) behind transformers' Qwen2Tokenizer, "
             f"best of {args.repetitions}; one thread = `encode` string by string from Python, all cores = `encode_batch`.",
             "", "| tokenizer | tokens/pass | C++ tokens/s | HF 1 thread tokens/s | HF all cores tokens/s | C++ / HF 1 thread | C++ / HF all cores |",
             "|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        lines.append(f"| {name} | {r['tokens_per_pass']} | {r['cpp_tokens_per_s_median']:.3e} | {r['hf_single_thread_tokens_per_s']:.3e} | "
                     f"{r['hf_encode_batch_all_cores_tokens_per_s']:.3e} | {r['ratio_vs_hf_single_thread']:.2f}x | {r['ratio_vs_hf_all_cores']:.2f}x |")
    lines += ["", "## Recipe", ""] + [f"- {k}: `{v}`" for k, v in recipe.items() if k != "context"]
    lines += ["", "Raw samples: the JSON beside this file."]
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print(out / f"{stem}.md")


if __name__ == "__main__":
    main()
