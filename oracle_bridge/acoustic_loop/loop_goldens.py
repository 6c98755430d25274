"""Runs upstream's window loop (MiniMaxMusic3CoreDenoiseStep: MiniMaxMusic3PrepareChunksStep then
MiniMaxMusic3ChunkDenoiseStep, inside the modular pipeline that init_pipeline() builds) on a loop checkpoint and
records everything the window loop consumes and produces.

Contract: the condition encoder and the DiT are loaded by from_pretrained(torch_dtype=bfloat16) from the folders
loop_checkpoint.py wrote, the scheduler is FlowMatchEulerDiscreteScheduler(num_train_timesteps=1, shift=1,
invert_sigmas=True) (the release's scheduler config), the guider is the pipeline's own (built from config, scale
1.7). Inputs: frame_hiddens bf16 [F, 8H] ~ N(0, 1) from input_seed; the pipeline's generator is a CPU
torch.Generator seeded with noise_seed. Recording glue (hooks that clone, nothing altered): randn_tensor's draw per
window, the encoder's output, set_timesteps' sigmas and timesteps, every DiT call's inputs and output. Tensors per
window k (N steps, C latent channels, L latents, D condition channels):
  window{k}.noise [C, L] bf16       the fresh noise, before any re-noising
  window{k}.condition [L, D] bf16   the encoder's output (before the overlap splice)
  window{k}.dit_condition [L, D]    what the conditional DiT call received (after the splice)
  window{k}.sigmas [N+1] f32, window{k}.timesteps [N] f32
  window{k}.dit_x [N, C, L] bf16, window{k}.dit_t [N] bf16   the DiT inputs at each step
  window{k}.v_cond / v_uncond [N, C, L] bf16                 the two branches' outputs
  window{k}.latents [C, L] bf16     the pipeline's latent_chunks[k]
plus frame_hiddens. Self-checks (GoldenSelfCheckError): 2N DiT calls per window, conditional first, both calls
of a step on the same x and t, the unconditional condition all zero, the conditional one the same at every step.
Metadata: geometry, seed, steps, frames, the window starts and lengths.
write_schedules(out_file): for every N of SCHEDULE_STEPS, `sigmas{N}` [N+1] f32 and `timesteps{N}` [N] f32 as the
real scheduler's set_timesteps(sigmas=np.linspace(1, 1/N, N)) leaves them (the call
MiniMaxMusic3ChunkSetTimestepsStep makes), and `timesteps{N}_bf16` [N] their bf16 cast (what the DiT receives).
"""
import contextlib

import numpy as np

import torch
from diffusers import FlowMatchEulerDiscreteScheduler, MiniMaxMusic3ConditionEncoder, MiniMaxMusic3Transformer1DModel
from diffusers.modular_pipelines.minimax_music3 import denoise as upstream_denoise
from diffusers.modular_pipelines.minimax_music3.modular_blocks_minimax_music3 import MiniMaxMusic3CoreDenoiseStep

import loop_geometries as geometries
import safetensors_file

INPUTS = ("frame_hiddens", "noise", "condition", "v_cond", "v_uncond")
OUTPUTS = ("dit_condition", "sigmas", "timesteps", "dit_x", "dit_t", "latents")


SCHEDULE_STEPS = (1, 2, 3, 4, 5, 6, 7, 10, 13, 16, 25, 29, 30, 31, 49, 50, 64, 100, 127, 250, 1000)


class GoldenSelfCheckError(RuntimeError):
    pass


def _check(condition, message):
    if not condition:
        raise GoldenSelfCheckError(message)


@contextlib.contextmanager
def _recording(pipe, log):
    """Records randn draws, encoder outputs, schedules and DiT calls into LOG (lists, in call order)."""
    original_randn = upstream_denoise.randn_tensor

    def randn(*args, **kwargs):
        out = original_randn(*args, **kwargs)
        log["noise"].append(out.clone())
        return out

    original_set = pipe.scheduler.set_timesteps

    def set_timesteps(*args, **kwargs):
        original_set(*args, **kwargs)
        log["schedule"].append((pipe.scheduler.sigmas.clone(), pipe.scheduler.timesteps.clone()))

    def dit_call(module, args, kwargs, output):
        log["dit"].append({"x": kwargs["hidden_states"].clone(), "t": kwargs["timestep"].clone(),
                           "c": kwargs["encoder_hidden_states"].clone(), "v": output[0].clone()})

    def encoder_call(module, args, output):
        log["condition"].append(output.clone())

    hooks = [pipe.transformer.register_forward_hook(dit_call, with_kwargs=True),
             pipe.condition_encoder.register_forward_hook(encoder_call)]
    upstream_denoise.randn_tensor = randn
    pipe.scheduler.set_timesteps = set_timesteps
    try:
        yield
    finally:
        upstream_denoise.randn_tensor = original_randn
        pipe.scheduler.set_timesteps = original_set
        for hook in hooks:
            hook.remove()


