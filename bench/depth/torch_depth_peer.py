"""PyTorch peers of the depth stage, timed per frame, for the A/B runner (bench/ab).

Variants, all bf16 with random weights (torch's own initialisation, seeded) at a geometry of
bench/depth/depth_geometry.h (full: hidden 4096, 4 layers, 16 heads, ffn 6144, vocab 1024, 8 codebooks):
  upstream  diffusers' own schedule: `encoders._generate_depth_codes` on the upstream
            `MiniMaxMusic3RVQDepthDecoder`, recomputing the growing sequence in 7 calls per frame, with
            projection, heads, CFG and upstream's top-k sampler (on the default generator of the device).
            A shim stands in for the language model's `embed_tokens`, as oracle_bridge/make_goldens.py does.
  kv        the same function with a K/V cache per layer: 7 calls over 2, 1, 1, ... new positions, only
            the last position through the final norm and head, q|k|v and gate|up weights concatenated,
            the sampler as argmax(p / E) with E ~ Exp(1) (what torch.multinomial(p, 1) computes); eager.
  graph     kv with static input/output buffers, captured once as one CUDA graph per frame and replayed
            (CUDA only): the fastest honest PyTorch this project could write.
Every frame is timed with the host clock from the first input copy to a device synchronize, like the
engine's run_frame (which returns when its codes are on the host); frames cycle over 8 seeded inputs.

Modes:
  --serve            the A/B runner's line protocol (bench/ab/peer_process.h): one {"ready": true, ...}
                     line, then for each {"warmup": W, "frames": N} line one {"ms": [...]} line.
  (default)          --reps R --frames N --warmup W: prints one JSON object with every frame's ms.
  --check            runs kv (and graph on CUDA) against upstream on the same inputs and the same Exp(1) draws:
                     upstream samples from the default generator, its draws are replayed from the same seed
                     (and checked: argmax(p / E) with upstream's own p gives upstream's codes), and the
                     candidates sample with those draws injected. Codes must be equal, or differ only at a
                     shared near-tie (the gates' rule, gates/lib/near_tie.h), which ends that frame's
                     comparison; the per-call conditional hidden states, through the first difference, must
                     stay within --check-rel (default 2e-2) relative error. Exit 1 otherwise. Deterministic.
Exit status 0 on success, 1 on a failed check, 2 on bad arguments or a missing dependency.
"""
import argparse
import json
import math
import statistics
import sys
import time
import types

GEOMETRIES = {
    "full": dict(hidden_size=4096, num_layers=4, num_attention_heads=16, intermediate_size=6144,
                 audio_vocab_size=1024, num_codebooks=8, max_position_embeddings=16),
    "mid": dict(hidden_size=1024, num_layers=4, num_attention_heads=4, intermediate_size=1536,
                audio_vocab_size=1024, num_codebooks=8, max_position_embeddings=16),
    "tiny": dict(hidden_size=64, num_layers=2, num_attention_heads=4, intermediate_size=128,
                 audio_vocab_size=128, num_codebooks=8, max_position_embeddings=16),
}
INPUT_FRAMES = 8
SEMANTIC_CODE = 0

try:
    import torch
    import torch.nn.functional as F
    import diffusers
    from diffusers import MiniMaxMusic3RVQDepthDecoder
    from diffusers.modular_pipelines.minimax_music3 import encoders
    from diffusers.utils import logging as diffusers_logging
except ImportError as missing:  # the GPU box needs the carried wheels (scripts/gpu-carry-wheels)
    print(json.dumps({"error": f"torch_depth_peer: {missing}"}), flush=True)
    sys.exit(2)


def build_model(geometry, device, seed):
    torch.manual_seed(seed)
    with torch.device(device):
        model = MiniMaxMusic3RVQDepthDecoder(**GEOMETRIES[geometry])
    return model.to(torch.bfloat16).eval().requires_grad_(False)


def frame_inputs(hidden, device, seed):
    """INPUT_FRAMES pairs (last_hidden [2, H], c0_embedding [H]), bf16, from a seeded CPU generator."""
    gen = torch.Generator(device="cpu").manual_seed(1_000_000 + seed)
    return [(torch.randn(2, hidden, generator=gen).to(device, torch.bfloat16),
             torch.randn(hidden, generator=gen).to(device, torch.bfloat16)) for _ in range(INPUT_FRAMES)]


def language_model_shim(c0_embedding):
    """Stands in for Qwen3ForCausalLM: embed_tokens(ids [2]) -> c0_embedding for both rows."""
    return types.SimpleNamespace(model=types.SimpleNamespace(
        embed_tokens=lambda ids: c0_embedding.unsqueeze(0).expand(ids.shape[0], -1)))


