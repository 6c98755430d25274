"""Runs the real MiniMaxMusic3ModularPipeline, loaded from a pipeline folder, on one song and records a trace.

Usage: pipeline_trace.py CASE PIPELINE_DIR OUT_FILE   (CASE a name of pipeline_geometries.CASES)

What runs: ModularPipeline.from_pretrained(PIPELINE_DIR) and load_components(dtype=torch.bfloat16) (the documented
usage: every model cast to bf16, as the engine runs), then pipe(prompt, lyrics, audio_duration, generator,
num_inference_steps, output_type="pt") with one CPU torch.Generator seeded with sampling_seed(geometry, seed),
under reproducible_cpu's pins. Nothing of upstream's math is replaced; recording glue only:
  (a) the AR step's recorders of oracle_bridge/lm/lm_goldens.py (LM forward hooks, the sampler, depth codes and
      feedback wrappers, torch.multinomial's probabilities);
  (b) the window loop: a wrapper of denoise.randn_tensor (each window's noise), forward hooks on the condition
      encoder, the transformer (each call's latents, timestep and velocity; the unconditional call is the one with
      an all-zero condition) and the vocoder, and a wrapper of the scheduler's step (guided velocity in, sample out);
  (c) the Exp(1) draws: torch.multinomial(p, 1) is argmax(p / E), E = empty_like(p).exponential_(generator); a
      clone of the generator taken before the run replays one exponential_ per recorded multinomial, then one
      randn_tensor per window. Self-checks (exit 1): argmax(p / E) is every sampled id, each replayed noise equals
      the recorded one, the clone ends in the generator's state, and the audio is upstream's stitch of the recorded
      waveforms; a song of pipeline_geometries.EARLY_EOS ended on <|audio_end|> before its requested frames.

Trace tensors (P prompt length, I AR iterations, D iterations that ran the depth stage, F frames, H LM hidden, A audio
vocabulary, K = 16,385 sampled LM columns: column 0 is id 151670, column 1 + j is id 151675 + j; per window k: L_k
latents, C latent channels, Cc condition channels, N steps):
  text_ids I32 [2,P]  tokens I32 [I]  codes I32 [D,8]  lm_exp_draws_sliced F32 [I,K] (E at the sampled columns)
  depth_exp_draws F32 [D,7,A]  guided F32 [I,K] (what the LM sampler is given)  depth_guided F32 [D,7,A]
  lm_logits BF16 [I,2,K] (the sliced lm_head output of each iteration: the conditional row, then the CFG row; what
      the sampler's conditional top-50 prefilter ranks, for the gates' shared near-tie at its threshold)
  last_hidden BF16 [I,2,H]  frame_hiddens BF16 [F,8H]
  cond.k{k} BF16 [L_k,Cc] (condition encoder output, before the overlap splice)
  dit_cond.k{k} BF16 [L_k,Cc] (the condition the DiT is given: after the splice)
  noise.k{k} BF16 [C,L_k]  sigmas.k{k} F32 [N+1]
  step.k{k}.s{i}.{x, v_cond, v_uncond, v_guided, x_next} BF16 [C,L_k] (DiT input after the overlap blend, both
      branches, the guided velocity, the Euler step's output)   step.k{k}.s{i}.t BF16 [1]
  window{k} BF16 [C,L_k] (the window's final latents, as `music3 vocode --latents` reads them)
  waveform.k{k} BF16 [2,512 L_k] (vocoder output)   audio F32 [2,samples] (the pipeline's output)
plus string metadata: case, geometry, seed, sampling_seed, prompt, lyrics, audio_duration, steps, max_frames,
iterations, frames, eos, windows, chunk_starts and latent_lengths (JSON lists).
"""
import json
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "lm"))
sys.path.insert(0, str(HERE))
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TQDM_DISABLE"] = "1"

import pins  # noqa: E402
import reproducible_cpu  # noqa: E402

pins.require_pinned()
torch = reproducible_cpu.pin()

from diffusers import ModularPipeline  # noqa: E402
from diffusers.modular_pipelines.minimax_music3 import denoise, encoders  # noqa: E402

import lm_goldens  # noqa: E402
import pipeline_geometries  # noqa: E402
import safetensors_file  # noqa: E402

ALLOWED = torch.tensor(lm_goldens.ALLOWED)


class TraceSelfCheckError(RuntimeError):
    pass


def case_spec(name):
    for case in pipeline_geometries.CASES:
        if case[0] == name:
            return case
    raise KeyError(f"no pipeline case named {name!r}")


def load_pipeline(folder):
    pipe = ModularPipeline.from_pretrained(str(folder))
    pipe.load_components(dtype=torch.bfloat16)
    return pipe


