"""PyTorch peers of the language model's decode step (the AR stage's LM half), timed per step, on random bf16
weights at a chosen geometry, batch 2 (the conditional and CFG rows), at given K/V lengths.

Variants:
  upstream      the upstream call pattern (diffusers' MiniMaxMusic3AutoregressiveStep on transformers'
                Qwen3ForCausalLM): `model.model(inputs_embeds=..., past_key_values=DynamicCache, use_cache=True)`
                then the full `lm_head` (every vocabulary row), eager, sdpa.
  static_graph  a StaticCache sized for the run, the decode step (model.model on one position plus the sliced
                head: lm_head rows 151670 and 151675..168058 only, exact for the sampler) captured once as a
                CUDA graph and replayed with the position updated in place (CUDA only).
Each step is timed with the host clock around the call and a device synchronize. Before timing, the K/V cache
is filled by one prefill of `kv` random positions; upstream's cache then grows by one position per step (as in the
pipeline: kv + warmup + steps at the end), the static graph replays the step at position kv. The report also holds the weight bytes one step reads (the
layers, the final norm and the head the variant uses), the achieved TB/s and a device-to-device copy ceiling
measured in the same process (bytes read + written / time of a 2 GiB copy).

  torch_lm_peer.py [--geometry full|tiny] [--device cuda|cpu] [--kv 300,2000] [--steps 50] [--warmup 10]
                   [--variants upstream,static_graph] [--seed 0]
Prints one JSON object.
  --serve (one variant, one kv): the A/B runner's line protocol (bench/ab/peer_process.h): one {"ready": true, ...}
  line, then for each {"warmup": W, "frames": N} line one {"ms": [...]} line: the variant prefilled again to kv
  (untimed), W untimed and N timed steps. Exit 0; 2 on bad arguments or a missing dependency. A variant that fails (e.g. graph
capture refused by the installed transformers) is reported with its error, never silently skipped.
"""
import argparse
import json
import os
import statistics
import sys
import time

try:
    import torch
    import transformers
    from transformers import Qwen3Config, Qwen3ForCausalLM
    from transformers.cache_utils import DynamicCache, StaticCache
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    from torch_timing import sync, time_steps
except ImportError as missing:
    print(json.dumps({"error": f"torch_lm_peer: {missing}"}), flush=True)
    sys.exit(2)

GEOMETRIES = {
    # The hub config of MiniMax-Music3's language_model.
    "full": dict(vocab_size=200000, hidden_size=4096, intermediate_size=12288, num_hidden_layers=36,
                 num_attention_heads=32, num_key_value_heads=8, head_dim=128),
    "tiny": dict(vocab_size=168059, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=1, head_dim=16),
}
AUDIO_END, CODE_OFFSET, CODES = 151670, 151675, 16384


def build(geometry, device, seed):
    cfg = Qwen3Config(**GEOMETRIES[geometry], max_position_embeddings=10240, rms_norm_eps=1e-6,
                      rope_parameters={"rope_theta": 1e6, "rope_type": "default"}, tie_word_embeddings=False)
    torch.manual_seed(seed)
    with torch.device(device):
        model = Qwen3ForCausalLM(cfg).to(torch.bfloat16)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    return model.eval(), cfg


def copy_ceiling(device):
    if device != "cuda":
        return None
    n = 1 << 30  # 2 GiB of bf16
    a, b = torch.empty(n, dtype=torch.bfloat16, device=device), torch.empty(n, dtype=torch.bfloat16, device=device)
    for _ in range(3):
        b.copy_(a)
    sync(device)
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        b.copy_(a)
        sync(device)
        times.append(time.perf_counter() - t0)
    return 2 * a.numel() * 2 / min(times) / 1e12


def step_bytes(model, head_rows):
    layers = sum(p.numel() for p in model.model.layers.parameters()) + model.model.norm.weight.numel()
    return 2 * (layers + head_rows * model.config.hidden_size)


def prefill(model, cache, kv, device, hidden):
    embeds = torch.randn(2, kv, hidden, dtype=torch.bfloat16, device=device)
    out = model.model(inputs_embeds=embeds, past_key_values=cache, use_cache=True)
    return out.last_hidden_state[:, -1]


