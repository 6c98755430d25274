"""Goldens for the tokenizer gates, computed by the pinned upstream code.

Contract:
- `token_goldens(tok, texts)`: per text, the ids `tok(text)["input_ids"]` (what the pipeline calls), the HF
  tokenizers backend's `decode(ids)` (special tokens kept) and Python's NFC of the text.
- `rule_goldens(tokenizers, pairs)`: per (prompt, lyrics) pair, diffusers' `_clean_caption(prompt)` and
  `_normalize_lyrics(lyrics)` (or null where upstream refuses the pair first), and per tokenizer the two rows of
  `text_ids` written by the real `MiniMaxMusic3TokenizeStep`, or the refusal it raised, named `empty_prompt`,
  `empty_lyrics` or `prompt_too_long`.
- `python_text_goldens()`: every code point for which `str.isspace()` holds and every `chr(cp).lower()` that
  differs from `chr(cp)` (CPython's own tables), for the C++ Python-semantics helpers.
"""
import sys
import types
import unicodedata

import torch
from diffusers.modular_pipelines import PipelineState
from diffusers.modular_pipelines.minimax_music3 import encoders
from diffusers.modular_pipelines.minimax_music3.encoders import MiniMaxMusic3TokenizeStep


def token_goldens(tok, texts):
    ids = tok(texts)["input_ids"]
    return [{"text": t, "ids": i, "decode": tok._tokenizer.decode(i, skip_special_tokens=False),
             "nfc": unicodedata.normalize("NFC", t)} for t, i in zip(texts, ids)]


def _refusal(message):
    if "`prompt`" in message:
        return "empty_prompt"
    if "`lyrics`" in message:
        return "empty_lyrics"
    if "maximum is" in message:
        return "prompt_too_long"
    raise SystemExit(f"goldens: unexpected refusal from MiniMaxMusic3TokenizeStep: {message}")


def _tokenize_step(step, tok, prompt, lyrics):
    components = types.SimpleNamespace(tokenizer=tok, _execution_device=torch.device("cpu"))
    state = PipelineState()
    state.set("prompt", prompt)
    state.set("lyrics", lyrics)
    try:
        _, state = step(components, state)
    except ValueError as e:
        return {"error": _refusal(str(e))}
    rows = state.get("text_ids").tolist()
    return {"ids": rows[0], "uncond": rows[1]}


def rule_goldens(tokenizers, pairs):
    step = MiniMaxMusic3TokenizeStep()
    cases = []
    for prompt, lyrics in pairs:
        case = {"prompt": prompt, "lyrics": lyrics}
        if prompt.strip() and lyrics.strip():
            case["clean"] = encoders._clean_caption(prompt)
            case["norm"] = encoders._normalize_lyrics(lyrics)
        for name, tok in tokenizers.items():
            case[name] = _tokenize_step(step, tok, prompt, lyrics)
        cases.append(case)
    return cases


def python_text_goldens():
    space = [cp for cp in range(sys.maxunicode + 1) if chr(cp).isspace()]
    lower = {str(cp): chr(cp).lower() for cp in range(sys.maxunicode + 1)
             if not 0xD800 <= cp < 0xE000 and chr(cp).lower() != chr(cp)}
    return {"isspace": space, "lower": lower}
