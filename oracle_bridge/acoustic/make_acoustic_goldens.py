"""Runs the upstream condition encoder and DiT, loaded in bf16 from the checkpoints save_pretrained wrote, and
records one golden per (geometry, seed).

Contract: the modules are from_pretrained(torch_dtype=bfloat16), the cast the documented usage makes
(load_components(dtype=bfloat16)). Golden tensors:
  frames         bf16 [1, n, 8 H]   ~ N(0, 1) (f32 draw from input_seed(.., "frames"), cast)       input
  condition      bf16 [1, L, C]     = condition_encoder(frames)                                    output
  latents        bf16 [1, Cin, L]   ~ N(0, 1) (f32 draw from input_seed(.., "latents"), cast)      input
  timestep       bf16 [1]           the pipeline's timestep of step timestep_step(..) of 30         input
  v_cond         bf16 [1, Cin, L]   = transformer(latents, timestep, condition).sample             output
  v_uncond       bf16 [1, Cin, L]   = transformer(latents, timestep, zeros_like(condition)).sample output
The DiT is fed upstream's own condition, so its gate does not depend on the engine's encoder. Metadata
(strings): geometry, seed, frames, latents, step. Files are written by safetensors_file.write.
"""
import numpy as np
import torch
from diffusers import MiniMaxMusic3ConditionEncoder, MiniMaxMusic3Transformer1DModel

import acoustic_geometries as geometries
import safetensors_file

INPUTS = ("frames", "latents", "timestep")
OUTPUTS = ("condition", "v_cond", "v_uncond")
STEPS = 30


def pipeline_timesteps(steps=STEPS):
    """The scheduler's timesteps for `steps` (float32 linspace, inverted), then 1.0, as bf16."""
    sigmas = torch.from_numpy(np.linspace(1.0, 1.0 / steps, steps).astype(np.float32))
    return torch.cat([1.0 - sigmas, torch.ones(1)]).to(torch.bfloat16)


def _normal(seed, shape):
    generator = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(shape, generator=generator, dtype=torch.float32).to(torch.bfloat16)


@torch.no_grad()
def write_golden(geometry, seed, encoder_dir, transformer_dir, out_file):
    encoder = MiniMaxMusic3ConditionEncoder.from_pretrained(encoder_dir, torch_dtype=torch.bfloat16).eval()
    transformer = MiniMaxMusic3Transformer1DModel.from_pretrained(transformer_dir, torch_dtype=torch.bfloat16).eval()
    n = geometries.frames(geometry, seed)
    cfg = encoder.config
    frames = _normal(geometries.input_seed(geometry, seed, "frames"),
                     (1, n, cfg.num_condition_layers * cfg.condition_hidden_dim))
    condition = encoder(frames)
    length = condition.shape[1]
    latents = _normal(geometries.input_seed(geometry, seed, "latents"),
                      (1, transformer.config.in_channels, length))
    step = geometries.timestep_step(geometry, seed)
    timestep = pipeline_timesteps()[step:step + 1]
    v_cond = transformer(latents, timestep, condition).sample
    v_uncond = transformer(latents, timestep, torch.zeros_like(condition)).sample
    out_file.parent.mkdir(parents=True, exist_ok=True)
    safetensors_file.write(out_file, {"frames": frames, "condition": condition, "latents": latents,
                                      "timestep": timestep, "v_cond": v_cond, "v_uncond": v_uncond},
                           {"geometry": geometry, "seed": str(seed), "frames": str(n), "latents": str(length),
                            "step": str(step)})
    return out_file