def upstream(model, cfg, kv, steps, warmup, device):
    cache = DynamicCache(config=cfg)
    with torch.no_grad():
        prefill(model, cache, kv, device, cfg.hidden_size)
        feedback = torch.randn(2, 1, cfg.hidden_size, dtype=torch.bfloat16, device=device)

        def one():
            out = model.model(inputs_embeds=feedback, past_key_values=cache, use_cache=True)
            model.lm_head(out.last_hidden_state[:, -1]).float()

        ms = time_steps(one, steps, warmup, device)
    return ms, step_bytes(model, cfg.vocab_size)


def static_graph(model, cfg, kv, steps, warmup, device):
    if device != "cuda":
        raise RuntimeError("static_graph needs CUDA graphs")
    cache = StaticCache(config=cfg, max_cache_len=kv + 1)
    head = torch.cat([model.lm_head.weight[AUDIO_END:AUDIO_END + 1],
                      model.lm_head.weight[CODE_OFFSET:CODE_OFFSET + CODES]]).contiguous()
    with torch.no_grad():
        prefill(model, cache, kv, device, cfg.hidden_size)
        feedback = torch.randn(2, 1, cfg.hidden_size, dtype=torch.bfloat16, device=device)
        position = torch.full((1,), kv, dtype=torch.long, device=device)

        # transformers 5's StaticLayer writes at its own device-side counter (cumulative_length) and advances it on
        # every call, captured calls included: reset it in the body so every replay writes position kv, not kv+1, ...
        counters = [layer.cumulative_length for layer in cache.layers]

        def body():
            for counter in counters:
                counter.fill_(kv)
            out = model.model(inputs_embeds=feedback, past_key_values=cache, use_cache=True, cache_position=position,
                              position_ids=position[None])
            return (out.last_hidden_state[:, -1] @ head.T).float()

        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                body()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            body()
        ms = time_steps(graph.replay, steps, warmup, device)
    return ms, step_bytes(model, 1 + CODES)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geometry", default="full", choices=sorted(GEOMETRIES))
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--kv", default="300,2000")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--variants", default="upstream,static_graph")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--serve", action="store_true")
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print(json.dumps({"error": "torch_lm_peer: no CUDA device"}))
        return 2
    variants = {"upstream": upstream, "static_graph": static_graph}
    if args.serve and ("," in args.variants or "," in args.kv or args.variants not in variants):
        print(json.dumps({"error": "torch_lm_peer: --serve takes one variant (upstream|static_graph) and one --kv"}))
        return 2
    model, cfg = build(args.geometry, args.device, args.seed)
    if args.serve:
        kv = int(args.kv)
        print(json.dumps({"ready": True, "variant": args.variants, "geometry": args.geometry, "device": args.device,
                          "kv": kv, "batch": 2, "torch": torch.__version__,
                          "transformers": transformers.__version__}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                ms, _ = variants[args.variants](model, cfg, kv, int(request["frames"]), int(request["warmup"]),
                                                args.device)
                print(json.dumps({"ms": ms}), flush=True)
            except Exception as error:  # the runner names the peer and the error
                print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 0
    ceiling = copy_ceiling(args.device)
    report = {"geometry": args.geometry, "device": args.device, "batch": 2, "torch": torch.__version__,
              "transformers": transformers.__version__,
              "gpu": torch.cuda.get_device_name() if args.device == "cuda" else None,
              "copy_ceiling_tb_s": ceiling, "runs": []}
    for variant in args.variants.split(","):
        for kv in (int(k) for k in args.kv.split(",")):
            run = {"variant": variant, "kv": kv}
            try:
                ms, nbytes = variants[variant](
                    model, cfg, kv, args.steps, args.warmup, args.device)
                median = statistics.median(ms)
                run.update(ms=ms, median_ms=median, step_bytes=nbytes, tb_s=nbytes / (median * 1e-3) / 1e12)
                if ceiling:
                    run["fraction_of_copy_ceiling"] = run["tb_s"] / ceiling
            except Exception as error:  # reported, never skipped silently
                run["error"] = f"{type(error).__name__}: {error}"
            report["runs"].append(run)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
