"""What the vocoder oracle generates: vocoder geometries, weight seeds, window lengths and derived seeds.

Contract: GEOMETRIES maps a name to the keyword arguments of diffusers' `MiniMaxMusic3Vocoder` (`config`). Every
geometry's upsampling_ratios multiply to 512 (the release's (8, 8, 4, 2) but for unit_stride), so the hop is 512, the condition encoder's output hop that the
decode block crops by; the geometries vary the channel widths (latent, decoder input and hidden widths, down to 2
and 3 channels in the last stage). Each geometry is generated for every weight seed in SEEDS with a parity window
of parity_length(geometry, seed) latents. STITCH_GEOMETRY's seeds also get a stitching case: 1, 2 or 3 windows
(1 + seed % 3) whose lengths are stitch_lengths(seed), long enough that every crop (86 left, 258 right) leaves
a few latents. Input seeds are pure functions of (geometry, seed, window), so a golden is fully determined.
"""

RATIOS = [8, 8, 4, 2]
GEOMETRIES = {
    # Narrowest: 8 latent channels (4 per stream), hidden 32 -> 16 -> 8 -> 4 -> 2.
    "narrow": {"config": dict(latent_channels=8, decoder_input_dim=8, decoder_hidden_dim=32,
                              upsampling_ratios=RATIOS, sampling_rate=44100)},
    # Widths that are not powers of two: hidden 48 -> 24 -> 12 -> 6 -> 3, the real 128 latent channels.
    "odd": {"config": dict(latent_channels=128, decoder_input_dim=40, decoder_hidden_dim=48,
                           upsampling_ratios=RATIOS, sampling_rate=44100)},
    # The realdims preset's vocoder (128 -> 64 -> 64), hidden 64 -> 32 -> 16 -> 8 -> 4.
    "realdims": {"config": dict(latent_channels=128, decoder_input_dim=64, decoder_hidden_dim=64,
                                upsampling_ratios=RATIOS, sampling_rate=44100)},
    # A stride-1 last block (ratios 8, 8, 8, 1; still hop 512): the only power-of-two stride whose padding
    # ceil(s/2) differs from floor(s/2); its transposed conv shortens the output to 512 L - 1 samples.
    "unit_stride": {"config": dict(latent_channels=16, decoder_input_dim=16, decoder_hidden_dim=32,
                                   upsampling_ratios=[8, 8, 8, 1], sampling_rate=44100)},
}
SEEDS = tuple(range(6))
STITCH_GEOMETRY = "narrow"
HOP = 512
CROP_LEFT = 86
CROP_RIGHT = 258


def parity_length(geometry, seed):
    """Latents in the parity window: 3..14, different per geometry and seed."""
    return 3 + (2 * seed + 5 * list(GEOMETRIES).index(geometry)) % 12


def stitch_lengths(seed):
    """Window lengths of the stitching case of this seed (1, 2 or 3 windows)."""
    windows = 1 + seed % 3
    if windows == 1:
        return [5 + seed]
    if windows == 2:
        return [CROP_RIGHT + 2 + seed % 2, CROP_LEFT + 3]
    return [CROP_RIGHT + 4, CROP_LEFT + CROP_RIGHT + 2, CROP_LEFT + 3 + seed % 2]


def input_seed(geometry, seed, window):
    return 1_000_003 * (1 + list(GEOMETRIES).index(geometry)) + 1009 * seed + window
