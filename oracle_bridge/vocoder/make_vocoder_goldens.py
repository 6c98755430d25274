"""Runs the upstream vocoder and upstream's decode block on a checkpoint and records the goldens.

Contract: load(folder) is upstream's MiniMaxMusic3Vocoder.from_pretrained on the folder save_pretrained wrote (bf16).
  parity golden  (geometry, seed): latents bf16 [1, C, L] ~ N(0,1) (f32 draw from input_seed(geometry, seed, 0),
                 cast), waveform bf16 [1, 2, 512 L] = vocoder(latents).
  stitch golden  (seed, STITCH_GEOMETRY): window<i> bf16 [1, C, L_i] for the lengths stitch_lengths(seed), drawn
                 like the parity latents with window i, and audio f32 [1, 2, N] = the `audios` that upstream's
                 MiniMaxMusic3VocoderDecodeStep returns for latent_chunks = the windows (output_type "pt"), with
                 the pipeline's latent_hop_length 512 (the condition encoder's output hop).
Metadata (strings): geometry, seed, and the window lengths. INPUTS are fed to the oracle bit for bit; OUTPUTS are
what upstream's CPU bf16 kernels compute from them (compared by ULP statistics). Files are written by
safetensors_file.write, whose bytes depend only on the tensors and metadata.
"""
import types

import torch
from diffusers import MiniMaxMusic3Vocoder
from diffusers.modular_pipelines import PipelineState
from diffusers.modular_pipelines.minimax_music3.decoders import MiniMaxMusic3VocoderDecodeStep

import safetensors_file
import vocoder_geometries as geometries

INPUTS = ("latents", "window0", "window1", "window2")
OUTPUTS = ("waveform", "audio")


def load(folder):
    return MiniMaxMusic3Vocoder.from_pretrained(folder, torch_dtype=torch.bfloat16).eval()


def draw_latents(geometry, seed, window, channels, length):
    generator = torch.Generator(device="cpu").manual_seed(geometries.input_seed(geometry, seed, window))
    return torch.randn((1, channels, length), generator=generator, dtype=torch.float32).to(torch.bfloat16)


@torch.no_grad()
def write_parity(geometry, seed, folder, out_file):
    model = load(folder)
    length = geometries.parity_length(geometry, seed)
    latents = draw_latents(geometry, seed, 0, model.config.latent_channels, length)
    waveform = model(latents)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    safetensors_file.write(out_file, {"latents": latents, "waveform": waveform},
                           {"geometry": geometry, "seed": str(seed), "lengths": str(length)})
    return out_file


@torch.no_grad()
def write_stitch(seed, folder, out_file):
    model = load(folder)
    lengths = geometries.stitch_lengths(seed)
    windows = [draw_latents(geometries.STITCH_GEOMETRY, seed, i, model.config.latent_channels, n)
               for i, n in enumerate(lengths)]
    state = PipelineState()
    state.set("latent_chunks", windows)
    state.set("output_type", "pt")
    components = types.SimpleNamespace(vocoder=model, latent_hop_length=geometries.HOP)
    _, state = MiniMaxMusic3VocoderDecodeStep()(components, state)
    tensors = {f"window{i}": w for i, w in enumerate(windows)}
    tensors["audio"] = state.get("audios")
    out_file.parent.mkdir(parents=True, exist_ok=True)
    safetensors_file.write(out_file, tensors, {"geometry": geometries.STITCH_GEOMETRY, "seed": str(seed),
                                               "lengths": ",".join(map(str, lengths))})
    return out_file