class _WindowRecorder:
    """Hooks on the window loop's modules; one list per recorded quantity, in call order."""

    def __init__(self, pipe):
        self.noise, self.cond, self.calls, self.steps, self.sigmas, self.vocoder = [], [], [], [], [], []
        self.handles = [
            pipe.condition_encoder.register_forward_hook(
                lambda m, args, out: self.cond.append((args[0].clone(), out.clone()))),
            pipe.transformer.register_forward_hook(self._dit, with_kwargs=True),
            pipe.vocoder.register_forward_hook(lambda m, args, out: self.vocoder.append((args[0].clone(),
                                                                                          out.clone()))),
        ]
        self.scheduler = pipe.scheduler
        self.upstream_step = pipe.scheduler.step
        self.upstream_randn = denoise.randn_tensor
        pipe.scheduler.step = self._step
        denoise.randn_tensor = self._randn

    def _dit(self, module, args, kwargs, out):
        sample = out[0] if isinstance(out, tuple) else out.sample
        self.calls.append({"x": kwargs["hidden_states"].clone(), "t": kwargs["timestep"].clone(),
                           "c": kwargs["encoder_hidden_states"].clone(), "v": sample.clone()})

    def _step(self, model_output, timestep, sample, *args, **kwargs):
        if self.scheduler.step_index is None:
            self.sigmas.append(self.scheduler.sigmas.clone())
        out = self.upstream_step(model_output, timestep, sample, *args, **kwargs)
        self.steps.append({"v_guided": model_output.clone(), "x_next": out[0].clone()})
        return out

    def _randn(self, *args, **kwargs):
        noise = self.upstream_randn(*args, **kwargs)
        self.noise.append((noise.clone(), args, kwargs))
        return noise

    def close(self):
        for handle in self.handles:
            handle.remove()
        del self.scheduler.step
        denoise.randn_tensor = self.upstream_randn


def _replay(replay, ar, windows):
    """Replays every draw on the generator clone and checks it against what upstream drew."""
    draws = [torch.empty(1, p.shape[-1]).exponential_(generator=replay) for p in ar["probs"]]
    for index, (p, e) in enumerate(zip(ar["probs"], draws)):
        if int(torch.argmax(p / e)) != ar["picks"][index]:
            raise TraceSelfCheckError(f"sample {index}: argmax(p/E) differs from upstream's pick")
    for k, (noise, args, kwargs) in enumerate(windows.noise):
        again = windows.upstream_randn(*args, **dict(kwargs, generator=replay))
        if not torch.equal(again, noise):
            raise TraceSelfCheckError(f"window {k}: the replayed noise differs from the recorded one")
    return draws


