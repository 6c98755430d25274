"""PyTorch peers of one guided DiT step (the acoustic stage's denoiser: both guidance branches at one timestep), on
random bf16 weights at a chosen geometry and latent length, timed per guided step.

The module is the pinned diffusers MiniMaxMusic3Transformer1DModel itself (stored in bf16 on the device, as the
documented usage runs it). Variants:
  eager_b1x2    the pipeline's call pattern: two batch-1 forwards per step (the condition, then the all-zero
                condition), eager.
  eager_b2      both branches as one batch of 2, eager.
  compile_b2    both branches as one batch of 2, the module under torch.compile (default mode), compiled and
                warmed before timing.
Each step is timed with the host clock around the call(s) and a device synchronize. The report holds the FLOPs of
one guided step (2 x the MACs of every GEMM, conv and attention product, both branches: bench/acoustic's count),
the achieved TFLOP/s and a bf16 GEMM ceiling measured in the same process at the DiT's largest GEMM (the FF input
projection, M = 2 (L + 1) rows, N = 2 ff_inner, K = inner).

  torch_dit_peer.py [--geometry full|tiny] [--device cuda|cpu] [--length 689] [--steps 30] [--warmup 5]
                    [--variants eager_b1x2,eager_b2,compile_b2] [--seed 0] [--serve]
Prints one JSON object.
  --serve (one variant): the A/B runner's line protocol (bench/ab/peer_process.h): one {"ready": true, ...} line
  (after the variant is built, and compiled and warmed for compile_b2), then for each {"warmup": W, "frames": N}
  line one {"ms": [...]} line: W untimed and N timed guided steps.
Exit 0; 2 on a missing dependency or bad arguments. A variant that fails (e.g. torch.compile without a
working compiler) is reported with its error, never silently skipped.
"""
import argparse
import json
import os
import statistics
import sys

try:
    import torch
    import diffusers
    from diffusers.models.transformers.transformer_minimax_music3 import MiniMaxMusic3Transformer1DModel
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    from torch_timing import time_steps
except ImportError as missing:
    print(json.dumps({"error": f"torch_dit_peer: {missing}"}), flush=True)
    sys.exit(2)

GEOMETRIES = {
    "full": dict(in_channels=128, condition_dim=2048, num_layers=36, num_attention_heads=32, attention_head_dim=64,
                 ff_inner_dim=8192, rotary_dim=32, fourier_embedding_dim=256),
    "tiny": dict(in_channels=8, condition_dim=16, num_layers=2, num_attention_heads=2, attention_head_dim=8,
                 ff_inner_dim=32, rotary_dim=4, fourier_embedding_dim=8),
}


def step_flops(g, length):
    S, D = length + 1, g["num_attention_heads"] * g["attention_head_dim"]
    C, C2, F = g["in_channels"], 2 * g["in_channels"] + g["condition_dim"], g["ff_inner_dim"]
    macs = C2 * C2 * length + C2 * D * length + D * C * length + C * C * length
    macs += g["num_layers"] * (4 * D * D * S + 2 * S * S * D + 3 * F * D * S)
    return 2 * 2 * macs


def gemm_ceiling(g, length, device):
    m, n, k = 2 * (length + 1), 2 * g["ff_inner_dim"], g["num_attention_heads"] * g["attention_head_dim"]
    a = torch.randn(m, k, dtype=torch.bfloat16, device=device)
    b = torch.randn(n, k, dtype=torch.bfloat16, device=device)
    with torch.no_grad():
        ms = time_steps(lambda: a @ b.T, 20, 5, device)
    return {"shape": [m, n, k], "tflops": 2 * m * n * k / (statistics.median(ms) * 1e-3) / 1e12}


def build(geometry, device, seed):
    torch.manual_seed(seed)
    with torch.device(device):
        model = MiniMaxMusic3Transformer1DModel(**GEOMETRIES[geometry]).to(torch.bfloat16)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    return model.eval()


def step_function(name, model, x, t, cond, x2, t2, cond2):
    """One guided step of variant `name` (both branches), as a no-argument callable."""
    if name == "eager_b1x2":
        zeros = torch.zeros_like(cond)
        return lambda: (model(x, t, cond, return_dict=False), model(x, t, zeros, return_dict=False))
    if name == "eager_b2":
        return lambda: model(x2, t2, cond2, return_dict=False)
    if name == "compile_b2":
        compiled = torch.compile(model)
        return lambda: compiled(x2, t2, cond2, return_dict=False)
    raise ValueError(f"unknown variant {name!r}")


def serve(a, step, report):
    """The A/B runner's line protocol: ready line, then one {"ms": [...]} line per request."""
    with torch.no_grad():
        time_steps(step, 1, a.warmup, a.device)  # builds and warms (compile_b2 compiles here)
        print(json.dumps({"ready": True, "variant": a.variants, **{k: report[k] for k in
                                                                  ("geometry", "device", "length", "torch", "diffusers")},
                          "step_flops": report["step_flops"]}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                ms = time_steps(step, int(request["frames"]), int(request["warmup"]), a.device)
                print(json.dumps({"ms": ms}), flush=True)
            except Exception as error:  # the runner names the peer and the error
                print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--geometry", choices=sorted(GEOMETRIES), default="full")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--length", type=int, default=689)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--variants", default="eager_b1x2,eager_b2,compile_b2")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--serve", action="store_true")
    a = ap.parse_args()
    g = GEOMETRIES[a.geometry]
    model = build(a.geometry, a.device, a.seed)
    L, dev = a.length, a.device
    x = torch.randn(1, g["in_channels"], L, dtype=torch.bfloat16, device=dev)
    cond = torch.randn(1, L, g["condition_dim"], dtype=torch.bfloat16, device=dev)
    t = torch.full((1,), 0.5, dtype=torch.bfloat16, device=dev)
    x2, t2 = torch.cat([x, x]), torch.cat([t, t])
    cond2 = torch.cat([cond, torch.zeros_like(cond)])
    flops = step_flops(g, L)
    report = {"peer": "torch_dit_peer", "geometry": a.geometry, "device": dev, "length": L, "batch": "2 branches",
              "torch": torch.__version__, "diffusers": diffusers.__version__, "step_flops": flops, "variants": {}}
    if dev == "cuda":
        report["gpu"] = torch.cuda.get_device_name()
        if not a.serve:
            report["gemm_ceiling"] = gemm_ceiling(g, L, dev)
    if a.serve:
        if "," in a.variants:
            print(json.dumps({"error": "torch_dit_peer: --serve takes one variant"}), flush=True)
            return 2
        return serve(a, step_function(a.variants, model, x, t, cond, x2, t2, cond2), report)
    for name in [v for v in a.variants.split(",") if v]:
        try:
            step = step_function(name, model, x, t, cond, x2, t2, cond2)
            with torch.no_grad():
                ms = time_steps(step, a.steps, a.warmup, dev)
            med = statistics.median(ms)
            report["variants"][name] = {"ms": ms, "median_ms": med, "tflops": flops / (med * 1e-3) / 1e12}
        except Exception as e:  # reported, never skipped
            report["variants"][name] = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
