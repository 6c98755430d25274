"""What the pipeline oracle generates: tiny complete pipelines (every component of the diffusers hub layout) and
the songs the real MiniMaxMusic3ModularPipeline sings with them.

Contract: GEOMETRIES maps a name to the constructor arguments of each component (`language_model`: transformers'
Qwen3Config; `rvq_depth_decoder`, `condition_encoder`, `transformer`, `vocoder`: the diffusers classes;
`scheduler`: FlowMatchEulerDiscreteScheduler as the hub configures it) and obeys the coupling rules the engine's
checkpoint reader enforces (depth hidden = LM hidden = condition hidden, 8 codebooks = 8 condition layers,
condition out = DiT condition_dim, DiT in_channels = vocoder latent_channels (even), prod(upsampling_ratios) =
output_hop_length = 512, vocoder sampling_rate = output_sampling_rate). Every LM vocabulary is 168,059, the
smallest that holds every id the pipeline hard-codes. `tiny` is the embedded default (scripts/run).
CASES lists the songs: (geometry, sampling seed, audio_duration, steps). `w1` songs fit one 200-frame window (2 s:
50 frames, 172 latents); `w2` songs need two (8.4 s: 210 frames, windows [0,200) and [100,210): the overlap blend,
the splice and the crop); the 10 s and 16 s songs two and three; EARLY_EOS names the songs that end on
<|audio_end|> before the requested frames. The prompt and lyrics of a song are a pure function of its seed
(prompt_text()).
"""

ROPE = {"rope_theta": 1_000_000.0, "rope_type": "default"}
VOCAB = 168_059
SCHEDULER = {"num_train_timesteps": 1, "shift": 1.0, "invert_sigmas": True}


def _lm(hidden, layers, heads, kv_heads, head_dim, intermediate):
    return dict(vocab_size=VOCAB, hidden_size=hidden, intermediate_size=intermediate, num_hidden_layers=layers,
                num_attention_heads=heads, num_key_value_heads=kv_heads, head_dim=head_dim,
                max_position_embeddings=10240, rms_norm_eps=1e-6, rope_parameters=dict(ROPE),
                tie_word_embeddings=False, hidden_act="silu", attention_bias=False)


GEOMETRIES = {
    # The e2e note's tiny preset (5.4 M parameters, nearly all the LM's embedding and lm_head).
    "tiny": {
        "language_model": _lm(16, 2, 2, 1, 8, 32),
        "rvq_depth_decoder": dict(hidden_size=16, num_layers=1, num_attention_heads=2, intermediate_size=32,
                                  audio_vocab_size=128, num_codebooks=8, max_position_embeddings=16),
        "condition_encoder": dict(condition_hidden_dim=16, num_condition_layers=8, out_dim=16),
        "transformer": dict(in_channels=8, condition_dim=16, num_layers=2, num_attention_heads=2,
                            attention_head_dim=8, ff_inner_dim=32, rotary_dim=4, fourier_embedding_dim=8),
        "vocoder": dict(latent_channels=8, decoder_input_dim=8, decoder_hidden_dim=32,
                        upsampling_ratios=[8, 8, 4, 2], sampling_rate=44100),
        "scheduler": dict(SCHEDULER),
    },
    # Odd widths everywhere the coupling rules allow: 3 query heads over 1 K/V head, depth heads of 8, condition
    # width 12 != LM width, DiT 3 heads x 4 with rotary 2, 6 latent channels (3 per stream), vocoder 48 -> 3.
    "odd": {
        "language_model": _lm(24, 2, 3, 1, 8, 40),
        "rvq_depth_decoder": dict(hidden_size=24, num_layers=2, num_attention_heads=3, intermediate_size=40,
                                  audio_vocab_size=96, num_codebooks=8, max_position_embeddings=16),
        "condition_encoder": dict(condition_hidden_dim=24, num_condition_layers=8, out_dim=12),
        "transformer": dict(in_channels=6, condition_dim=12, num_layers=2, num_attention_heads=3,
                            attention_head_dim=4, ff_inner_dim=20, rotary_dim=2, fourier_embedding_dim=6),
        "vocoder": dict(latent_channels=6, decoder_input_dim=10, decoder_hidden_dim=48,
                        upsampling_ratios=[8, 8, 4, 2], sampling_rate=44100),
        "scheduler": dict(SCHEDULER),
    },
}

# The tiny weights (the same seeds, so the same bytes) with the real Qwen base vocabulary as the tokenizer
# (oracle_bridge/tokenizer's build_qwen over dashscope's qwen.tiktoken): the prompt and lyrics reach the LM as the
# release's tokenizer splits them. TOKENIZERS names each geometry's tokenizer (default: the tiny trained BPE).
GEOMETRIES["tiny_qwen"] = GEOMETRIES["tiny"]
TOKENIZERS = {"tiny_qwen": "qwen"}

