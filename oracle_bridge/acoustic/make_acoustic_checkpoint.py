"""Writes deterministic MiniMaxMusic3ConditionEncoder and MiniMaxMusic3Transformer1DModel checkpoints in the real
diffusers layout, stored float32 as the release stores them (the engine rounds them to bf16 at load, as the
documented usage does).

Contract: build_encoder / build_transformer(geometry, seed) are the upstream modules built by diffusers from the
geometry table, with every parameter re-drawn (component_oracle.redraw, sorted names, one generator per module
seeded from the weight seed). Nothing keeps its constant initialisation:
  - layer_weight_logits          N(0, 1)            (the softmax weights differ per layer)
  - layer_scale                  1 + 0.3 N(0, 1)
  - LayerNorm weight / bias      1 + 0.2 N(0, 1) / 0.2 N(0, 1)
  - time_proj.weight             N(0, 1)            (upstream's own randn)
  - every other weight           N(0, 1/fan_in)     (fan_in = the input width times the kernel)
  - every bias                   0.1 N(0, 1)
A "quiet" geometry scales QUIET_PARAMETERS by QUIET_GAIN (the first LayerNorm then sees a variance near its
eps). A parameter without a rule is an error. write_checkpoint() saves both with upstream's save_pretrained to
ROOT/condition_encoder/ and ROOT/transformer/ (sharded, SHARD_SIZE, with diffusion_pytorch_model.safetensors.
index.json); running it twice writes identical bytes.
"""
import math

import torch
from diffusers import MiniMaxMusic3ConditionEncoder, MiniMaxMusic3Transformer1DModel

import acoustic_geometries as geometries
import component_oracle


def _draw(name, shape, generator):
    draw = torch.randn(shape, generator=generator, dtype=torch.float32)
    if name == "layer_weight_logits" or name == "time_proj.weight":
        return draw
    if name == "layer_scale":
        return 1.0 + 0.3 * draw
    if ".norm" in name and name.endswith(".weight"):
        return 1.0 + 0.2 * draw
    if ".norm" in name and name.endswith(".bias"):
        return 0.2 * draw
    if name.endswith(".bias"):
        return 0.1 * draw
    if name.endswith(".weight"):
        return draw / math.sqrt(math.prod(shape[1:]))
    raise TypeError(f"no draw rule for parameter {name}")


def build_encoder(geometry, seed):
    model = MiniMaxMusic3ConditionEncoder(**geometries.GEOMETRIES[geometry]["encoder"], **geometries.RATES)
    component_oracle.redraw(model, 10 * seed + 1, _draw)
    return model.eval()


def build_transformer(geometry, seed):
    model = MiniMaxMusic3Transformer1DModel(**geometries.GEOMETRIES[geometry]["transformer"])
    quiet = geometries.GEOMETRIES[geometry].get("quiet", False)

    def draw(name, shape, generator):
        value = _draw(name, shape, generator)
        return value * geometries.QUIET_GAIN if quiet and name in geometries.QUIET_PARAMETERS else value

    component_oracle.redraw(model, 10 * seed + 2, draw)
    return model.eval()


def write_checkpoint(geometry, seed, root):
    """Writes ROOT/condition_encoder/ and ROOT/transformer/; returns the two folders."""
    encoder, transformer = root / "condition_encoder", root / "transformer"
    build_encoder(geometry, seed).save_pretrained(encoder)
    build_transformer(geometry, seed).save_pretrained(transformer, max_shard_size=geometries.SHARD_SIZE)
    return encoder, transformer
