"""Writes the tokenizer oracle: both test tokenizers, the corpus and every golden, and checks them against the
committed manifest.

  generate.py OUT_DIR --tiktoken PATH [--write-manifest]

Contract: OUT_DIR/{tiny,qwen}/tokenizer/{tokenizer.json,tokenizer_config.json}, OUT_DIR/corpus.json,
OUT_DIR/tokens_{tiny,qwen}.json, OUT_DIR/sweep_{tiny,qwen}.json (every code point, corpus.sweep()), OUT_DIR/rules.json, OUT_DIR/python_text.json. The qwen tokenizer (a 40 s
conversion) is rebuilt only when its files do not already hash to the manifest's values. Every output's sha256 must
equal oracle_bridge/goldens/tokenizer/manifest.json (exit 1 naming the first file that differs), so the gates always read
what was reviewed; --write-manifest rewrites the manifest instead (after an intended change). A missing tiktoken
file exits 2 naming scripts/install-deps, which downloads it. Refuses other upstream versions (pins.py).
"""
import argparse
import hashlib
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import pins  # noqa: E402

pins.require_pinned()

import build_tokenizers  # noqa: E402
import corpus  # noqa: E402
import goldens  # noqa: E402
from transformers import Qwen2Tokenizer  # noqa: E402

MANIFEST = HERE.parent / "goldens" / "tokenizer" / "manifest.json"
TOKENIZER_FILES = ["tokenizer/tokenizer.json", "tokenizer/tokenizer_config.json"]


def sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def write_json(path, obj):
    path.write_text(json.dumps(obj, ensure_ascii=True, sort_keys=True) + "\n")


def rule_pairs(texts):
    n = len(texts)
    pairs = [(texts[i], texts[(7 * i + 3) % n]) for i in range(n)]
    example_lyrics = "[Verse 1] dropped text\n[CHORUS][Bridge 2]  also dropped\nla la ^ la\nword [Outro] more\n\n[Intro]"
    pairs += [
        ("<|a|><|b c|>", "[verse][chorus]"), ("<|only tags|>", "[Intro]\n[OUTRO]"), ("   ", "la"), ("x", "\n\t "),
        ("", ""), ("\u3000", "\u2028"), ("---", "---"), ("a\n---\nb\n  ***  \n___", "x"),
        ("**a **b** c**", "[A] **b**"), ("***x***", "*"), ("# Title\n## Sub\n- item\n* item\n+ item\n***\nend", example_lyrics),
        ("intro\n<|bpm 120|> <|happy|> \u2022 piano    strings\n\n\nend  ", "la ^ la ^ la"),
        ("\u2028x\x1cy\x85z\r\nw\rv\x0bu\x0ct", "[\u039f\u0394\u039f\u03a3]\n[\u0130STANBUL] x\n[\u03a3\u0391\u03a3 a]"),
        ("word " * 6000, "la"), ("ok", "la " * 6000),
    ]
    return pairs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--tiktoken", required=True)
    ap.add_argument("--write-manifest", action="store_true")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    committed = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {"files": {}}
    if not pathlib.Path(args.tiktoken).is_file():
        print(f"generate.py: no {args.tiktoken}; run scripts/install-deps (it downloads dashscope==2.0.2's "
              "qwen.tiktoken into .downloads/)", file=sys.stderr)
        return 2

    tokenizers = {"tiny": build_tokenizers.build_tiny(out / "tiny")}
    qwen_current = all((out / "qwen" / f).is_file() and committed["files"].get(f"qwen/{f}") == sha256(out / "qwen" / f)
                       for f in TOKENIZER_FILES)
    if qwen_current:
        tokenizers["qwen"] = Qwen2Tokenizer.from_pretrained(str(out / "qwen" / "tokenizer"))
    else:
        tokenizers["qwen"] = build_tokenizers.build_qwen(args.tiktoken, out / "qwen")

    texts = corpus.corpus()
    write_json(out / "corpus.json", texts)
    sweep = corpus.sweep()
    for name, tok in tokenizers.items():
        write_json(out / f"tokens_{name}.json", goldens.token_goldens(tok, texts))
        write_json(out / f"sweep_{name}.json", goldens.token_goldens(tok, sweep))
    write_json(out / "rules.json", goldens.rule_goldens(tokenizers, rule_pairs(texts)))
    write_json(out / "python_text.json", goldens.python_text_goldens())

    names = [f"{t}/{f}" for t in tokenizers for f in TOKENIZER_FILES]
    names += ["corpus.json", "tokens_tiny.json", "tokens_qwen.json", "sweep_tiny.json", "sweep_qwen.json", "rules.json",
              "python_text.json"]
    manifest = {"corpus_strings": len(texts), "qwen_tiktoken_sha256": build_tokenizers.QWEN_TIKTOKEN_SHA256,
                "versions": pins.read_pins(), "files": {n: sha256(out / n) for n in names}}
    if args.write_manifest:
        MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        return 0
    for n in names:
        if committed["files"].get(n) != manifest["files"][n]:
            print(f"generate.py: {out / n} has sha256 {manifest['files'][n]}, the committed manifest says "
                  f"{committed['files'].get(n)}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
