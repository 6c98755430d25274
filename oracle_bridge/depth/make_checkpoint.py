"""Writes a deterministic MiniMaxMusic3RVQDepthDecoder checkpoint in the real diffusers layout.

Usage: make_checkpoint.py GEOMETRY SEED OUTDIR  ->  OUTDIR/rvq_depth_decoder/{config.json,
diffusion_pytorch_model.safetensors}, written by upstream's own `save_pretrained` (real tensor names, bf16).

Contract: the module is built by diffusers from the geometry table, then every parameter is re-drawn from one
CPU torch.Generator seeded with SEED, in sorted parameter-name order, as float32 and cast to bfloat16:
  - nn.Linear weight [out, in]          N(0, 1/in)        (std 1/sqrt(in): unit-scale activations)
  - audio_heads.* (nn.Linear)           N(0, 6.25/in)     (std 2.5/sqrt(in): guided logits with std ~2-3, so
                                                           top-50 cuts and the multinomial both matter)
  - audio_embeddings (nn.Embedding)     N(0, 1)
  - pos_embedding (nn.Embedding)        N(0, 0.25)        (std 0.5)
  - RMSNorm weight                      1 + 0.1 N(0, 1)   (never all ones: a dropped norm weight is visible)
A parameter of any other kind is an error, so an upstream change cannot leave default-initialised weights.
Running it twice writes identical bytes.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # the shared bridge modules
import pins  # noqa: E402
import reproducible_cpu

pins.require_pinned()
reproducible_cpu.pin()

import torch  # noqa: E402
from diffusers import MiniMaxMusic3RVQDepthDecoder  # noqa: E402
from diffusers.models.normalization import RMSNorm  # noqa: E402

import geometries  # noqa: E402

COMPONENT = "rvq_depth_decoder"
HEAD_STD_GAIN = 2.5
POS_EMBEDDING_STD = 0.5
NORM_WEIGHT_JITTER = 0.1


def _draw_rule(module_name, module, param_name):
    """Returns (std, mean) of the parameter's normal draw, by the owning module's type."""
    if isinstance(module, torch.nn.Linear) and param_name == "weight":
        gain = HEAD_STD_GAIN if module_name.startswith("audio_heads.") else 1.0
        return gain / module.in_features ** 0.5, 0.0
    if isinstance(module, torch.nn.Embedding) and param_name == "weight":
        return (POS_EMBEDDING_STD if module_name == "pos_embedding" else 1.0), 0.0
    if isinstance(module, RMSNorm) and param_name == "weight":
        return NORM_WEIGHT_JITTER, 1.0
    raise TypeError(f"no draw rule for parameter {module_name}.{param_name} of {type(module).__name__}")


def build_model(geometry, seed):
    """The upstream module with every parameter re-drawn from SEED, in bfloat16."""
    model = MiniMaxMusic3RVQDepthDecoder(**geometries.GEOMETRIES[geometry]["config"])
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


def write_checkpoint(geometry, seed, outdir):
    """Writes OUTDIR/rvq_depth_decoder/ and returns that folder."""
    target = pathlib.Path(outdir) / COMPONENT
    build_model(geometry, seed).save_pretrained(target)
    return target


def main(argv):
    if len(argv) != 4 or argv[1] not in geometries.GEOMETRIES or not argv[2].isdigit():
        print(f"usage: {argv[0]} GEOMETRY SEED OUTDIR  (GEOMETRY one of {', '.join(geometries.GEOMETRIES)})",
              file=sys.stderr)
        return 64
    print(write_checkpoint(argv[1], int(argv[2]), argv[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
