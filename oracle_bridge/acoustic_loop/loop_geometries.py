"""The window-loop oracle's cases: tiny condition encoders and DiTs (each geometry its own channel counts and head
layout) and frame counts that give 1, 2 and 3 windows (F = 37, 250, 400) and a ragged last window (F = 205), with
the step counts the gates replay. Seeds 0..5. Frame hiddens are N(0, 1) drawn from input_seed, cast to bf16.
"""
SEEDS = range(6)

GEOMETRIES = {
    # One window of 127 latents, the full 30-step schedule (both f32 dt values of N = 30 occur).
    "single": {"frames": 37, "steps": 30,
               "encoder": {"condition_hidden_dim": 16, "num_condition_layers": 8, "out_dim": 16},
               "dit": {"in_channels": 8, "condition_dim": 16, "num_layers": 1, "num_attention_heads": 2,
                       "attention_head_dim": 8, "ff_inner_dim": 32, "rotary_dim": 4, "fourier_embedding_dim": 8}},
    # Two windows (200 and 150 frames: 689 and 516 latents), the release's 128 latent channels.
    "pair": {"frames": 250, "steps": 4,
             "encoder": {"condition_hidden_dim": 8, "num_condition_layers": 8, "out_dim": 32},
             "dit": {"in_channels": 128, "condition_dim": 32, "num_layers": 1, "num_attention_heads": 2,
                     "attention_head_dim": 16, "ff_inner_dim": 32, "rotary_dim": 8, "fourier_embedding_dim": 16}},
    # Three full windows: the carry of a re-noised window is carried again.
    "triple": {"frames": 400, "steps": 3,
               "encoder": {"condition_hidden_dim": 12, "num_condition_layers": 8, "out_dim": 24},
               "dit": {"in_channels": 16, "condition_dim": 24, "num_layers": 2, "num_attention_heads": 1,
                       "attention_head_dim": 16, "ff_inner_dim": 24, "rotary_dim": 8, "fourier_embedding_dim": 8}},
    # A ragged last window (105 frames: 361 latents) and N = 2 (dt 0.5).
    "ragged": {"frames": 205, "steps": 2,
               "encoder": {"condition_hidden_dim": 8, "num_condition_layers": 8, "out_dim": 8},
               "dit": {"in_channels": 8, "condition_dim": 8, "num_layers": 1, "num_attention_heads": 2,
                       "attention_head_dim": 4, "ff_inner_dim": 16, "rotary_dim": 2, "fourier_embedding_dim": 4}},
}


def input_seed(geometry, seed):
    return 1000 * (list(GEOMETRIES).index(geometry) + 1) + seed


def noise_seed(geometry, seed):
    return 7000 + input_seed(geometry, seed)
