"""Runs upstream's own `MiniMaxMusic3AutoregressiveStep` (the real pipeline block: Qwen3 prefill of both rows, the
LM sampler, the depth stage, the feedback embedding, the stop rules) on a checkpoint and records one golden file.

Usage: lm_goldens.py GEOMETRY SEED CHECKPOINT_ROOT OUT_FILE
  CHECKPOINT_ROOT holds language_model/ and rvq_depth_decoder/ as written by lm_checkpoint.py.

Golden tensors (P = prompt length, I = AR iterations run, D = iterations that ran the depth stage (I, or I - 1
when the last one sampled <|audio_end|>), F = emitted frames, H = hidden, V = LM vocabulary, A = audio vocabulary,
K = 16,385 allowed LM ids: column 0 is id 151670, column 1 + j is id 151675 + j):
  inputs:  text_ids i32 [2,P]   lm_exp_draws f32 [I,V] (indexed by the full-vocabulary id)
           depth_exp_draws f32 [D,7,A]
  outputs: prefill_hidden bf16 [2,P,H] (final-normed, every position)   last_hidden bf16 [I,2,H] (the LM hidden
           that predicts iteration i)   feedback bf16 [D',2,H] (the inputs_embeds of each decode step, D' = decode
           steps run)   lm_logits bf16 [I,2,K] (lm_head output at the allowed ids)   guided f32 [I,K] (what the
           sampler is given)   lm_probs f32 [I,K] (what torch.multinomial is given)   tokens i32 [I]
           codes i32 [D,8]   depth_hidden bf16 [D,7H]   depth_guided f32 [D,7,A] (what the depth sampler is
           given)   frame_hiddens bf16 [F,8H]
plus string metadata: geometry, seed, max_frames, audio_duration, iterations, frames, eos ("1" when the run ended
on <|audio_end|>), the sampling and prompt seeds, the upstream constants.

Glue around upstream (everything else is upstream's code on upstream's modules):
  (a) components: a namespace holding the two loaded models and the pipeline's frame_rate (25.0); the state is a
      diffusers PipelineState holding text_ids, audio_duration and the generator;
  (b) forward hooks on language_model.model (inputs_embeds and last_hidden_state) and on lm_head (logits);
  (c) encoders._sample_top_k, _generate_depth_codes and _embed_audio_frame are wrapped to record their inputs and
      results, and torch.multinomial, while the sampler runs, to record its probabilities;
  (d) the Exp(1) draws: torch.multinomial(p, 1) is argmax(p / E) with E = empty_like(p).exponential_(generator).
      A clone of the generator taken before the block replays one exponential_ per recorded multinomial, in order.
      Self-checks (exit 1): the clone ends in the generator's state, and argmax(p / E) is every sampled id.
The prompt: row 0 is <|im_start|><|caption_start|> n1 random text ids <|caption_end|><|lyrics_start|> n2 random text
ids <|lyrics_end|><|im_end|><|audio_start|> (ids from a generator seeded with prompt_seed); row 1 is upstream's CFG
copy (positions 1..P-3 set to 151654). Runs on the CPU under reproducible_cpu's settings.
"""
import contextlib
import pathlib
import sys
import types

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import pins  # noqa: E402
import reproducible_cpu  # noqa: E402

pins.require_pinned()
reproducible_cpu.pin()

import torch  # noqa: E402
from diffusers import MiniMaxMusic3RVQDepthDecoder  # noqa: E402
from diffusers.modular_pipelines.minimax_music3 import encoders  # noqa: E402
from diffusers.modular_pipelines.modular_pipeline import PipelineState  # noqa: E402
from transformers import Qwen3ForCausalLM  # noqa: E402

import lm_geometries  # noqa: E402
import safetensors_file  # noqa: E402

INPUTS = ("text_ids", "lm_exp_draws", "depth_exp_draws")
OUTPUTS = ("prefill_hidden", "last_hidden", "feedback", "lm_logits", "guided", "lm_probs", "tokens", "codes",
           "depth_hidden", "depth_guided", "frame_hiddens")
TEXT_ID_LIMIT = 151643
ALLOWED = [encoders._AUDIO_END_TOKEN_ID] + list(range(encoders._AUDIO_CODE_OFFSET,
                                                      encoders._AUDIO_CODE_OFFSET + encoders._SEMANTIC_VOCAB_SIZE))


class GoldenSelfCheckError(RuntimeError):
    pass


