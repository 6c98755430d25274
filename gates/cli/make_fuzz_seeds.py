"""Writes the first seeds of gates/cli/fuzz_corpus/: one small valid file per reader of cli_fuzz.cpp, prefixed with
the byte that selects the reader. Run once (.venv/bin/python gates/cli/make_fuzz_seeds.py); inputs the fuzzer
finds are added beside them by hand (a libFuzzer artifact is already in this format)."""
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).parent / "fuzz_corpus"


def safetensors_bytes(tensors, metadata=None):
    """tensors: name -> (dtype name, shape, raw bytes)."""
    import json
    import struct
    header, offset, blobs = {}, 0, []
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def bf16(shape, value=0.5):
    a = np.full(shape, value, np.float32).view(np.uint32) >> 16
    return ("BF16", shape, a.astype(np.uint16).tobytes())


def f32(shape, value=1.0):
    return ("F32", shape, np.full(shape, value, np.float32).tobytes())


def i32(shape, value=1):
    return ("I32", shape, np.full(shape, value, np.int32).tobytes())


def write(name, selector, tensors, metadata=None):
    (OUT / name).write_bytes(bytes([selector]) + safetensors_bytes(tensors, metadata))


def main():
    OUT.mkdir(exist_ok=True)
    write("depth_inputs", 0, {"last_hidden": bf16((2, 2, 64)), "c0_embedding": bf16((2, 64))})
    write("depth_draws", 1, {"exp_draws": f32((2, 7, 16))})
    write("acoustic_frames", 2, {"frame_hiddens": bf16((1, 3, 16))})
    write("acoustic_noise", 3, {"window0.noise": bf16((8, 4)), "window1.noise": bf16((1, 8, 2))})
    write("vocode_latents", 4, {"window0": bf16((1, 8, 4)), "window1": f32((8, 3))})
    write("ar_teacher", 5, {"text_ids": i32((2, 3)), "tokens": i32((2,)), "codes": i32((2, 8)),
                            "lm_exp_draws": f32((2, 4)), "depth_exp_draws": f32((2, 7, 4))},
          {"audio_duration": "1.5"})
    K, I, D, A, C, L, F, W, steps = 16385, 1, 1, 4, 8, 2, 2, 16, 1
    trace = {"text_ids": i32((2, 3)), "tokens": i32((I,)), "codes": i32((D, 8)), "lm_exp_draws_sliced": f32((I, K)),
             "depth_exp_draws": f32((D, 7, A)), "guided": f32((I, K), 0.0), "depth_guided": f32((D, 7, A), 0.0),
             "frame_hiddens": bf16((F, W)), "cond.k0": bf16((L, 4)), "noise.k0": bf16((C, L)), "sigmas.k0": f32((steps + 1,)),
             "window0": bf16((C, L)), "waveform.k0": bf16((2, 6)), "audio": f32((2, 6))}
    for what in ("x", "v_cond", "v_uncond", "v_guided", "x_next"):
        trace[f"step.k0.s0.{what}"] = bf16((C, L))
    write("pipeline_trace", 6, trace,
          {"case": "seed", "geometry": "tiny", "prompt": "pop", "lyrics": "la", "audio_duration": "0.08", "steps": "1",
           "max_frames": "2", "iterations": "1", "frames": "2", "eos": "0", "windows": "1", "chunk_starts": "[0]",
           "latent_lengths": "[2]"})
    (OUT / "lyrics_file").write_bytes(bytes([7]) + "[verse]\nla la la\n".encode())


if __name__ == "__main__":
    main()
