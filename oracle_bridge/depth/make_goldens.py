"""Runs upstream's own `_generate_depth_codes` on a checkpoint and records one golden file.

Usage: make_goldens.py GEOMETRY SEED CHECKPOINT_ROOT OUT_FILE
  CHECKPOINT_ROOT holds rvq_depth_decoder/ as written by make_checkpoint.py for the same GEOMETRY and SEED.

Golden tensors (F = frames, S = num_codebooks - 1 = 7 depth steps, H = hidden, V = audio vocab):
  last_hidden bf16 [F,2,H]   c0_embedding bf16 [F,H]    exp_draws f32 [F,S,V]   final_hidden bf16 [F,S,2,H]
  head_logits bf16 [F,S,2,V] guided_logits f32 [F,S,V]  codes i32 [F,S]         hidden bf16 [F,S,H]
  sample_probs f32 [F,S,V] (the probabilities upstream's sampler hands to torch.multinomial: top-k kept, renormalised)
plus string metadata: geometry, seed, frames, cfg_scale and top_k (read from the upstream module), the input
and sampling seeds. Rows are [conditional, unconditional]; `hidden` is upstream's returned conditional row.

Glue around upstream (everything else, codes included, is upstream's code on upstream's module):
  (a) the language model is out of scope: a shim whose `.model.embed_tokens(ids)` returns the frame's
      c0_embedding for each of the 2 ids (the semantic code is 0 for both rows; its value only selects that row);
  (b) forward hooks on the depth decoder (record output[:, -1], both rows) and on each audio_heads[i] (record
      its bf16 logits [2,V]);
  (c) `encoders._sample_top_k` is wrapped to record its input, the guided f32 logits [1,V], and, while it runs,
      `torch.multinomial` to record the probabilities it is given [1,V];
  (d) the Exp(1) draws: torch.multinomial(p, 1) is argmax(p / E) with E = empty_like(p).exponential_(gen).
      A clone of the sampling generator taken before the frame replays
      `torch.empty(1, V).exponential_(generator=clone)` once per step. Self-checks (exit 1 on failure): the
      clone ends in the sampler's state (same number of draws), and argmax(p / E), with upstream's recorded p,
      equals every code upstream sampled.
Inputs per frame: last_hidden rows and c0_embedding ~ N(0, 1) in f32 from a generator seeded with
geometries.input_seed(seed, frame), cast to bf16. One sampling generator, seeded with
geometries.sampling_seed(seed), runs through all frames. Everything runs on the CPU under reproducible_cpu's
settings (one thread, kernels that do not depend on the instruction set). The file is written by
safetensors_file.write, whose bytes depend only on the tensors and metadata.
INPUTS are what the oracle is fed (bit-identical on every machine); OUTPUTS are what upstream computes from them
through CPU bf16 kernels (compared by the ULP statistics of gate_depth_oracle_regen, never byte for byte).
"""
import contextlib
import pathlib
import sys
import types

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # the shared bridge modules
import pins  # noqa: E402
import reproducible_cpu

pins.require_pinned()
reproducible_cpu.pin()

import torch  # noqa: E402
from diffusers import MiniMaxMusic3RVQDepthDecoder  # noqa: E402
from diffusers.modular_pipelines.minimax_music3 import encoders  # noqa: E402
from diffusers.utils import logging as diffusers_logging  # noqa: E402

import geometries  # noqa: E402
import safetensors_file  # noqa: E402
from make_checkpoint import COMPONENT  # noqa: E402

SEMANTIC_CODE = 0
INPUTS = ("last_hidden", "c0_embedding", "exp_draws")
OUTPUTS = ("final_hidden", "head_logits", "guided_logits", "codes", "hidden", "sample_probs")


class GoldenSelfCheckError(RuntimeError):
    pass


def _language_model_shim(c0_embedding):
    """Stands in for Qwen3ForCausalLM: embed_tokens(ids [2]) -> c0_embedding repeated per id, [2, H]."""
    def embed_tokens(ids):
        if ids.shape != (2,):
            raise GoldenSelfCheckError(f"embed_tokens shim expects ids of shape [2], got {list(ids.shape)}")
        return c0_embedding.unsqueeze(0).expand(2, -1)
    return types.SimpleNamespace(model=types.SimpleNamespace(embed_tokens=embed_tokens))


@contextlib.contextmanager
def _recorders(model, record):
    """Hooks (b) and the sampler wrapper (c); appends to record's lists in call order."""
    handles = [model.register_forward_hook(lambda m, i, out: record["final_hidden"].append(out[:, -1].clone()))]
    for index, head in enumerate(model.audio_heads):
        handles.append(head.register_forward_hook(
            lambda m, i, out, index=index: record["head_logits"].append((index, out.clone()))))
    upstream_sample_top_k = encoders._sample_top_k

    upstream_multinomial = torch.multinomial

    def recording_multinomial(probs, *args, **kwargs):
        record["sample_probs"].append(probs.clone())
        return upstream_multinomial(probs, *args, **kwargs)

    def recording_sample_top_k(logits, generator):
        record["guided_logits"].append(logits.clone())
        torch.multinomial = recording_multinomial
        try:
            return upstream_sample_top_k(logits, generator)
        finally:
            torch.multinomial = upstream_multinomial

    encoders._sample_top_k = recording_sample_top_k
    try:
        yield
    finally:
        encoders._sample_top_k = upstream_sample_top_k
        for handle in handles:
            handle.remove()


