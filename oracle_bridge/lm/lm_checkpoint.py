"""Writes a deterministic Qwen3ForCausalLM language model and its coupled MiniMaxMusic3RVQDepthDecoder in the real
diffusers layout.

Usage: lm_checkpoint.py GEOMETRY SEED OUTDIR  ->  OUTDIR/language_model/{config.json, generation_config.json,
model-0000k-of-0000n.safetensors, model.safetensors.index.json} (transformers' own save_pretrained, sharded at the
geometry's shard size) and OUTDIR/rvq_depth_decoder/ (diffusers' save_pretrained), bf16 like the hub.

Contract: each module is built by upstream from the geometry table, then every parameter is re-drawn from one CPU
torch.Generator (seed SEED for the LM, SEED + 100 for the depth decoder), in sorted parameter-name order, as
float32 and cast to bfloat16:
  - nn.Linear weight [out, in]            N(0, 1/in)       (unit-scale activations)
  - lm_head                               N(0, 4/in)       (std 2/sqrt(in): peaked enough that top-50 and the
                                                            multinomial both matter); row 151670 times eos_scale
  - depth audio_heads.*                   N(0, 6.25/in)
  - nn.Embedding (embed_tokens, audio_embeddings) N(0, 1); depth pos_embedding N(0, 0.25)
  - every RMSNorm weight (input/post-attention, q_norm, k_norm, final norms)  1 + 0.1 N(0, 1)
    (all constant-initialised upstream: perturbed, so a dropped or misplaced norm weight is visible)
A parameter of any other kind is an error, so an upstream change cannot leave default-initialised weights.
Running it twice writes identical bytes.
"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import pins  # noqa: E402
import reproducible_cpu  # noqa: E402

pins.require_pinned()
reproducible_cpu.pin()

import torch  # noqa: E402
from diffusers import MiniMaxMusic3RVQDepthDecoder  # noqa: E402
from diffusers.models.normalization import RMSNorm  # noqa: E402
from transformers import Qwen3Config, Qwen3ForCausalLM  # noqa: E402
from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm  # noqa: E402

import lm_geometries  # noqa: E402

AUDIO_END_ID = 151670
LM_HEAD_STD_GAIN = 2.0
DEPTH_HEAD_STD_GAIN = 2.5
POS_EMBEDDING_STD = 0.5
NORM_WEIGHT_JITTER = 0.1
DEPTH_SEED_OFFSET = 100


def _draw_rule(module_name, module, param_name):
    """(std, mean) of the parameter's normal draw, by the owning module's type."""
    if isinstance(module, torch.nn.Linear) and param_name == "weight":
        gain = 1.0
        if module_name == "lm_head":
            gain = LM_HEAD_STD_GAIN
        elif module_name.startswith("audio_heads."):
            gain = DEPTH_HEAD_STD_GAIN
        return gain / module.in_features ** 0.5, 0.0
    if isinstance(module, torch.nn.Embedding) and param_name == "weight":
        return (POS_EMBEDDING_STD if module_name == "pos_embedding" else 1.0), 0.0
    if isinstance(module, (RMSNorm, Qwen3RMSNorm)) and param_name == "weight":
        return NORM_WEIGHT_JITTER, 1.0
    raise TypeError(f"no draw rule for parameter {module_name}.{param_name} of {type(module).__name__}")


def _redraw(model, seed):
    rules = {}
    for module_name, module in model.named_modules():
        for param_name, param in module.named_parameters(recurse=False):
            rules[f"{module_name}.{param_name}" if module_name else param_name] = (param, module_name, module,
                                                                                   param_name)
    generator = torch.Generator(device="cpu").manual_seed(seed)
    with torch.no_grad():
        for full_name in sorted(rules):
            param, module_name, module, param_name = rules[full_name]
            std, mean = _draw_rule(module_name, module, param_name)
            draw = torch.randn(param.shape, generator=generator, dtype=torch.float32)
            param.data = (draw * std + mean).to(torch.bfloat16)
    return model.eval()


def build_language_model(geometry, seed):
    spec = lm_geometries.GEOMETRIES[geometry]
    model = _redraw(Qwen3ForCausalLM(Qwen3Config(**spec["lm"])), seed)
    with torch.no_grad():
        row = model.lm_head.weight[AUDIO_END_ID].float() * spec["eos_scale"]
        model.lm_head.weight[AUDIO_END_ID] = row.to(torch.bfloat16)
    return model


def build_depth_decoder(geometry, seed):
    return _redraw(MiniMaxMusic3RVQDepthDecoder(**lm_geometries.GEOMETRIES[geometry]["depth"]),
                   seed + DEPTH_SEED_OFFSET)


def write_checkpoint(geometry, seed, outdir):
    """Writes OUTDIR/language_model/ and OUTDIR/rvq_depth_decoder/; returns OUTDIR."""
    outdir = pathlib.Path(outdir)
    shard = lm_geometries.GEOMETRIES[geometry]["shard_bytes"]
    build_language_model(geometry, seed).save_pretrained(outdir / "language_model", max_shard_size=shard)
    build_depth_decoder(geometry, seed).save_pretrained(outdir / "rvq_depth_decoder")
    return outdir


def main(argv):
    if len(argv) != 4 or argv[1] not in lm_geometries.GEOMETRIES or not argv[2].isdigit():
        print(f"usage: {argv[0]} GEOMETRY SEED OUTDIR  (GEOMETRY one of {', '.join(lm_geometries.GEOMETRIES)})",
              file=sys.stderr)
        return 64
    print(write_checkpoint(argv[1], int(argv[2]), argv[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