def _pipeline(root):
    pipe = MiniMaxMusic3CoreDenoiseStep().init_pipeline()
    pipe.update_components(
        condition_encoder=MiniMaxMusic3ConditionEncoder.from_pretrained(
            root / "condition_encoder", torch_dtype=torch.bfloat16).eval(),
        transformer=MiniMaxMusic3Transformer1DModel.from_pretrained(
            root / "transformer", torch_dtype=torch.bfloat16).eval(),
        scheduler=FlowMatchEulerDiscreteScheduler(num_train_timesteps=1, shift=1.0, invert_sigmas=True))
    return pipe


def frame_hiddens(geometry, seed, width):
    generator = torch.Generator(device="cpu").manual_seed(geometries.input_seed(geometry, seed))
    frames = geometries.GEOMETRIES[geometry]["frames"]
    return torch.randn((1, frames, width), generator=generator, dtype=torch.float32).to(torch.bfloat16)


@torch.no_grad()
def write_golden(geometry, seed, root, out_file):
    table = geometries.GEOMETRIES[geometry]
    steps = table["steps"]
    pipe = _pipeline(root)
    width = table["encoder"]["condition_hidden_dim"] * table["encoder"]["num_condition_layers"]
    hiddens = frame_hiddens(geometry, seed, width)
    log = {"noise": [], "schedule": [], "dit": [], "condition": []}
    generator = torch.Generator(device="cpu").manual_seed(geometries.noise_seed(geometry, seed))
    with _recording(pipe, log):
        state = pipe(frame_hiddens=hiddens, generator=generator, num_inference_steps=steps)
    chunks, starts = state.get("latent_chunks"), state.get("chunk_starts")
    windows = len(chunks)
    _check(len(log["noise"]) == windows and len(log["condition"]) == windows and len(log["schedule"]) == windows,
           f"{geometry}/seed{seed}: one draw, encoder call and schedule per window")
    _check(len(log["dit"]) == 2 * steps * windows, f"{geometry}/seed{seed}: {len(log['dit'])} DiT calls")
    tensors = {"frame_hiddens": hiddens[0]}
    for k in range(windows):
        calls = log["dit"][2 * steps * k: 2 * steps * (k + 1)]
        cond_calls, uncond_calls = calls[0::2], calls[1::2]
        for i, (c, u) in enumerate(zip(cond_calls, uncond_calls)):
            where = f"{geometry}/seed{seed} window {k} step {i}"
            _check(torch.equal(c["x"], u["x"]) and torch.equal(c["t"], u["t"]), f"{where}: branches differ in x or t")
            _check(not u["c"].any(), f"{where}: the unconditional condition is not zero")
            _check(torch.equal(c["c"], cond_calls[0]["c"]), f"{where}: the condition changed between steps")
        sigmas, timesteps = log["schedule"][k]
        prefix = f"window{k}."
        tensors.update({
            prefix + "noise": log["noise"][k][0],
            prefix + "condition": log["condition"][k][0],
            prefix + "dit_condition": cond_calls[0]["c"][0],
            prefix + "sigmas": sigmas.to(torch.float32),
            prefix + "timesteps": timesteps.to(torch.float32),
            prefix + "dit_x": torch.stack([c["x"][0] for c in cond_calls]),
            prefix + "dit_t": torch.stack([c["t"][0] for c in cond_calls]),
            prefix + "v_cond": torch.stack([c["v"][0] for c in cond_calls]),
            prefix + "v_uncond": torch.stack([u["v"][0] for u in uncond_calls]),
            prefix + "latents": chunks[k][0],
        })
    metadata = {"geometry": geometry, "seed": str(seed), "steps": str(steps), "frames": str(table["frames"]),
                "windows": str(windows), "starts": ",".join(str(s) for s in starts),
                "lengths": ",".join(str(c.shape[-1]) for c in chunks)}
    out_file.parent.mkdir(parents=True, exist_ok=True)
    safetensors_file.write(out_file, tensors, metadata)
    return out_file, metadata


def write_schedules(out_file):
    scheduler = FlowMatchEulerDiscreteScheduler(num_train_timesteps=1, shift=1.0, invert_sigmas=True)
    tensors = {}
    for n in SCHEDULE_STEPS:
        scheduler.set_timesteps(sigmas=np.linspace(1.0, 1.0 / n, n))
        tensors[f"sigmas{n}"] = scheduler.sigmas.to(torch.float32)
        tensors[f"timesteps{n}"] = scheduler.timesteps.to(torch.float32)
        tensors[f"timesteps{n}_bf16"] = scheduler.timesteps.to(torch.bfloat16)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    safetensors_file.write(out_file, tensors, {"steps": ",".join(str(n) for n in SCHEDULE_STEPS)})
    return out_file