def prompt_ids(geometry, seed):
    """[2, P] int64: the conditional prompt and upstream's CFG copy."""
    gen = torch.Generator(device="cpu").manual_seed(lm_geometries.prompt_seed(geometry, seed))
    n1, n2 = 3 + seed % 4, 5 + (2 * seed) % 7
    text = lambda n: torch.randint(0, TEXT_ID_LIMIT, (n,), generator=gen).tolist()  # noqa: E731
    row = [151644, 151671] + text(n1) + [151672, 151673] + text(n2) + [151674, 151645, 151669]
    ids = torch.tensor([row], dtype=torch.long)
    cfg = ids.clone()
    cfg[:, 1:-2] = encoders._AUDIO_CFG_TOKEN_ID
    return torch.cat((ids, cfg), dim=0)


@contextlib.contextmanager
def _recorders(lm, record):
    allowed = torch.tensor(ALLOWED)
    handles = [
        lm.model.register_forward_hook(
            lambda m, args, kwargs, out: record["lm_calls"].append(
                (kwargs["inputs_embeds"].clone(), out.last_hidden_state.clone())), with_kwargs=True),
        lm.lm_head.register_forward_hook(lambda m, i, out: record["lm_logits"].append(out[:, allowed].clone())),
    ]
    saved = {name: getattr(encoders, name) for name in ("_sample_top_k", "_generate_depth_codes",
                                                        "_embed_audio_frame")}
    upstream_multinomial = torch.multinomial

    def recording_multinomial(probs, *args, **kwargs):
        record["probs"].append(probs.clone())
        return upstream_multinomial(probs, *args, **kwargs)

    def sample_top_k(logits, generator):
        record["sampler_inputs"].append(logits.clone())
        torch.multinomial = recording_multinomial
        try:
            picked = saved["_sample_top_k"](logits, generator)
        finally:
            torch.multinomial = upstream_multinomial
        record["picks"].append(int(picked.reshape(-1)[0]))
        return picked

    def generate_depth_codes(*args):
        codes, hidden = saved["_generate_depth_codes"](*args)
        record["codes"].append(codes[0].clone())
        record["depth_hidden"].append(hidden[0].clone())
        return codes, hidden

    def embed_audio_frame(*args):
        out = saved["_embed_audio_frame"](*args)
        record["feedback"].append(out[:, 0].clone())
        return out

    encoders._sample_top_k = sample_top_k
    encoders._generate_depth_codes = generate_depth_codes
    encoders._embed_audio_frame = embed_audio_frame
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(encoders, name, fn)
        for handle in handles:
            handle.remove()