class Upstream:
    """diffusers' `_generate_depth_codes` itself; returns (codes [7], conditional hiddens [7, H])."""

    def __init__(self, model):
        self.model = model
        self.semantic = None

    def run(self, last_hidden, c0_embedding):
        if self.semantic is None:
            self.semantic = torch.full((2,), SEMANTIC_CODE, dtype=torch.long, device=last_hidden.device)
        codes, hidden = encoders._generate_depth_codes(
            language_model_shim(c0_embedding), self.model, last_hidden, self.semantic, None)
        return codes[0, 1:], hidden.view(codes.shape[1] - 1, -1)


class KvCache:
    """The depth frame with a K/V cache over static buffers; `frame()` is capturable in a CUDA graph."""

    def __init__(self, model, injected_draws=False):
        cfg = model.config
        self.model = model
        self.injected_draws = injected_draws
        self.H, self.heads = cfg.hidden_size, cfg.num_attention_heads
        self.D, self.I, self.V = self.H // self.heads, cfg.intermediate_size, cfg.audio_vocab_size
        self.steps = cfg.num_codebooks - 1
        self.top_k = min(encoders._AR_SAMPLING_TOP_K, self.V)
        self.cfg_scale = encoders._AR_CFG_SCALE
        dev = model.projection.weight.device
        with torch.no_grad():
            self.wqkv = [torch.cat([b.attn.to_q.weight, b.attn.to_k.weight, b.attn.to_v.weight]) for b in model.layers]
            self.w_gate_up = [torch.cat([b.gate_proj.weight, b.up_proj.weight]) for b in model.layers]
        positions = self.steps + 1
        self.k_cache = torch.zeros(len(model.layers), 2, self.heads, positions, self.D, dtype=torch.bfloat16, device=dev)
        self.v_cache = torch.zeros_like(self.k_cache)
        self.last_hidden = torch.zeros(2, self.H, dtype=torch.bfloat16, device=dev)
        self.c0_embedding = torch.zeros(self.H, dtype=torch.bfloat16, device=dev)
        self.codes = torch.zeros(self.steps, dtype=torch.long, device=dev)
        self.hidden = torch.zeros(self.steps, self.H, dtype=torch.bfloat16, device=dev)
        if injected_draws:  # the check's buffers: draws read by the sampler, guided logits written per step
            self.draws = torch.ones(self.steps, self.V, dtype=torch.float32, device=dev)
            self.guided = torch.zeros(self.steps, self.V, dtype=torch.float32, device=dev)

    def _layers(self, x, pos):
        """x [2, n, H] holds positions pos..pos+n-1 (position embedding added); returns the layers' output."""
        n = x.shape[1]
        for index, block in enumerate(self.model.layers):
            a = block.input_layernorm(x)
            q, k, v = F.linear(a, self.wqkv[index]).split(self.H, dim=-1)
            q = q.view(2, n, self.heads, self.D).transpose(1, 2)
            self.k_cache[index, :, :, pos:pos + n] = k.view(2, n, self.heads, self.D).transpose(1, 2)
            self.v_cache[index, :, :, pos:pos + n] = v.view(2, n, self.heads, self.D).transpose(1, 2)
            att = F.scaled_dot_product_attention(q, self.k_cache[index, :, :, :pos + n],
                                                 self.v_cache[index, :, :, :pos + n], is_causal=n > 1)
            x = x + block.attn.to_out(att.transpose(1, 2).reshape(2, n, self.H))
            m = block.post_attention_layernorm(x)
            gate, up = F.linear(m, self.w_gate_up[index]).split(self.I, dim=-1)
            x = x + block.down_proj(F.silu(gate) * up)
        return x

    def _sample(self, guided, step):
        """upstream's _sample_top_k, with torch.multinomial(p, 1) written as argmax(p / E), E ~ Exp(1) (or the
        injected draws of this step)."""
        values = torch.nan_to_num(guided, nan=-1e9, posinf=1e9, neginf=-1e9)
        threshold = torch.topk(values, self.top_k, dim=-1).values[..., -1:]
        probs = torch.nan_to_num(F.softmax(values.masked_fill(values < threshold, -float("inf")), dim=-1), nan=0.0)
        probs = probs / probs.sum(dim=-1, keepdim=True).clamp_min(1e-12)
        if self.injected_draws:
            self.guided[step:step + 1].copy_(guided)
            return torch.argmax(probs / self.draws[step:step + 1], dim=-1)
        return torch.argmax(probs / torch.empty_like(probs).exponential_(), dim=-1)

    def frame(self):
        """Reads self.last_hidden and self.c0_embedding; writes self.codes and self.hidden."""
        m = self.model
        projection, pos_embedding = m.projection, m.pos_embedding.weight
        first = torch.stack([projection(self.last_hidden), projection(self.c0_embedding).expand(2, self.H)], dim=1)
        x, pos = first, 0
        for step in range(self.steps):
            n = x.shape[1]
            out = m.norm(self._layers(x + pos_embedding[pos:pos + n], pos)[:, -1])
            self.hidden[step].copy_(out[0])
            logits = m.audio_heads[step](out).float()
            guided = logits[1:2] + (logits[0:1] - logits[1:2]) * self.cfg_scale
            code = self._sample(guided, step)
            self.codes[step:step + 1].copy_(code)
            pos += n
            if step + 1 < self.steps:
                embed = m.audio_embeddings.weight.index_select(0, code + step * self.V)
                x = projection(embed).unsqueeze(1).expand(2, 1, self.H)

    def run(self, last_hidden, c0_embedding):
        self.last_hidden.copy_(last_hidden)
        self.c0_embedding.copy_(c0_embedding)
        self.frame()
        return self.codes, self.hidden


