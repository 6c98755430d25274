"""What the LM oracle generates: Qwen3 language-model geometries (each with its coupled depth decoder), seeds,
prompts and derived seeds.

Contract: GEOMETRIES maps a name to the keyword arguments of transformers' `Qwen3Config` (`lm`), of diffusers'
`MiniMaxMusic3RVQDepthDecoder` (`depth`, same hidden size: the pipeline couples them), the number of frames the AR
run may emit (`max_frames`, so audio_duration = max_frames / 25), the shard size save_pretrained is given (every
checkpoint is sharded, with an index) and `eos_scale` (the factor on lm_head row 151670; > 1 makes the random LM
sample <|audio_end|> early, exercising the stop path). Every geometry is generated for each weight seed in SEEDS.
The prompt ids and the sampling seed are pure functions of (geometry, seed). The vocabulary of every geometry is at
least 168,059, so every id the pipeline hard-codes exists.
"""

ROPE = {"rope_theta": 1_000_000.0, "rope_type": "default"}


def _lm(hidden, layers, heads, kv_heads, head_dim, intermediate, vocab):
    return dict(vocab_size=vocab, hidden_size=hidden, intermediate_size=intermediate, num_hidden_layers=layers,
                num_attention_heads=heads, num_key_value_heads=kv_heads, head_dim=head_dim,
                max_position_embeddings=10240, rms_norm_eps=1e-6, rope_parameters=dict(ROPE),
                tie_word_embeddings=False, hidden_act="silu", attention_bias=False)


def _depth(hidden):
    return dict(hidden_size=hidden, num_layers=1, num_attention_heads=2, intermediate_size=2 * hidden,
                audio_vocab_size=64, num_codebooks=8, max_position_embeddings=16)


GEOMETRIES = {
    # The real vocabulary size (200,000: rows past 168,058 exist and are never sampled); GQA 2:1.
    "tiny": {"lm": _lm(32, 2, 2, 1, 16, 64, 200_000), "depth": _depth(32), "max_frames": 3,
             "shard_bytes": "8MB", "eos_scale": 1.0},
    # Odd head count (9 query heads over 3 K/V heads, GQA 3:1 with more than one K/V head), q width != hidden.
    "odd": {"lm": _lm(40, 2, 9, 3, 8, 104, 168_059), "depth": _depth(40), "max_frames": 3,
            "shard_bytes": "10MB", "eos_scale": 1.0},
    # The real head_dim (128) with GQA 4:1, the smallest vocabulary that holds every code (168,059).
    "gqa128": {"lm": _lm(128, 2, 4, 1, 128, 320, 168_059), "depth": _depth(128), "max_frames": 2,
               "shard_bytes": "30MB", "eos_scale": 1.0},
    # The stop path: lm_head row 151670 scaled so <|audio_end|> is sampled within the first frames.
    "eos": {"lm": _lm(32, 2, 2, 1, 16, 64, 168_059), "depth": _depth(32), "max_frames": 12,
            "shard_bytes": "8MB", "eos_scale": 1.7},
}

SEEDS = tuple(range(6))

FRAME_RATE = 25.0


def sampling_seed(geometry, weight_seed):
    """Seeds the one torch.Generator the AR step consumes (LM and depth draws)."""
    return 3_000_000 + 1_000 * list(GEOMETRIES).index(geometry) + weight_seed


def prompt_seed(geometry, weight_seed):
    """Seeds the generator that draws the prompt's text ids."""
    return 4_000_000 + 1_000 * list(GEOMETRIES).index(geometry) + weight_seed
