"""PyTorch peer of the vocoder, timed per window, for the A/B runner (bench/ab).

The upstream module, diffusers' MiniMaxMusic3Vocoder, in bf16 with torch's own initialisation (seeded), at a
geometry of engine/models/music3/vocoder/vocoder_synthetic.h (full: latent 128, input 1024, hidden 1536, ratios
8, 8, 4, 2), decoding one window of --latents latents (689: the release's 200-frame window) per frame.
Variants:
  upstream  the module as diffusers runs it, eager: old-style weight norm recomputed every forward.
  folded    the same module with the weight norm removed once (torch.nn.utils.remove_weight_norm), eager: the
            forward the engine's folded weights compute.
Every frame is timed with the host clock from the latents' copy to the device to the waveform on the host, as
the engine's decode() is; frames cycle over 4 seeded windows.

Modes:
  --serve   the A/B runner's line protocol (bench/ab/peer_process.h): one {"ready": true, ...} line, then for
            each {"warmup": W, "frames": N} line one {"ms": [...]} line.
  (default) --reps R --frames N --warmup W: prints one JSON object with every frame's ms.
Exit status 0 on success, 2 on bad arguments or a missing dependency.
"""
import argparse
import json
import statistics
import sys
import time
import warnings

GEOMETRIES = {
    "full": dict(latent_channels=128, decoder_input_dim=1024, decoder_hidden_dim=1536, upsampling_ratios=(8, 8, 4, 2)),
    "mid": dict(latent_channels=128, decoder_input_dim=256, decoder_hidden_dim=384, upsampling_ratios=(8, 8, 4, 2)),
    "tiny": dict(latent_channels=8, decoder_input_dim=8, decoder_hidden_dim=32, upsampling_ratios=(8, 8, 4, 2)),
}
WINDOWS = 4

try:
    import torch
    import diffusers
    from diffusers import MiniMaxMusic3Vocoder
except ImportError as missing:  # the GPU box needs the carried wheels (scripts/gpu-carry-wheels)
    print(json.dumps({"error": f"torch_vocoder_peer: {missing}"}), flush=True)
    sys.exit(2)


def build(geometry, variant, device, seed):
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MiniMaxMusic3Vocoder(**GEOMETRIES[geometry])
        if variant == "folded":
            for module in model.modules():
                if hasattr(module, "weight_g"):
                    torch.nn.utils.remove_weight_norm(module)
    return model.to(device=device, dtype=torch.bfloat16).eval().requires_grad_(False)


class Peer:
    def __init__(self, args):
        self.device = torch.device(args.device)
        self.model = build(args.geometry, args.variant, self.device, args.seed)
        channels = GEOMETRIES[args.geometry]["latent_channels"]
        gen = torch.Generator(device="cpu").manual_seed(2_000_000 + args.seed)
        self.windows = [torch.randn(1, channels, args.latents, generator=gen).to(torch.bfloat16).pin_memory()
                        if self.device.type == "cuda" else torch.randn(1, channels, args.latents, generator=gen).to(torch.bfloat16)
                        for _ in range(WINDOWS)]
        self.next = 0
        self.args = args

    @torch.no_grad()
    def frame(self):
        latents = self.windows[self.next % WINDOWS]
        self.next += 1
        start = time.perf_counter()
        waveform = self.model(latents.to(self.device, non_blocking=True)).cpu()
        ms = (time.perf_counter() - start) * 1e3
        if waveform.shape[-1] != latents.shape[-1] * 512:
            raise RuntimeError(f"waveform of {waveform.shape[-1]} samples for {latents.shape[-1]} latents")
        return ms

    def repetition(self, warmup, frames):
        for _ in range(warmup):
            self.frame()
        return [self.frame() for _ in range(frames)]

    def describe(self):
        return {"peer": "torch_vocoder_peer", "variant": self.args.variant, "geometry": self.args.geometry,
                "latents_per_window": self.args.latents, "device": str(self.device), "torch": torch.__version__,
                "diffusers": diffusers.__version__,
                "gpu": torch.cuda.get_device_name() if self.device.type == "cuda" else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", choices=("upstream", "folded"), default="upstream")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--geometry", choices=tuple(GEOMETRIES), default="full")
    ap.add_argument("--latents", type=int, default=689)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--serve", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    if args.latents < 1:
        print(json.dumps({"error": "--latents must be >= 1"}), flush=True)
        return 2
    if args.device == "cuda" and not torch.cuda.is_available():
        print(json.dumps({"error": "torch_vocoder_peer: --device cuda but torch sees no CUDA device"}), flush=True)
        return 2
    peer = Peer(args)
    if args.serve:
        print(json.dumps({"ready": True, **peer.describe()}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                print(json.dumps({"ms": peer.repetition(int(request["warmup"]), int(request["frames"]))}), flush=True)
            except Exception as error:  # the runner names the peer and the error
                print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 0
    reps = [peer.repetition(args.warmup, args.frames) for _ in range(args.reps)]
    print(json.dumps({**peer.describe(), "ms": reps, "median_ms": statistics.median(ms for r in reps for ms in r)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