def make_trace(case_name, folder):
    """Returns (tensors, metadata) of one song."""
    name, geometry, seed, duration, steps = case_spec(case_name)
    prompt, lyrics = pipeline_geometries.prompt_text(seed)
    pipe = load_pipeline(folder)
    generator = torch.Generator(device="cpu").manual_seed(pipeline_geometries.sampling_seed(geometry, seed))
    replay = torch.Generator(device="cpu")
    replay.set_state(generator.get_state())
    ar = {k: [] for k in ("lm_calls", "lm_logits", "sampler_inputs", "probs", "picks", "codes", "depth_hidden",
                          "feedback")}
    windows = _WindowRecorder(pipe)
    try:
        with torch.no_grad(), lm_goldens._recorders(pipe.language_model, ar):
            state = pipe(prompt=prompt, lyrics=lyrics, audio_duration=duration, generator=generator,
                         num_inference_steps=steps, output_type="pt")
    finally:
        windows.close()
    draws = _replay(replay, ar, windows)
    if not torch.equal(replay.get_state(), generator.get_state()):
        raise TraceSelfCheckError("the replayed draws did not consume the generator exactly")

    vocab = pipe.language_model.config.vocab_size
    lm_rows = [i for i, p in enumerate(ar["probs"]) if p.shape[-1] == vocab]
    depth_rows = [i for i, p in enumerate(ar["probs"]) if p.shape[-1] != vocab]
    iterations, depth_frames = len(lm_rows), len(ar["codes"])
    audio_vocab = pipe.rvq_depth_decoder.config.audio_vocab_size
    eos = ar["picks"][lm_rows[-1]] == encoders._AUDIO_END_TOKEN_ID
    text_ids = state.get("text_ids")
    frame_hiddens = state.get("frame_hiddens")[0]
    chunk_starts = list(state.get("chunk_starts"))
    latent_chunks = state.get("latent_chunks")
    audio = state.get("audios")[0]
    n_windows = len(latent_chunks)
    if len(windows.noise) != n_windows or len(windows.cond) != n_windows or len(windows.vocoder) != n_windows:
        raise TraceSelfCheckError("one noise draw, condition and vocoder call per window expected")
    if len(windows.calls) != 2 * steps * n_windows or len(windows.steps) != steps * n_windows:
        raise TraceSelfCheckError("two transformer calls and one Euler step per step and window expected")

    max_frames = min(int(duration * pipe.frame_rate), 9000)
    if name in pipeline_geometries.EARLY_EOS and not (eos and frame_hiddens.shape[0] < max_frames):
        raise TraceSelfCheckError(f"{name} is an early-EOS song but ran {frame_hiddens.shape[0]} of {max_frames} "
                                  f"frames (eos {eos})")

    tensors = {
        "text_ids": text_ids.to(torch.int32),
        "tokens": torch.tensor([ar["picks"][i] for i in lm_rows], dtype=torch.int32),
        "codes": torch.stack(ar["codes"]).to(torch.int32),
        "lm_exp_draws_sliced": torch.cat([draws[i][:, ALLOWED] for i in lm_rows]),
        "depth_exp_draws": torch.cat([draws[i] for i in depth_rows]).view(depth_frames, 7, audio_vocab),
        "guided": torch.cat([ar["sampler_inputs"][i][:, ALLOWED] for i in lm_rows]).float(),
        "lm_logits": torch.stack([logits.reshape(2, -1) for logits in ar["lm_logits"][:iterations]]),
        "depth_guided": torch.cat([ar["sampler_inputs"][i] for i in depth_rows]).float().view(depth_frames, 7,
                                                                                               audio_vocab),
        "last_hidden": torch.stack([hidden[:, -1] for _, hidden in ar["lm_calls"]][:iterations]),
        "frame_hiddens": frame_hiddens,
        "audio": audio.float(),
    }
    latent_lengths = []
    for k in range(n_windows):
        latents = latent_chunks[k][0]
        latent_lengths.append(latents.shape[-1])
        tensors[f"cond.k{k}"] = windows.cond[k][1][0]
        tensors[f"dit_cond.k{k}"] = windows.calls[2 * steps * k]["c"][0]
        tensors[f"noise.k{k}"] = windows.noise[k][0][0]
        tensors[f"sigmas.k{k}"] = windows.sigmas[k].float()
        for i in range(steps):
            cond_call, uncond_call = windows.calls[2 * (steps * k + i)], windows.calls[2 * (steps * k + i) + 1]
            if bool(cond_call["c"].abs().sum() == 0) or bool(uncond_call["c"].abs().sum() != 0):
                raise TraceSelfCheckError(f"window {k} step {i}: conditional call first, then the zero condition")
            step = windows.steps[steps * k + i]
            prefix = f"step.k{k}.s{i}"
            tensors[f"{prefix}.x"] = cond_call["x"][0]
            tensors[f"{prefix}.t"] = torch.empty(1, dtype=cond_call["t"].dtype).copy_(cond_call["t"].reshape(-1)[:1])
            tensors[f"{prefix}.v_cond"] = cond_call["v"][0]
            tensors[f"{prefix}.v_uncond"] = uncond_call["v"][0]
            tensors[f"{prefix}.v_guided"] = step["v_guided"][0]
            tensors[f"{prefix}.x_next"] = step["x_next"][0]
        if not torch.equal(windows.vocoder[k][0], latent_chunks[k]):
            raise TraceSelfCheckError(f"window {k}: the vocoder was not given the window's final latents")
        tensors[f"window{k}"] = latents
        tensors[f"waveform.k{k}"] = windows.vocoder[k][1][0]
    tensors = {name: t.detach().contiguous() for name, t in tensors.items()}
    metadata = {
        "case": name, "geometry": geometry, "seed": str(seed),
        "sampling_seed": str(pipeline_geometries.sampling_seed(geometry, seed)),
        "prompt": prompt, "lyrics": lyrics, "audio_duration": repr(duration), "steps": str(steps),
        "max_frames": str(max_frames), "iterations": str(iterations),
        "frames": str(frame_hiddens.shape[0]), "eos": str(int(eos)), "windows": str(n_windows),
        "chunk_starts": json.dumps(chunk_starts), "latent_lengths": json.dumps(latent_lengths),
    }
    return tensors, metadata


def write_trace(case_name, folder, out_file):
    tensors, metadata = make_trace(case_name, folder)
    out_file = pathlib.Path(out_file)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    safetensors_file.write(out_file, tensors, metadata)
    return out_file, metadata


def main(argv):
    names = [case[0] for case in pipeline_geometries.CASES]
    if len(argv) != 4 or argv[1] not in names:
        print(f"usage: {argv[0]} CASE PIPELINE_DIR OUT_FILE  (CASE one of {', '.join(names)})", file=sys.stderr)
        return 64
    try:
        path, metadata = write_trace(argv[1], argv[2], argv[3])
    except TraceSelfCheckError as error:
        print(f"pipeline_trace: {argv[1]}: self-check failed: {error}", file=sys.stderr)
        return 1
    print(path, metadata)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
