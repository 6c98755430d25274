"""Writes a deterministic tiny condition encoder and DiT of a loop geometry in the real diffusers layout.

Contract: write_checkpoint(geometry, seed, root) builds upstream's MiniMaxMusic3ConditionEncoder and
MiniMaxMusic3Transformer1DModel from the geometry table, re-draws every parameter (component_oracle.redraw, seed
2*seed and 2*seed+1) and saves each with save_pretrained to ROOT/condition_encoder/ and ROOT/transformer/ in
float32, as the hub stores them, with every value bf16-representable (the pipeline runs them in bf16, so the
stored and the run weights are the same numbers). Draw rules (nothing keeps its constant initialisation):
  - layer_weight_logits, time_proj.weight     N(0, 1)
  - layer_scale                               exp(0.25 N(0, 1))
  - LayerNorm weights (norm1, norm2)          1 + 0.1 N(0, 1)
  - every bias                                0.1 N(0, 1)
  - every other weight [out, in, ...]         N(0, 1 / fan_in), fan_in = the product of all dims but the first
A parameter matching none of these is an error. Running it twice writes identical bytes.
"""
import math

import torch
from diffusers import MiniMaxMusic3ConditionEncoder, MiniMaxMusic3Transformer1DModel

import component_oracle
import loop_geometries as geometries


def _draw(name, shape, generator):
    draw = torch.randn(shape, generator=generator, dtype=torch.float32)
    if name in ("layer_weight_logits", "time_proj.weight"):
        value = draw
    elif name == "layer_scale":
        value = torch.exp(0.25 * draw)
    elif name.endswith(("norm1.weight", "norm2.weight")):
        value = 1.0 + 0.1 * draw
    elif name.endswith(".bias"):
        value = 0.1 * draw
    elif name.endswith(".weight") and len(shape) >= 2:
        value = draw / math.sqrt(math.prod(shape[1:]))
    else:
        raise TypeError(f"no draw rule for parameter {name}")
    return value.to(torch.bfloat16).to(torch.float32)


def build(geometry, seed):
    """(condition encoder, DiT) of the geometry with every parameter re-drawn from SEED, float32, eval mode."""
    table = geometries.GEOMETRIES[geometry]
    encoder = MiniMaxMusic3ConditionEncoder(**table["encoder"])
    dit = MiniMaxMusic3Transformer1DModel(**table["dit"])
    component_oracle.redraw(encoder, 2 * seed, _draw)
    component_oracle.redraw(dit, 2 * seed + 1, _draw)
    return encoder.eval(), dit.eval()


def write_checkpoint(geometry, seed, root):
    """Writes ROOT/condition_encoder/ and ROOT/transformer/; returns ROOT."""
    encoder, dit = build(geometry, seed)
    encoder.save_pretrained(root / "condition_encoder")
    dit.save_pretrained(root / "transformer")
    return root
