"""The tokenizer gates' corpus: deterministic strings that stress every stage of Qwen2 tokenization and the prompt rules.

Contract: `corpus()` returns the same list on every run with the pinned Python (random.Random(SEED); no set or dict
iteration order is involved): EDGE_CASES first, then GENERATED strings, each a concatenation of 1..10 fragments
drawn from FRAGMENT_KINDS: Latin with accents, CJK, Hangul, Arabic, Devanagari, Cyrillic/Greek, emoji with ZWJ and
modifiers, NFD combining sequences, digits, contractions in mixed case (also U+017F and U+2019), whitespace runs
(spaces, tabs, CR/LF, U+2028/9, U+0085, U+00A0, U+3000, U+180E, \\x1c-\\x1f, \\v, \\f), markdown, `<|tag value|>`
forms, lyrics tags, every added token inside text (also cut short or followed by a combining mark), and random
valid UTF-8 (any scalar value, surrogates excluded). Every string is valid UTF-8.
"""
import random
import unicodedata

from specials import SPECIALS

SEED = 20260101
GENERATED = 5400

EDGE_CASES = [
    "", " ", "\n", "\t", "a", "hello world", "<|im_start|>", "<|im_start|><|im_end|>", "<|im_start", "|>",
    "don't", "DON'T", "we'Re", "it'ſ", "Kelvin 'K", "1234567890", "  leading", "trailing  ", "a  \n  b",
    "\r\n\r\n", "x\u2028y\u2029z", "<think>\u0338", "<|im_end|>\u0301", "e\u0301", "\u1100\u1161\u11a8",
    "[verse]\nla la", "<|bpm 120|>", "<||>", "<| |>", "---", "***", "**a **b** c**", "*a*", "# h", "   # h",
    "    # not a heading", "\u2022 bullet", "ΣΑΣ ΟΔΟΣ", "[ΟΔΟΣ]", "[İSTANBUL]", "\x00", "\x7f\x80",
    "\ufeffbom", "a\u180eb", "a\x1cb\x1db\x1eb\x1fb", "\x85", "\u3000\u3000x", "🇯🇵🇫🇷", "👩‍👩‍👧‍👦",
]

LATIN = ["café", "naïve", "résumé", "über", "straße", "São", "Łódź", "ångström", "Ærø", "déjà", "Škoda", "Ñandú",
         "fjörd", "crème brûlée", "Zürich", "piñata", "façade", "coöperate", "hello", "world", "synth", "pop", "song",
         "warm", "female", "vocals", "Bright", "DRUMS", "bass", "guitar", "Melancholic", "ballad"]
CJK = "你好世界音乐我们一起唱歌让快乐的歌曲夜晚星光梦想爱心中国日本語カタカナひらがな漢字"
HANGUL = "안녕하세요음악을사랑해요노래를불러요밤하늘별빛"
ARABIC = ["مرحبا", "بالعالم", "نحن", "نحب", "الموسيقى", "أغنية", "ليل", "\u0627\u064b"]
DEVANAGARI = ["नमस्ते", "दुनिया", "संगीत", "हमें", "खुश", "करता", "है", "क्षत्रिय"]
CYRILLIC_GREEK = ["Привет", "мир", "Музыка", "ЖИЗНЬ", "Σίσυφος", "ΟΔΥΣΣΕΥΣ", "λόγος", "ΣΑΣ"]
EMOJI = ["🎵", "🎶", "🎸", "❤️", "👍🏽", "👩‍💻", "👨‍👩‍👧", "🏳️‍🌈", "🇯🇵", "🇺🇸", "😀", "🤖", "✨", "#️⃣", "1️⃣"]
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve", "'M", "'LL", "'D", "'rE",
                "'lL", "'ſ", "\u2019s", "'x", "''", "'"]
