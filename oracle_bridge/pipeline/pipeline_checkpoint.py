"""Writes a complete tiny MiniMax-Music3 pipeline in the diffusers hub layout with the real upstream classes.

Usage: pipeline_checkpoint.py GEOMETRY OUTDIR [QWEN_TIKTOKEN]  ->  OUTDIR/{modular_model_index.json, language_model/, tokenizer/,
rvq_depth_decoder/, condition_encoder/, transformer/, vocoder/, scheduler/}

Contract: each model is built by upstream (transformers' Qwen3ForCausalLM, the diffusers MiniMax-Music3 classes)
from pipeline_geometries.GEOMETRIES after torch.manual_seed(WEIGHTS_SEED + component index), so its weights are
upstream's own initialisation; then
  - perturb.perturb_constants() moves every parameter upstream leaves constant (RMSNorm/q_norm/k_norm/LayerNorm
    weights and biases, Snake alphas, layer_scale, layer_weight_logits with spread 1.0 so the layer softmax is not
    uniform) and scales every weight_g by 1 + 0.1 N(0,1);
  - lm_head is redrawn N(0, (2/sqrt(hidden))^2) and the depth heads scaled by 3, so sampling is peaked enough that
    the top-50 filters and the multinomial both matter (upstream's 0.02-std init samples nearly uniformly); a
    geometry of pipeline_geometries.EOS_ROW_GAIN then has its <|audio_end|> row (id 151670) multiplied by its gain,
    so the song ends early.
The LM and the depth decoder are stored bf16 (as the hub stores them), the rest f32 (as the hub does). The
tokenizer is oracle_bridge/tokenizer's tiny trained BPE (every special token at its checkpoint id), or for a
geometry pipeline_geometries.TOKENIZERS marks "qwen" the real Qwen base vocabulary built from `tiktoken`
(dashscope's qwen.tiktoken, checked by its sha256). The modular
pipeline (MiniMaxMusic3Blocks().init_pipeline()) takes the components by update_components() and writes the folder
with its own save_pretrained; modular_model_index.json's loading specs then name the hub repo
"MiniMaxAI/MiniMax-Music3" (as the hub's index does) instead of the absolute save path, so the folder is
relocatable and its bytes do not depend on where it was written. Running it twice writes identical bytes.
write_pipeline() returns (OUTDIR, {component: [perturbed parameter names]}).
"""
import json
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tokenizer"))
sys.path.insert(0, str(HERE))
os.environ["HF_HUB_OFFLINE"] = "1"  # the tokenizer config records it

import pins  # noqa: E402
import reproducible_cpu  # noqa: E402

pins.require_pinned()
torch = reproducible_cpu.pin()

from diffusers import (FlowMatchEulerDiscreteScheduler, MiniMaxMusic3ConditionEncoder,  # noqa: E402
                       MiniMaxMusic3RVQDepthDecoder, MiniMaxMusic3Transformer1DModel, MiniMaxMusic3Vocoder)
from diffusers.modular_pipelines import MiniMaxMusic3Blocks  # noqa: E402
from transformers import Qwen3Config, Qwen3ForCausalLM  # noqa: E402

import build_tokenizers  # noqa: E402
import perturb  # noqa: E402
import pipeline_geometries  # noqa: E402

HUB_REPO = "MiniMaxAI/MiniMax-Music3"
INDEX = "modular_model_index.json"
COMPONENTS = ("language_model", "rvq_depth_decoder", "condition_encoder", "transformer", "vocoder")
LM_HEAD_STD_GAIN = 2.0
DEPTH_HEAD_GAIN = 3.0
SPREADS = {"layer_weight_logits": 1.0}
PERTURB_SEED_OFFSET = 1_000
AUDIO_END_ID = 151670


def _build(name, spec, seed):
    torch.manual_seed(seed)
    if name == "language_model":
        return Qwen3ForCausalLM(Qwen3Config(**spec))
    classes = {"rvq_depth_decoder": MiniMaxMusic3RVQDepthDecoder, "condition_encoder": MiniMaxMusic3ConditionEncoder,
               "transformer": MiniMaxMusic3Transformer1DModel, "vocoder": MiniMaxMusic3Vocoder}
    return classes[name](**spec)


def build_components(geometry):
    """{component: eval-mode module} and {component: perturbed parameter names}."""
    spec = pipeline_geometries.GEOMETRIES[geometry]
    models, perturbed = {}, {}
    for index, name in enumerate(COMPONENTS):
        seed = pipeline_geometries.WEIGHTS_SEED + index
        model = _build(name, spec[name], seed).float()
        perturbed[name] = perturb.perturb_constants(model, seed + PERTURB_SEED_OFFSET, SPREADS)
        with torch.no_grad():
            if name == "language_model":
                gen = torch.Generator(device="cpu").manual_seed(seed + 2 * PERTURB_SEED_OFFSET)
                head = model.lm_head.weight
                head.copy_(torch.randn(head.shape, generator=gen) * (LM_HEAD_STD_GAIN / head.shape[1] ** 0.5))
                if geometry in pipeline_geometries.EOS_ROW_GAIN:
                    head[AUDIO_END_ID].mul_(pipeline_geometries.EOS_ROW_GAIN[geometry])
            if name == "rvq_depth_decoder":
                for head in model.audio_heads:
                    head.weight.mul_(DEPTH_HEAD_GAIN)
        if name in ("language_model", "rvq_depth_decoder"):
            model = model.to(torch.bfloat16)
        models[name] = model.eval()
    return models, perturbed


def _relocatable_index(path):
    index = json.loads(path.read_text())
    for name, entry in index.items():
        if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], dict):
            entry[2]["pretrained_model_name_or_path"] = HUB_REPO
    path.write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")


def write_pipeline(geometry, outdir, tiktoken=None):
    outdir = pathlib.Path(outdir)
    models, perturbed = build_components(geometry)
    if pipeline_geometries.TOKENIZERS.get(geometry) == "qwen":
        tokenizer = build_tokenizers.build_qwen(tiktoken, outdir)
    else:
        tokenizer = build_tokenizers.build_tiny(outdir)
    scheduler = FlowMatchEulerDiscreteScheduler(**pipeline_geometries.GEOMETRIES[geometry]["scheduler"])
    pipe = MiniMaxMusic3Blocks().init_pipeline()
    pipe.update_components(tokenizer=tokenizer, scheduler=scheduler, **models)
    pipe.save_pretrained(str(outdir), overwrite_modular_index=True)
    _relocatable_index(outdir / INDEX)
    return outdir, perturbed


def main(argv):
    if len(argv) not in (3, 4) or argv[1] not in pipeline_geometries.GEOMETRIES:
        print(f"usage: {argv[0]} GEOMETRY OUTDIR [QWEN_TIKTOKEN]  (GEOMETRY one of "
              f"{', '.join(pipeline_geometries.GEOMETRIES)})", file=sys.stderr)
        return 64
    outdir, perturbed = write_pipeline(argv[1], argv[2], argv[3] if len(argv) == 4 else None)
    print(outdir, json.dumps(perturbed, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