def _run_frame(model, last_hidden, c0_embedding, sampler, steps, vocab):
    """One upstream frame; returns that frame's golden tensors (without the frame axis)."""
    record = {"final_hidden": [], "head_logits": [], "guided_logits": [], "sample_probs": []}
    replay = torch.Generator(device="cpu")
    replay.set_state(sampler.get_state())
    semantic = torch.full((2,), SEMANTIC_CODE, dtype=torch.long)
    with torch.no_grad(), _recorders(model, record):
        codes, hidden = encoders._generate_depth_codes(
            _language_model_shim(c0_embedding), model, last_hidden, semantic, sampler)
    exp_draws = torch.cat([torch.empty(1, vocab).exponential_(generator=replay) for _ in range(steps)])
    if not torch.equal(replay.get_state(), sampler.get_state()):
        raise GoldenSelfCheckError("the replayed Exp(1) draws did not consume the sampler's generator exactly")
    if [index for index, _ in record["head_logits"]] != list(range(steps)):
        raise GoldenSelfCheckError(f"audio heads ran out of order: {[i for i, _ in record['head_logits']]}")
    if any(len(record[name]) != steps for name in ("final_hidden", "guided_logits", "sample_probs")):
        raise GoldenSelfCheckError("expected one decoder call and one sample per depth step")
    sampled = codes[0, 1:].to(torch.int32)
    guided = torch.cat(record["guided_logits"])
    sample_probs = torch.cat(record["sample_probs"])
    for step in range(steps):
        pick = int(torch.argmax(sample_probs[step:step + 1] / exp_draws[step:step + 1]))
        if pick != int(sampled[step]):
            raise GoldenSelfCheckError(f"step {step}: argmax(p/E) = {pick}, upstream sampled {int(sampled[step])}")
    final_hidden = torch.stack(record["final_hidden"])
    hidden = hidden.view(steps, -1)
    if not torch.equal(hidden, final_hidden[:, 0]):
        raise GoldenSelfCheckError("upstream's returned hidden differs from the hooked conditional rows")
    return {
        "last_hidden": last_hidden, "c0_embedding": c0_embedding, "exp_draws": exp_draws,
        "final_hidden": final_hidden, "head_logits": torch.stack([out for _, out in record["head_logits"]]),
        "guided_logits": guided, "codes": sampled, "hidden": hidden, "sample_probs": sample_probs,
    }


def make_golden(geometry, seed, checkpoint_root):
    """Returns (tensors, metadata) of the golden for (geometry, seed) from the checkpoint under checkpoint_root."""
    model = MiniMaxMusic3RVQDepthDecoder.from_pretrained(
        pathlib.Path(checkpoint_root) / COMPONENT, torch_dtype=torch.bfloat16).eval()
    hidden_size, vocab = model.config.hidden_size, model.config.audio_vocab_size
    steps = model.config.num_codebooks - 1
    frames = geometries.GEOMETRIES[geometry]["frames"]
    sampler = torch.Generator(device="cpu").manual_seed(geometries.sampling_seed(seed))
    per_frame = []
    for frame in range(frames):
        inputs = torch.Generator(device="cpu").manual_seed(geometries.input_seed(seed, frame))
        last_hidden = torch.randn(2, hidden_size, generator=inputs).to(torch.bfloat16)
        c0_embedding = torch.randn(hidden_size, generator=inputs).to(torch.bfloat16)
        per_frame.append(_run_frame(model, last_hidden, c0_embedding, sampler, steps, vocab))
    tensors = {name: torch.stack([f[name] for f in per_frame]).contiguous() for name in per_frame[0]}
    metadata = {
        "geometry": geometry, "seed": str(seed), "frames": str(frames),
        "cfg_scale": repr(encoders._AR_CFG_SCALE), "top_k": str(encoders._AR_SAMPLING_TOP_K),
        "semantic_code": str(SEMANTIC_CODE),
        "input_seeds": ",".join(str(geometries.input_seed(seed, f)) for f in range(frames)),
        "sampling_seed": str(geometries.sampling_seed(seed)),
    }
    return tensors, metadata


def write_golden(geometry, seed, checkpoint_root, out_file):
    tensors, metadata = make_golden(geometry, seed, checkpoint_root)
    out_file = pathlib.Path(out_file)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    safetensors_file.write(out_file, tensors, metadata)
    return out_file


def main(argv):
    if len(argv) != 5 or argv[1] not in geometries.GEOMETRIES or not argv[2].isdigit():
        print(f"usage: {argv[0]} GEOMETRY SEED CHECKPOINT_ROOT OUT_FILE", file=sys.stderr)
        return 64
    diffusers_logging.set_verbosity_error()
    try:
        print(write_golden(argv[1], int(argv[2]), argv[3], argv[4]))
    except GoldenSelfCheckError as error:
        print(f"make_goldens: {argv[1]} seed {argv[2]}: self-check failed: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