class CudaGraph(KvCache):
    """KvCache.frame captured once in one CUDA graph; each frame copies its inputs in and replays it."""

    def __init__(self, model, injected_draws=False, warmup_frames=3):
        super().__init__(model, injected_draws)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(warmup_frames):
                self.frame()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.frame()
        torch.cuda.synchronize()

    def run(self, last_hidden, c0_embedding):
        self.last_hidden.copy_(last_hidden)
        self.c0_embedding.copy_(c0_embedding)
        self.graph.replay()
        return self.codes, self.hidden


VARIANTS = {"upstream": Upstream, "kv": KvCache, "graph": CudaGraph}


class Peer:
    def __init__(self, variant, device, geometry, seed):
        if variant == "graph" and not device.startswith("cuda"):
            raise ValueError("the graph variant needs a CUDA device")
        self.device = torch.device(device)
        self.model = build_model(geometry, self.device, seed)
        self.inputs = frame_inputs(self.model.config.hidden_size, self.device, seed)
        self.runner = VARIANTS[variant](self.model)
        self.next_frame = 0
        self.description = {
            "peer": f"torch-{variant}", "variant": variant, "geometry": geometry, "config": GEOMETRIES[geometry],
            "torch": torch.__version__, "diffusers": diffusers.__version__, "seed": seed,
            "device": torch.cuda.get_device_name(self.device) if self.device.type == "cuda" else "cpu",
            "timing": "host clock from the first input copy to a device synchronize, per frame",
        }

    def synchronize(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def timed_frame(self):
        last_hidden, c0_embedding = self.inputs[self.next_frame % INPUT_FRAMES]
        self.next_frame += 1
        self.synchronize()
        start = time.perf_counter()
        with torch.no_grad():
            self.runner.run(last_hidden, c0_embedding)
        self.synchronize()
        return (time.perf_counter() - start) * 1e3

    def repetition(self, warmup, frames):
        for _ in range(warmup):
            self.timed_frame()
        return [self.timed_frame() for _ in range(frames)]


def serve(peer):
    print(json.dumps({"ready": True, **peer.description}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            reply = {"ms": peer.repetition(int(request["warmup"]), int(request["frames"]))}
        except Exception as error:  # noqa: BLE001 - every failure goes back to the runner, named
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


def standalone(peer, reps, frames, warmup):
    frame_ms = [peer.repetition(warmup, frames) for _ in range(reps)]
    rep_ms = [statistics.median(r) for r in frame_ms]
    print(json.dumps({**peer.description, "reps": reps, "frames": frames, "warmup": warmup, "rep_ms": rep_ms,
                      "median_ms_per_frame": statistics.median(rep_ms), "frame_ms": frame_ms}))


def bf16_ulp(value):
    """bf16's spacing at |value| (gates/lib/ulp_stats.h's bf16_ulp)."""
    mantissa, exponent = math.frexp(abs(value))
    return math.ldexp(1.0, max(exponent - 8, -133)) if mantissa else math.ldexp(1.0, -133)


def shared_near_tie(guided_a, guided_b, draws, pick_a, pick_b, tol_ulps=2.0):
    """gates/lib/near_tie.h's rule: each side ranks the other's pick within tol_ulps bf16 ULPs of its own."""
    magnitude = max(abs(guided_a[pick_a]), abs(guided_a[pick_b]), abs(guided_b[pick_a]), abs(guided_b[pick_b]))
    tol = tol_ulps * bf16_ulp(magnitude)

    def score(guided, i):
        return guided[i] - math.log(draws[i])
    return score(guided_a, pick_b) >= score(guided_a, pick_a) - tol and \
        score(guided_b, pick_a) >= score(guided_b, pick_b) - tol


def upstream_frame(reference, last_hidden, c0_embedding, seed, steps, vocab):
    """Upstream on the default generator seeded with `seed`; returns (codes, hidden, guided [S,V], draws [S,V]),
    the draws replayed from the same seed and checked against upstream's own probabilities."""
    guided, probs = [], []
    upstream_sample_top_k, upstream_multinomial = encoders._sample_top_k, torch.multinomial

    def recording_multinomial(p, *args, **kwargs):
        probs.append(p.clone())
        return upstream_multinomial(p, *args, **kwargs)

    def recording_sample_top_k(logits, generator):
        guided.append(logits.float().clone())
        torch.multinomial = recording_multinomial
        try:
            return upstream_sample_top_k(logits, generator)
        finally:
            torch.multinomial = upstream_multinomial

    encoders._sample_top_k = recording_sample_top_k
    try:
        torch.manual_seed(seed)
        codes, hidden = (t.clone() for t in reference.run(last_hidden, c0_embedding))
    finally:
        encoders._sample_top_k = upstream_sample_top_k
    torch.manual_seed(seed)
    device = last_hidden.device
    draws = torch.cat([torch.empty(1, vocab, device=device).exponential_() for _ in range(steps)])
    replayed = torch.argmax(torch.cat(probs) / draws, dim=-1)
    if not torch.equal(replayed, codes.to(replayed.dtype)):
        raise RuntimeError("the replayed Exp(1) draws do not reproduce upstream's codes")
    return codes, hidden, torch.cat(guided), draws


def check(device, geometry, seed, frames, max_rel):
    """kv (and graph on CUDA) against upstream, frame by frame, on the same inputs and the same draws."""
    model = build_model(geometry, torch.device(device), seed)
    inputs = frame_inputs(model.config.hidden_size, torch.device(device), seed)
    variants = ["kv", "graph"] if device.startswith("cuda") else ["kv"]
    reference = Upstream(model)
    steps, vocab = model.config.num_codebooks - 1, model.config.audio_vocab_size
    results = {}
    with torch.no_grad():
        upstream = [upstream_frame(reference, *inputs[f % INPUT_FRAMES], seed + f, steps, vocab) for f in range(frames)]
        for variant in variants:
            candidate = VARIANTS[variant](model, injected_draws=True)
            worst, equal, near_ties, defects, compared = 0.0, 0, 0, [], 0
            for frame, (ref_codes, ref_hidden, ref_guided, draws) in enumerate(upstream):
                candidate.draws.copy_(draws)
                codes, hidden = (t.clone() for t in candidate.run(*inputs[frame % INPUT_FRAMES]))
                guided = candidate.guided.clone()
                for step in range(steps):
                    compared += 1
                    ref, got = ref_hidden[step].float(), hidden[step].float()
                    worst = max(worst, float((got - ref).norm() / ref.norm()))
                    a, b = int(codes[step]), int(ref_codes[step])
                    if a == b:
                        equal += 1
                        continue
                    if shared_near_tie(guided[step].tolist(), ref_guided[step].tolist(), draws[step].tolist(), a, b):
                        near_ties += 1
                    else:
                        defects.append(f"frame {frame} step {step}: code {a} vs upstream {b} is not a shared near-tie")
                    break  # the rest of the frame follows a different code
            results[variant] = {"max_rel_hidden": worst, "compared": compared, "equal": equal,
                                "near_ties": near_ties, "defects": defects}
    passed = all(r["max_rel_hidden"] <= max_rel and not r["defects"] for r in results.values())
    print(json.dumps({"check": results, "device": device, "geometry": geometry, "frames": frames,
                      "bounds": {"max_rel_hidden": max_rel, "code_defects": 0}, "passed": passed}))
    return 0 if passed else 1


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="graph")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--geometry", choices=sorted(GEOMETRIES), default="full")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--check-rel", type=float, default=2e-2)
    args = parser.parse_args(argv[1:])
    diffusers_logging.set_verbosity_error()
    if args.check:
        return check(args.device, args.geometry, args.seed, args.frames, args.check_rel)
    peer = Peer(args.variant, args.device, args.geometry, args.seed)
    if args.serve:
        serve(peer)
    else:
        standalone(peer, args.reps, args.frames, args.warmup)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
