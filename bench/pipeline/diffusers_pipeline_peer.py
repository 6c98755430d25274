"""Times the real diffusers MiniMaxMusic3ModularPipeline on a pipeline folder: the peer of `music3 generate`.

  diffusers_pipeline_peer.py --checkpoint DIR [--duration S] [--steps N] [--reps R] [--device cuda|cpu] [--seed S]
                             [--allow-eos] [--warmup-duration S] [--serve]

Loads ModularPipeline.from_pretrained(DIR) with load_components(dtype=torch.bfloat16) (the documented usage), moves
it to --device, and runs pipe(prompt, lyrics, audio_duration=S, generator, num_inference_steps=N,
output_type="pt") once untimed (of --warmup-duration seconds, default --duration: a short one pays the first-call
costs of a long song's run for less), then R timed repetitions, each with a fresh generator on --device seeded S + rep.
<|audio_end|> is masked out of the LM's logits (a forward hook sets its column to -inf) unless --allow-eos, so every
repetition runs min(int(S * 25), 9000) frames, as `music3 generate` is timed. Per repetition one JSON line:
seconds (wall, the device synchronised), frames, windows, seconds to the first transformer call (text + AR: the
stage before the windows) and peak device memory; then a summary line with the median.
--serve: instead, after the untimed run, speak ab-bench's peer protocol (bench/ab/peer_process.h): print
{"ready": true, ...}, then answer each {"warmup": W, "frames": N} with W untimed and N timed songs (every one seeded
S: the same song, as the generate arm runs it), {"ms": [N song milliseconds], "songs": [their JSON lines]}, until
stdin closes; a song that does not run the requested frames answers {"error": ...} (exit 1).
Exit 0, 1 a song short of its frames (--serve), 64 usage.
"""
import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

import torch  # noqa: E402
from diffusers import ModularPipeline  # noqa: E402

AUDIO_END_ID = 151670
PROMPT = "a bright synth pop song with warm female vocals"
LYRICS = "[verse]\nhello world\n[chorus]\nsing with me"


def sync(device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def serve(run, args):
    """ab-bench's peer protocol: one song per requested frame, each seeded args.seed (run(0))."""
    frames = min(int(args.duration * 25), 9000)
    print(json.dumps({"ready": True, "peer": "diffusers MiniMaxMusic3ModularPipeline", "checkpoint": args.checkpoint,
                      "duration": args.duration, "frames": frames, "steps": args.steps, "device": args.device,
                      "eos_masked": not args.allow_eos, "torch": torch.__version__}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        songs = [run(0) for _ in range(int(request["warmup"]) + int(request["frames"]))]
        short = [song["frames"] for song in songs if song["frames"] != frames]
        if short:
            print(json.dumps({"error": f"songs ran {short} frames, not {frames}"}), flush=True)
            return 1
        timed = songs[int(request["warmup"]):]
        print(json.dumps({"ms": [1e3 * song["seconds"] for song in timed], "songs": timed}), flush=True)
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--allow-eos", action="store_true")
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--warmup-duration", type=float, default=None)
    try:
        args = parser.parse_args(argv[1:])
    except SystemExit as e:
        return 64 if e.code else 0
    pipe = ModularPipeline.from_pretrained(args.checkpoint)
    pipe.load_components(dtype=torch.bfloat16)
    pipe.to(args.device)
    if not args.allow_eos:
        def no_eos(module, inputs, output):
            output[..., AUDIO_END_ID] = float("-inf")
            return output
        pipe.language_model.lm_head.register_forward_hook(no_eos)
    marks = {}

    def first_dit(module, inputs):
        if "dit" not in marks:
            sync(args.device)
            marks["dit"] = time.perf_counter()
    pipe.transformer.register_forward_pre_hook(first_dit)

    def run(rep, duration=args.duration):
        generator = torch.Generator(device=args.device).manual_seed(args.seed + rep)
        marks.clear()
        if args.device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats()
        sync(args.device)
        t0 = time.perf_counter()
        with torch.no_grad():
            state = pipe(prompt=PROMPT, lyrics=LYRICS, audio_duration=duration, generator=generator,
                         num_inference_steps=args.steps, output_type="pt")
        sync(args.device)
        seconds = time.perf_counter() - t0
        return {"rep": rep, "seconds": seconds, "frames": int(state.get("frame_hiddens").shape[1]),
                "windows": len(state.get("latent_chunks")), "seconds_before_windows": marks.get("dit", t0) - t0,
                "peak_device_memory": torch.cuda.max_memory_allocated() if args.device.startswith("cuda") else None}

    run(-1, args.warmup_duration or args.duration)  # untimed: first-call costs (kernels, allocator)
    if args.serve:
        return serve(run, args)
    times = []
    for rep in range(args.reps):
        result = run(rep)
        times.append(result["seconds"])
        print(json.dumps(result), flush=True)
    print(json.dumps({"summary": True, "median_seconds": statistics.median(times), "reps": args.reps,
                      "duration": args.duration, "steps": args.steps, "device": args.device,
                      "per_second_of_audio": statistics.median(times) / args.duration}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
