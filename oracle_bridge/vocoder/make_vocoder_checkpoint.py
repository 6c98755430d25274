"""Writes a deterministic MiniMaxMusic3Vocoder checkpoint in the real diffusers layout.

Contract: build_model(geometry, seed) is the upstream module built by diffusers from the geometry table (old-style
weight norm: weight_g / weight_v), with every parameter re-drawn from one CPU torch.Generator seeded with SEED, in
sorted parameter-name order, as float32 and cast to bfloat16. Nothing keeps its constant initialisation:
  - Snake alpha                         exp(0.5 N(0,1))    (never all ones: 1/alpha and alpha*x both matter)
  - weight_g [out,1,1] / [in,1,1]       exp(0.25 N(0,1))   times 0.5 in the residual units' second conv and
                                                           0.1 in conv_out (tanh stays off its rails)
  - weight_v                            N(0,1)             (its scale cancels in the weight norm)
  - dec_in_proj.weight (plain conv)     N(0, 1/in)
  - every bias                          0.1 N(0,1)
A parameter of any other name is an error, so an upstream change cannot leave default-initialised weights.
write_checkpoint() saves it with upstream's save_pretrained to OUTDIR/vocoder/; running it twice writes
identical bytes.
"""
import math

import torch

import vocoder_geometries as geometries
from diffusers import MiniMaxMusic3Vocoder

COMPONENT = "vocoder"


def _draw(name, shape, generator):
    draw = torch.randn(shape, generator=generator, dtype=torch.float32)
    if name.endswith(".alpha"):
        return torch.exp(0.5 * draw)
    if name.endswith(".weight_g"):
        gain = 0.5 if name.endswith("conv2.weight_g") else 0.1 if name.startswith("conv_out.") else 1.0
        return gain * torch.exp(0.25 * draw)
    if name.endswith(".weight_v"):
        return draw
    if name == "dec_in_proj.weight":
        return draw / math.sqrt(shape[1] * shape[2])
    if name.endswith(".bias"):
        return 0.1 * draw
    raise TypeError(f"no draw rule for parameter {name}")


def build_model(geometry, seed):
    """The upstream module with every parameter re-drawn from SEED, in bfloat16, eval mode."""
    model = MiniMaxMusic3Vocoder(**geometries.GEOMETRIES[geometry]["config"])
    params = dict(model.named_parameters())
    generator = torch.Generator(device="cpu").manual_seed(seed)
    with torch.no_grad():
        for name in sorted(params):
            params[name].data = _draw(name, params[name].shape, generator).to(torch.bfloat16)
    return model.eval()


def write_checkpoint(geometry, seed, root):
    """Writes ROOT/vocoder/{config.json,diffusion_pytorch_model.safetensors}; returns that folder."""
    target = root / COMPONENT
    build_model(geometry, seed).save_pretrained(target)
    return target