WHITESPACE = [" ", "  ", "   ", "    ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r", " \n ", "\u2028", "\u2029", "\x85",
              "\xa0", "\u3000", "\u180e", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", " \t \r\n", "\u2003\u2009"]
MARKDOWN = ["# ", "## ", "###### ", "####### ", "   # ", "- ", "* ", "+ ", "**", "*", "***", "---", "___", "* * *",
            "\u2022 ", "**bold**", "*italic*", "**nested **inner** bold**", "`code`", "> quote", "1. ", "[link](x)"]
TAGS = ["<|bpm 120|>", "<|happy|>", "<|key C minor|>", "<| spaced   out |>", "<||>", "<|a\tb|>", "<|x\ny|>",
        "<|Genre Pop|>", "<|ΣΑΣ ok|>", "[verse]", "[Verse 1]", "[CHORUS]", "[Bridge 2]", "[İntro]", "[ΟΔΟΣ]",
        "[ΣΑΣ x]", "[Outro]  ", " ^ ", "] ", " [", "[", "]", "[]", "[a]b[c]"]


def _nfd_fragment(rng):
    word = rng.choice(LATIN + CYRILLIC_GREEK)
    marks = "".join(chr(rng.randrange(0x300, 0x370)) for _ in range(rng.randrange(0, 3)))
    return unicodedata.normalize("NFD", word) + marks


def _digits(rng):
    return "".join(rng.choice("0123456789٠١٢٣४५६७١２３") for _ in range(rng.randrange(1, 12)))


def _random_utf8(rng):
    out = []
    for _ in range(rng.randrange(1, 12)):
        plane = rng.random()
        if plane < 0.3:
            cp = rng.randrange(0x20, 0x80)
        elif plane < 0.6:
            cp = rng.randrange(0x80, 0x800)
        elif plane < 0.9:
            cp = rng.randrange(0x800, 0x10000)
        else:
            cp = rng.randrange(0x10000, 0x110000)
        if 0xD800 <= cp < 0xE000:
            cp -= 0x800
        out.append(chr(cp))
    return "".join(out)


def _special(rng):
    content = rng.choice(SPECIALS)[0]
    roll = rng.random()
    if roll < 0.15:
        return content[: rng.randrange(1, len(content))]
    if roll < 0.25:
        return content + chr(rng.choice([0x301, 0x338, 0x20, 0x0A]))
    return content


FRAGMENT_KINDS = [
    lambda r: r.choice(LATIN),
    lambda r: "".join(r.choice(CJK) for _ in range(r.randrange(1, 8))),
    lambda r: "".join(r.choice(HANGUL) for _ in range(r.randrange(1, 6))),
    lambda r: r.choice(ARABIC),
    lambda r: r.choice(DEVANAGARI),
    lambda r: r.choice(CYRILLIC_GREEK),
    lambda r: "".join(r.choice(EMOJI) for _ in range(r.randrange(1, 4))),
    _nfd_fragment,
    _digits,
    lambda r: r.choice(LATIN) + r.choice(CONTRACTIONS),
    lambda r: r.choice(WHITESPACE),
    lambda r: r.choice(MARKDOWN),
    lambda r: r.choice(TAGS),
    _special,
    _random_utf8,
]


def sweep():
    """Every assigned, NFC-inert scalar value of planes 0-3 and 14 (per Python's unicodedata, Unicode 14), 256 per
    block, each block written space-separated and run together: the split pattern's classes (\\p{L}, \\p{N}, \\s)
    meet every such code point. NFC-inert: canonical combining class 0 and no decomposition. Left out, the measured
    residuals (nfc.h, qwen2_tokenizer.h): combining marks, which HF's older NFC tables do not reorder where
    utf8proc (Unicode 15) does for marks assigned since Unicode 14, and code points assigned in Unicode 15, which
    Oniguruma (in tokenizers) classifies and PCRE2 10.42 (Unicode 14) does not."""
    out = []
    for start in list(range(0, 0x40000, 256)) + list(range(0xE0000, 0xF0000, 256)):
        chars = [chr(c) for c in range(start, start + 256)
                 if unicodedata.category(chr(c)) not in ("Cn", "Cs") and unicodedata.combining(chr(c)) == 0
                 and unicodedata.decomposition(chr(c)) == ""]
        if chars:
            out.append(" ".join(chars) + " | " + "".join(chars))
    return out


def corpus():
    rng = random.Random(SEED)
    out = list(EDGE_CASES)
    for _ in range(GENERATED):
        parts = []
        for _ in range(rng.randrange(1, 11)):
            parts.append(rng.choice(FRAGMENT_KINDS)(rng))
            if rng.random() < 0.5:
                parts.append(rng.choice([" ", " ", "\n", "", "\t"]))
        out.append("".join(parts))
    return out