# The release's head dimensions at small widths (shared reference minimax-music3.md, section 1.2): LM heads of 128
# with GQA 4:1 (4 query heads over 1 K/V head, so the query width 512 differs from the hidden 256), the depth
# decoder's heads of 256 (one head: the depth head_dim is hidden / heads and hidden must be the LM's), the DiT's heads
# of 64 with rotary 32. The vocabulary rows dominate its 88 M parameters (2 x 168,059 x 256).
GEOMETRIES["heads"] = {
    "language_model": _lm(256, 2, 4, 1, 128, 64),
    "rvq_depth_decoder": dict(hidden_size=256, num_layers=1, num_attention_heads=1, intermediate_size=64,
                              audio_vocab_size=128, num_codebooks=8, max_position_embeddings=16),
    "condition_encoder": dict(condition_hidden_dim=256, num_condition_layers=8, out_dim=16),
    "transformer": dict(in_channels=8, condition_dim=16, num_layers=1, num_attention_heads=2,
                        attention_head_dim=64, ff_inner_dim=32, rotary_dim=32, fourier_embedding_dim=8),
    "vocoder": dict(latent_channels=8, decoder_input_dim=8, decoder_hidden_dim=32,
                    upsampling_ratios=[8, 8, 4, 2], sampling_rate=44100),
    "scheduler": dict(SCHEDULER),
}

# The tiny weights with the lm_head row of <|audio_end|> (id 151670) multiplied by EOS_ROW_GAIN after the redraw
# (pipeline_checkpoint.py): its logit then spreads EOS_ROW_GAIN times wider than the code columns', so the guided
# distribution puts <|audio_end|> first on some frames and the real pipeline ends the song early (tiny_eos_*: the
# trace's frame count is asserted below the requested one, so the case cannot silently become a full song).
GEOMETRIES["tiny_eos"] = GEOMETRIES["tiny"]
EOS_ROW_GAIN = {"tiny_eos": 2.0}

EMBEDDED = "tiny"
WEIGHTS_SEED = 0
W1_DURATION, W2_DURATION = 2.0, 8.4

# (name, geometry, seed, audio_duration, num_inference_steps). Six seeds of the one-window song (each of the three
# songs, prompt_text(seed), under two sampling seeds) on the embedded pipeline; two several-window songs on it, 10 s
# (250 frames: windows [0,200) and [100,250)) and 16 s (400 frames: [0,200), [100,300), [200,400)), which replaced
# the two 8.4 s songs of the same seeds (so the same sampling seeds: their AR paths extend those songs'); one 8.4 s
# song on the odd geometry (210 frames: a short last window [100,210), the overlap blend, the splice and the crop):
# each seed is another token and code path through the AR band and other noise. Six one-window songs on tiny_qwen
# (12 steps) put the real vocabulary's prompt ids through the whole pipeline; one early-EOS song on tiny_eos
# (EARLY_EOS).
# The `heads` songs (heads_w1_seed0-5 at 2 s, heads_w2_seed0 at 8.4 s, 12 steps): the LM at head_dim 128 / GQA 4:1 /
# hidden 256 is not bit-exact with torch's (frame_hiddens mean 0.5 ULP, p99.9 ~50, where the tiny geometries are
# exact), and four sampled tokens differ from upstream's (seed 0 iteration 26, the same path in heads_w2_seed0, and
# seed 3 iterations 31 and 46). None is a score near-tie: each is a flip of the conditional row's top-50 prefilter
# (_AR_CFG_TOP_K), one side having masked the other's pick to -inf, with upstream's conditional logit of the flipped
# pick at the 50th value or 1 ULP from it (bf16 ties there are common: 53 columns >= the 50th value at seed 0
# iteration 26). The gates judge them by the prefilter's shared near-tie (gates/lib/near_tie.h prefilter_near_tie,
# over the trace's lm_logits): the masked pick within 2 ULPs of the masking side's threshold, and both sides ranking
# it first were it kept.
CASES = [(f"tiny_w1_seed{s}", "tiny", s, W1_DURATION, 30) for s in range(6)] + \
        [("tiny_10s_seed0", "tiny", 0, 10.0, 12), ("tiny_16s_seed1", "tiny", 1, 16.0, 12)] + \
        [("odd_w2_seed0", "odd", 0, W2_DURATION, 12)] + \
        [(f"tiny_qwen_w1_seed{s}", "tiny_qwen", s, W1_DURATION, 12) for s in range(6)] + \
        [("tiny_eos_seed2", "tiny_eos", 2, 10.0, 12)] + \
        [(f"heads_w1_seed{s}", "heads", s, W1_DURATION, 12) for s in range(6)] + \
        [("heads_w2_seed0", "heads", 0, W2_DURATION, 12)]

# The songs the real pipeline must end on <|audio_end|> before the requested frames (tiny_eos_seed2: after 171 of 250
# frames, one window of 171 frames although 250 frames plan two). pipeline_trace.py refuses the trace otherwise (a
# self-check), and gate pipeline.e2e asserts it again, so the case cannot silently become a full-length song.
EARLY_EOS = ["tiny_eos_seed2"]

PROMPTS = [
    "a bright synth pop song with warm female vocals",
    "# Night drive\n- **dark** synthwave, 100 bpm\n<|mood melancholic|> • analog    pads\n\n\n",
    "Café jazz trio, naïve brushed drums\u2028upright bass\r\nsoft *piano*",
]
LYRICS = [
    "[verse]\nhello world\n[chorus]\nsing with me",
    "[Verse 1] dropped\nneon lights ^ on the road\n[CHORUS][Bridge]  gone\nwe drive [Outro] away",
    "[intro]\nla la la\n\n[verse]\n12 o'clock, we're late\n[outro]",
]


def prompt_text(seed):
    """(prompt, lyrics) of the song with this sampling seed."""
    return PROMPTS[seed % len(PROMPTS)], LYRICS[seed % len(LYRICS)]


def sampling_seed(geometry, seed):
    """Seeds the one torch.Generator the pipeline consumes (LM and depth draws, then every window's noise)."""
    return 5_000_000 + 1_000 * list(GEOMETRIES).index(geometry) + seed
