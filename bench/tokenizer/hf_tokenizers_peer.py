"""The HF `tokenizers` (Rust) peer of bench-tokenizer: the same corpus, the same tokenizers, timed in the pinned venv.

  hf_tokenizers_peer.py ORACLE_DIR [--repetitions N]

Contract: loads ORACLE_DIR/{tiny,qwen}/tokenizer with transformers' Qwen2Tokenizer (the pipeline's class) and times
its Rust backend, after one warm-up pass: (a) `backend.encode(text)` string by string (one thread, what the
engine's bench does) and (b) `backend.encode_batch(corpus)` (Rayon, every core). Prints one JSON object: per
tokenizer the tokens per pass, and per mode every repetition's seconds and the best tokens/s.
"""
import argparse
import json
import os
import pathlib
import sys
import time

from transformers import Qwen2Tokenizer


def timed(fn, repetitions):
    fn()
    samples = []
    for _ in range(repetitions):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("oracle_dir")
    ap.add_argument("--repetitions", type=int, default=7)
    args = ap.parse_args()
    root = pathlib.Path(args.oracle_dir)
    texts = json.loads((root / "corpus.json").read_text())
    out = {"strings": len(texts), "cpu_count": os.cpu_count(), "tokenizers": {}}
    for name in ("tiny", "qwen"):
        backend = Qwen2Tokenizer.from_pretrained(str(root / name / "tokenizer"))._tokenizer
        tokens = sum(len(e.ids) for e in backend.encode_batch(texts))
        single = timed(lambda: [backend.encode(t) for t in texts], args.repetitions)
        batch = timed(lambda: backend.encode_batch(texts), args.repetitions)
        out["tokenizers"][name] = {
            "tokens_per_pass": tokens,
            "single_thread": {"seconds": single, "tokens_per_s": tokens / min(single)},
            "encode_batch_all_cores": {"seconds": batch, "tokens_per_s": tokens / min(batch)},
        }
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
