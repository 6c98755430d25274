"""Builds the two test tokenizers with the pinned upstream code and saves them in the diffusers layout.

Contract: `build_tiny(out)` and `build_qwen(tiktoken_path, out)` write `out/tokenizer/tokenizer.json` and
`tokenizer_config.json` with `Qwen2Tokenizer.save_pretrained`, then reload the folder with
`Qwen2Tokenizer.from_pretrained` (what the pipeline does) and check that every added token has its checkpoint id;
they return the reloaded tokenizer.
- tiny: a byte-level BPE trained by `tokenizers.BpeTrainer` (Qwen2 pre-tokenizer, the 256 byte symbols as the
  initial alphabet) on TRAINING_TEXT, plus DIGIT_MERGES (merges that Qwen2's one-digit \\p{N} rule must leave
  unused: they make a tokenizer that groups digits visible in the ids), padded with unreachable `<|tiny_unused_N|>` entries up to id 151642, so the
  added tokens land on 151643..151674. Deterministic: same bytes on every run.
- qwen: the Qwen base vocabulary (dashscope==2.0.2's `qwen.tiktoken`, 151643 base64 token/rank lines, sha256
  QWEN_TIKTOKEN_SHA256) converted to vocab + merges: one merge per multi-byte token, the last merge rank-BPE makes
  on it using lower ranks only (151387 merges).
"""
import base64
import hashlib
import json
import pathlib

from tokenizers import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers
from transformers import Qwen2Tokenizer
from transformers.models.qwen2.tokenization_qwen2 import PRETOKENIZE_REGEX

from specials import BASE_VOCAB, SPECIALS

QWEN_TIKTOKEN_SHA256 = "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186"

TRAINING_TEXT = [
    "a bright synth pop song with warm female vocals and a driving beat",
    "[verse]\nhello world, we're singing all night long\n[chorus]\nsing with me, don't let go",
    "melancholic piano ballad, 72 bpm, minor key, soft strings; it's raining again",
    "Café au lait, naïve résumé, über straße, São Paulo, Łódź, ångström",
    "你好世界，我们一起唱歌。音乐让我们快乐。",
    "안녕하세요 음악을 사랑해요 노래를 불러요",
    "مرحبا بالعالم، نحن نحب الموسيقى",
    "नमस्ते दुनिया, संगीत हमें खुश करता है",
    "Привет, мир! Музыка — это жизнь.",
    "# Title\n- item one\n* item two\n**bold** and *italic* text\n---\n",
    "numbers 0123456789 and 2024-06-01 at 12:30, 3.14159",
    "emoji 🎵🎶🎸 👩‍👩‍👧 ❤️ 🇯🇵",
]


DIGIT_MERGES = [("1", "2"), ("2", "0"), ("0", "0"), ("9", "9"), ("1", "9")]


def byte_level(data: bytes) -> str:
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    assert len(alphabet) == 256
    table = {}
    n = 0
    for b in range(256):
        if 33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return "".join(table[b] for b in data)


def _wrap_and_save(vocab, merges, out):
    tok = Qwen2Tokenizer(vocab=vocab, merges=merges)
    for content, special in SPECIALS:
        if content != "<|endoftext|>":
            tok.add_tokens([AddedToken(content, special=special, normalized=False)])
    folder = pathlib.Path(out) / "tokenizer"
    folder.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(str(folder))
    reloaded = Qwen2Tokenizer.from_pretrained(str(folder))
    for offset, (content, _) in enumerate(SPECIALS):
        got = reloaded.convert_tokens_to_ids(content)
        if got != BASE_VOCAB + offset:
            raise SystemExit(f"build_tokenizers: {content} reloads as id {got}, expected {BASE_VOCAB + offset}")
    return reloaded


def build_tiny(out):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    trainer = trainers.BpeTrainer(vocab_size=1200, min_frequency=1, show_progress=False, special_tokens=[],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(TRAINING_TEXT * 4, trainer=trainer)
    model = json.loads(tok.to_str())["model"]
    vocab = dict(model["vocab"])
    merges = [tuple(m) for m in model["merges"]]
    for a, b in DIGIT_MERGES:
        vocab[a + b] = len(vocab)
        merges.append((a, b))
    for i in range(len(vocab), BASE_VOCAB):
        vocab[f"<|tiny_unused_{i}|>"] = i
    return _wrap_and_save(vocab, merges, out)


def _final_merge(ranks, token, max_rank):
    parts = [bytes([b]) for b in token]
    while True:
        best = None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < max_rank and (best is None or rank < best[1]):
                best = (i, rank)
        if best is None:
            return parts
        i = best[0]
        parts = parts[:i] + [parts[i] + parts[i + 1]] + parts[i + 2:]


def build_qwen(tiktoken_path, out):
    data = pathlib.Path(tiktoken_path).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != QWEN_TIKTOKEN_SHA256:
        raise SystemExit(f"build_tokenizers: {tiktoken_path} has sha256 {digest}, expected {QWEN_TIKTOKEN_SHA256}")
    ranks = {}
    for line in data.splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    vocab = {byte_level(token): rank for token, rank in ranks.items()}
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) == 1:
            continue
        parts = _final_merge(ranks, token, rank)
        if len(parts) != 2:
            raise SystemExit(f"build_tokenizers: token rank {rank} does not reduce to one merge ({parts})")
        merges.append((byte_level(parts[0]), byte_level(parts[1])))
    return _wrap_and_save(vocab, merges, out)
