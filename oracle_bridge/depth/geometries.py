"""What the oracle bridge generates: depth-decoder geometries, weight seeds, frames and derived seeds.

Contract: GEOMETRIES maps a geometry name to the keyword arguments of diffusers'
`MiniMaxMusic3RVQDepthDecoder` (`config`) and the number of frames a golden holds (`frames`). Every geometry is
generated for each weight seed in SEEDS. The per-frame input seed and the sampling seed are pure functions of
the weight seed, so a golden is fully determined by (geometry, seed). The table is written into the manifest.
"""

GEOMETRIES = {
    # The embedded default: tiny, committed as a checkpoint (seed 0).
    "default": {
        "config": dict(hidden_size=64, num_layers=2, num_attention_heads=4, intermediate_size=128,
                       audio_vocab_size=128, num_codebooks=8, max_position_embeddings=16),
        "frames": 4,
    },
    # Odd head count (head_dim 32) and an intermediate size that is not a multiple of hidden.
    "odd": {
        "config": dict(hidden_size=96, num_layers=2, num_attention_heads=3, intermediate_size=200,
                       audio_vocab_size=96, num_codebooks=8, max_position_embeddings=16),
        "frames": 4,
    },
    # The real model's head_dim (256) and vocabulary (1024) at an eighth of its width.
    "eighth": {
        "config": dict(hidden_size=512, num_layers=1, num_attention_heads=2, intermediate_size=768,
                       audio_vocab_size=1024, num_codebooks=8, max_position_embeddings=16),
        "frames": 2,
    },
}

SEEDS = tuple(range(6))

# The geometry and seed whose checkpoint is committed at oracle_bridge/embedded/.
EMBEDDED = ("default", 0)


def input_seed(weight_seed, frame):
    """Seeds the generator that draws frame `frame`'s last_hidden and c0_embedding."""
    return 1_000_000 + 1_000 * weight_seed + frame


def sampling_seed(weight_seed):
    """Seeds the one torch.Generator that upstream's sampler consumes across all frames of a golden."""
    return 2_000_000 + weight_seed
