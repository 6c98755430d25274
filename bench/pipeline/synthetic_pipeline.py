"""Writes a pipeline folder in the diffusers hub layout with upstream's own random initialisation, for timing
`music3 generate` and the diffusers pipeline at a named geometry on the same weights (not a golden: nothing here is
compared with a manifest, and the weights are not perturbed).

  synthetic_pipeline.py OUT_DIR [--geometry full|tiny] [--device cpu|cuda] [--seed S]

full: the release's configs (shared reference minimax-music3.md, section 1.2: LM 36 x 4096 with 32/8 heads of 128
and a 200,000 vocabulary, depth 4 x 4096 with heads of 256, condition encoder 4096 -> 2048, DiT 36 x 32 heads of 64
with rotary 32, vocoder 1024/1536 over 128 latent channels); tiny: the pipeline oracle's tiny geometry
(oracle_bridge/pipeline/pipeline_geometries.py), so the script is exercised on a CPU in seconds. The models are
built on --device (full needs a GPU: about 9 G parameters) under torch.manual_seed(S + component index), the LM and
the depth decoder stored bf16, the rest f32 (as the hub stores them); the tokenizer is the oracle's tiny trained BPE
(every special token at its checkpoint id). modular_model_index.json names the hub repo, so the folder is
relocatable (pipeline_checkpoint.py's rule; importing it pins torch's CPU code paths, reproducible_cpu.py). Prints the folder and its size.
Exit status: 0 ok, 64 usage.
"""
import argparse
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "oracle_bridge"))
sys.path.insert(0, str(ROOT / "oracle_bridge" / "tokenizer"))
sys.path.insert(0, str(ROOT / "oracle_bridge" / "pipeline"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pipeline_checkpoint  # noqa: E402  (first: it pins torch's CPU paths before torch is imported)
import torch  # noqa: E402
from diffusers import (FlowMatchEulerDiscreteScheduler, MiniMaxMusic3ConditionEncoder,  # noqa: E402
                       MiniMaxMusic3RVQDepthDecoder, MiniMaxMusic3Transformer1DModel, MiniMaxMusic3Vocoder)
from diffusers.modular_pipelines import MiniMaxMusic3Blocks  # noqa: E402
from transformers import Qwen3Config, Qwen3ForCausalLM  # noqa: E402

import build_tokenizers  # noqa: E402
import pipeline_geometries  # noqa: E402

FULL = {
    "language_model": dict(pipeline_geometries._lm(4096, 36, 32, 8, 128, 12288), vocab_size=200_000),
    "rvq_depth_decoder": dict(hidden_size=4096, num_layers=4, num_attention_heads=16, intermediate_size=6144,
                              audio_vocab_size=1024, num_codebooks=8, max_position_embeddings=16),
    "condition_encoder": dict(condition_hidden_dim=4096, num_condition_layers=8, out_dim=2048),
    "transformer": dict(in_channels=128, condition_dim=2048, num_layers=36, num_attention_heads=32,
                        attention_head_dim=64, ff_inner_dim=8192, rotary_dim=32, fourier_embedding_dim=256),
    "vocoder": dict(latent_channels=128, decoder_input_dim=1024, decoder_hidden_dim=1536,
                    upsampling_ratios=[8, 8, 4, 2], sampling_rate=44100),
    "scheduler": dict(pipeline_geometries.SCHEDULER),
}
CLASSES = {"rvq_depth_decoder": MiniMaxMusic3RVQDepthDecoder, "condition_encoder": MiniMaxMusic3ConditionEncoder,
           "transformer": MiniMaxMusic3Transformer1DModel, "vocoder": MiniMaxMusic3Vocoder}
BF16_STORED = ("language_model", "rvq_depth_decoder")


def build(name, spec, seed, device):
    torch.manual_seed(seed)
    dtype = torch.bfloat16 if name in BF16_STORED else torch.float32
    with torch.device(device):
        model = Qwen3ForCausalLM(Qwen3Config(**spec)) if name == "language_model" else CLASSES[name](**spec)
    return model.to(dtype).eval()


def write(out, geometry, device, seed):
    spec = FULL if geometry == "full" else pipeline_geometries.GEOMETRIES[geometry]
    models = {name: build(name, spec[name], seed + index, device)
              for index, name in enumerate(("language_model", "rvq_depth_decoder", "condition_encoder", "transformer",
                                            "vocoder"))}
    pipe = MiniMaxMusic3Blocks().init_pipeline()
    pipe.update_components(tokenizer=build_tokenizers.build_tiny(out),
                           scheduler=FlowMatchEulerDiscreteScheduler(**spec["scheduler"]), **models)
    pipe.save_pretrained(str(out), overwrite_modular_index=True)
    pipeline_checkpoint._relocatable_index(out / pipeline_checkpoint.INDEX)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--geometry", choices=("full", "tiny"), default="full")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    try:
        args = parser.parse_args(argv[1:])
    except SystemExit as e:
        return 64 if e.code else 0
    started = time.monotonic()
    out = pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        write(out, args.geometry, args.device, args.seed)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"synthetic_pipeline: {args.geometry} pipeline in {out} ({size / 1e9:.2f} GB) in "
          f"{time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
