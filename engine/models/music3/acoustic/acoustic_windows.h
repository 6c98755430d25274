// The 200-frame windows of the acoustic stage and what passes between them, as diffusers'
// MiniMaxMusic3PrepareChunksStep, MiniMaxMusic3ChunkConditionStep, MiniMaxMusic3ChunkDenoiseInner and
// MiniMaxMusic3ChunkUpdateStep define them.
// Contract:
// - window_starts(F): [0] if F <= 200, else 0, 100, ... below F - 100. F < 1 throws std::invalid_argument.
//   Window k covers frames [start, min(start + 200, F)).
// - frames_until_final(start): the frames the AR stage must have emitted before the window at `start` (a multiple
//   of 100) is final, i.e. before it is a window of window_starts(F) with window_frames(start, F) = 200 for every
//   final frame count F >= the frames emitted: start + 200. Proof: for F >= start + 200, start < F - 100 and
//   (F > 200, or start = 0), so start is in window_starts(F), and min(start + 200, F) - start = 200; with fewer
//   frames emitted, an <|audio_end|> at the next iteration makes F the frames emitted, where that window is
//   shorter (F - start < 200) or absent (F <= start + 100, start > 0). So a window can be run while the AR stage
//   goes on exactly when frames_until_final(start) frames are out; the windows run that way are a prefix of
//   window_starts(F) (gates/pipeline/overlap_gate.cpp checks both directions exhaustively for F <= 2400).
// - latent_length(n): max(1, int(n * 44100 / 24000 * 960 / 512)), evaluated left to right in f64 as Python does.
// - overlap_length(carried, L): min(carried, L) when a previous window carried latents, else 0.
// - carry_span(L): [a, b) with a = max(0, L - 344), b = max(a, L - 172): the latents and condition rows the
//   next window receives.
// - splice_rows(dst, src, rows, width): the first `rows` rows of a row-major [*][width] dst become src's.
// - splice_columns(dst, dst_len, src, src_len, cols, channels): for [channels][len] tensors, the first `cols`
//   columns of every channel of dst become src's (the final splice of the overlap).
// - renoise_overlap(x, L, noise_prompt, carried, carried_len, ov, channels, t): the per-step re-noising of the
//   known prefix, x[c][j] = bf16(bf16(coef * noise_prompt[c][j]) + bf16(t * carried[c][j])) for j < ov with
//   coef = bf16(1 - bf16(0.999999f * t)), every op rounded to bf16 as torch does on bf16 tensors.
// Pure functions over caller-owned buffers: thread-safe for distinct buffers.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::acoustic {

inline constexpr int64_t kWindowFrames = 200;
inline constexpr int64_t kWindowHop = 100;
inline constexpr int64_t kOverlapLatents = 172;

struct Span {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};

std::vector<int64_t> window_starts(int64_t frames);
int64_t window_frames(int64_t start, int64_t frames);
int64_t frames_until_final(int64_t start);
int64_t latent_length(int64_t frames);
int64_t overlap_length(int64_t carried, int64_t length);
Span carry_span(int64_t length);
void splice_rows(bf16* dst, const bf16* src, int64_t rows, int64_t width);
void splice_columns(bf16* dst, int64_t dst_len, const bf16* src, int64_t src_len, int64_t cols, int64_t channels);
void renoise_overlap(bf16* x, int64_t length, const bf16* noise_prompt, const bf16* carried, int64_t carried_len,
                     int64_t ov, int64_t channels, bf16 t);

}  // namespace music3::acoustic