def make_golden(geometry, seed, checkpoint_root):
    """Returns (tensors, metadata) of the golden for (geometry, seed)."""
    root = pathlib.Path(checkpoint_root)
    lm = Qwen3ForCausalLM.from_pretrained(root / "language_model", dtype=torch.bfloat16).eval()
    depth = MiniMaxMusic3RVQDepthDecoder.from_pretrained(root / "rvq_depth_decoder",
                                                         torch_dtype=torch.bfloat16).eval()
    spec = lm_geometries.GEOMETRIES[geometry]
    max_frames = spec["max_frames"]
    duration = max_frames / lm_geometries.FRAME_RATE
    if int(duration * lm_geometries.FRAME_RATE) != max_frames:
        raise GoldenSelfCheckError(f"audio_duration {duration} does not give {max_frames} frames")
    text_ids = prompt_ids(geometry, seed)
    generator = torch.Generator(device="cpu").manual_seed(lm_geometries.sampling_seed(geometry, seed))
    replay = torch.Generator(device="cpu")
    replay.set_state(generator.get_state())
    components = types.SimpleNamespace(language_model=lm, rvq_depth_decoder=depth,
                                       frame_rate=lm_geometries.FRAME_RATE)
    state = PipelineState()
    state.set("text_ids", text_ids)
    state.set("audio_duration", duration)
    state.set("generator", generator)
    record = {k: [] for k in ("lm_calls", "lm_logits", "sampler_inputs", "probs", "picks", "codes",
                              "depth_hidden", "feedback")}
    with torch.no_grad(), _recorders(lm, record):
        _, state = encoders.MiniMaxMusic3AutoregressiveStep()(components, state)
    frame_hiddens = state.get("frame_hiddens")[0]
    vocab, audio_vocab = lm.config.vocab_size, depth.config.audio_vocab_size
    draws = [torch.empty(1, p.shape[-1]).exponential_(generator=replay) for p in record["probs"]]
    if not torch.equal(replay.get_state(), generator.get_state()):
        raise GoldenSelfCheckError("the replayed Exp(1) draws did not consume the generator exactly")
    for index, (p, e) in enumerate(zip(record["probs"], draws)):
        if int(torch.argmax(p / e)) != record["picks"][index]:
            raise GoldenSelfCheckError(f"sample {index}: argmax(p/E) differs from upstream's pick")
    steps = depth.config.num_codebooks - 1
    lm_rows = [i for i, p in enumerate(record["probs"]) if p.shape[-1] == vocab]
    iterations, depth_frames = len(lm_rows), len(record["codes"])
    eos = record["picks"][lm_rows[-1]] == encoders._AUDIO_END_TOKEN_ID
    if depth_frames != iterations - int(eos) or len(record["probs"]) != iterations + steps * depth_frames:
        raise GoldenSelfCheckError("sampler calls do not match one LM sample and 7 depth samples per iteration")
    depth_rows = [i for i, p in enumerate(record["probs"]) if p.shape[-1] == audio_vocab]
    depth_draws = [draws[i] for i in depth_rows]
    allowed = torch.tensor(ALLOWED)
    prefill_embeds, prefill_hidden = record["lm_calls"][0]
    if not torch.equal(prefill_embeds, lm.model.embed_tokens(text_ids)):
        raise GoldenSelfCheckError("the prefill's inputs_embeds are not embed_tokens(text_ids)")
    feedback = [embeds[:, 0] for embeds, _ in record["lm_calls"][1:]]
    if len(feedback) != len(record["feedback"]) or any(
            not torch.equal(a, b) for a, b in zip(feedback, record["feedback"])):
        raise GoldenSelfCheckError("decode-step inputs differ from _embed_audio_frame's results")
    last_hidden = [hidden[:, -1] for _, hidden in record["lm_calls"]][:iterations]
    tensors = {
        "text_ids": text_ids.to(torch.int32),
        "lm_exp_draws": torch.cat([draws[i] for i in lm_rows]),
        "depth_exp_draws": torch.cat(depth_draws).view(depth_frames, steps, audio_vocab),
        "prefill_hidden": prefill_hidden,
        "last_hidden": torch.stack(last_hidden),
        "feedback": torch.stack(feedback) if feedback else torch.zeros(0, 2, lm.config.hidden_size,
                                                                        dtype=torch.bfloat16),
        "lm_logits": torch.stack(record["lm_logits"]),
        "guided": torch.cat([record["sampler_inputs"][i][:, allowed] for i in lm_rows]),
        "lm_probs": torch.cat([record["probs"][i][:, allowed] for i in lm_rows]),
        "tokens": torch.tensor([record["picks"][i] for i in lm_rows], dtype=torch.int32),
        "codes": torch.stack(record["codes"]).to(torch.int32),
        "depth_hidden": torch.stack(record["depth_hidden"]),
        "depth_guided": torch.cat([record["sampler_inputs"][i] for i in depth_rows]).view(depth_frames, steps,
                                                                                         audio_vocab),
        "frame_hiddens": frame_hiddens,
    }
    tensors = {name: t.contiguous() for name, t in tensors.items()}
    metadata = {
        "geometry": geometry, "seed": str(seed), "max_frames": str(max_frames), "audio_duration": repr(duration),
        "iterations": str(iterations), "frames": str(frame_hiddens.shape[0]), "eos": str(int(eos)),
        "sampling_seed": str(lm_geometries.sampling_seed(geometry, seed)),
        "prompt_seed": str(lm_geometries.prompt_seed(geometry, seed)),
        "cfg_scale": repr(encoders._AR_CFG_SCALE), "cfg_top_k": str(encoders._AR_CFG_TOP_K),
        "top_k": str(encoders._AR_SAMPLING_TOP_K),
    }
    return tensors, metadata


def write_golden(geometry, seed, checkpoint_root, out_file):
    tensors, metadata = make_golden(geometry, seed, checkpoint_root)
    out_file = pathlib.Path(out_file)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    safetensors_file.write(out_file, tensors, metadata)
    return out_file, metadata


def main(argv):
    if len(argv) != 5 or argv[1] not in lm_geometries.GEOMETRIES or not argv[2].isdigit():
        print(f"usage: {argv[0]} GEOMETRY SEED CHECKPOINT_ROOT OUT_FILE", file=sys.stderr)
        return 64
    try:
        path, metadata = write_golden(argv[1], int(argv[2]), argv[3], argv[4])
    except GoldenSelfCheckError as error:
        print(f"lm_goldens: {argv[1]} seed {argv[2]}: self-check failed: {error}", file=sys.stderr)
        return 1
    print(path, metadata)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
