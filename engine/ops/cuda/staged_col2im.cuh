// The staged col2im of cuda.conv_transpose1d.staged (conv_transpose1d_staged.cu), as host-and-device bodies so that a
// CPU gate (gates/ops/staged_col2im_host_test.cpp) runs the very code the kernel runs, block by block and thread by
// thread, without a GPU (and without CUDA: the host path needs no CUDA header).
// Shapes: channels-last, K = 2 stride taps, Cout % 8 == 0; cols [B, L, Cout K] with [co][k] in a row (the GEMM's
// columns), bias [Cout], out [B, Lout, Cout].
// - Output sample t = q s + r - pad (0 <= r < s) takes exactly two taps (K = 2s): k = r from input sample q (when
//   q < L) and k = s + r from sample q - 1 (when q >= 1); col2im's rounding points, in its order: acc = bf16(0 + the
//   first), acc = bf16(acc + the second), out = bf16(acc + bias): the same bits as cuda.conv_transpose1d's gather.
// - A block (x, y, z) takes input samples q0 = x Q .. q0 + Q - 1 of batch row z and channels c0 = y CB .. c0 + CB - 1:
//   stage_columns() copies the columns of samples q0 - 1 .. q0 + Q - 1 for those channels (contiguous in cols) into
//   shared memory tap-major ([row][k][co]) with 16-byte reads; after a barrier, gather_outputs() forms 8 consecutive
//   channels of one output sample per item from two 16-byte shared reads and the 16-byte bias, with one 16-byte
//   store. The block's outputs are the samples q0 s - pad .. (q0 + Q) s - pad - 1, consecutive items writing
//   consecutive 16-byte runs. Thread `thread` of `threads` takes items thread, thread + threads, ...
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/bf16x8.cuh"

namespace music3::ops::staged_col2im {

constexpr int kVec = 8;                     // bf16 per 16-byte vector
constexpr int kMaxChannelBlock = 64;        // CB = gcd(Cout, 64): a multiple of 8 when Cout is
constexpr int kStagedBytesTarget = 32768;   // shared memory a block aims at (Q + 1 staged samples)
constexpr int kMaxStagedBytes = 48 * 1024;  // the static limit: no opt-in attribute needed
constexpr int kMaxSamplesPerBlock = 64;

struct Plan {
  int channel_block = 0, samples = 0;  // CB and Q
  size_t shared_bytes = 0;              // (Q + 1) CB K bf16
};

inline Plan plan_for(int64_t cout, int64_t taps) {
  Plan s;
  s.channel_block = std::gcd(static_cast<int>(cout), kMaxChannelBlock);
  const int64_t row_bytes = int64_t(s.channel_block) * taps * int64_t(sizeof(bf16));
  s.samples = static_cast<int>(std::clamp<int64_t>(kStagedBytesTarget / row_bytes - 1, 1, kMaxSamplesPerBlock));
  s.shared_bytes = size_t(s.samples + 1) * size_t(row_bytes);
  return s;
}

struct Args {
  const bf16* cols;
  const bf16* bias;
  bf16* out;
  int64_t len, l_out;
  int cout, stride, pad, channel_block, samples;
};

struct Block {
  int64_t x;  // sample block: q0 = x Q
  int y;      // channel block: c0 = y CB
  int64_t z;  // batch row
};

// Stages the block's columns into `staged` ([Q + 1][K][CB]).
MUSIC3_HD void stage_columns(const Args& a, const Block& blk, int thread, int threads, bf16* staged) {
  const int taps = 2 * a.stride, cb = a.channel_block;
  const int64_t q0 = blk.x * a.samples;
  const int c0 = blk.y * cb, row_vectors = cb * taps / kVec;
  for (int i = thread; i < (a.samples + 1) * row_vectors; i += threads) {
    const int row = i / row_vectors, chunk = i % row_vectors;
    const int64_t l = q0 - 1 + row;
    if (l < 0 || l >= a.len) continue;
    const Bf16x8 v = load_bf16x8(a.cols + ((blk.z * a.len + l) * a.cout + c0) * taps + int64_t(chunk) * kVec);
    for (int j = 0; j < kVec; ++j) {
      const int at = chunk * kVec + j;
      staged[(row * taps + at % taps) * cb + at / taps] = v.e[j];  // column (co, k) = (at / K, at % K)
    }
  }
}

// acc[j] = bf16(acc[j] + column[j]) for 8 consecutive channels.
MUSIC3_HD void add_rounded8(float* acc, const bf16* column8) {
  const Bf16x8 v = load_bf16x8(column8);
  for (int j = 0; j < kVec; ++j) acc[j] = round_bf16(acc[j] + to_f32(v.e[j]));
}

// Writes the block's output samples from `staged` (filled by stage_columns for the same block).
MUSIC3_HD void gather_outputs(const Args& a, const Block& blk, int thread, int threads, const bf16* staged) {
  const int taps = 2 * a.stride, cb = a.channel_block, channel_vectors = cb / kVec;
  const int64_t q0 = blk.x * a.samples;
  for (int i = thread; i < a.samples * a.stride * channel_vectors; i += threads) {
    const int cv = i % channel_vectors, phase = i / channel_vectors, qq = phase / a.stride, r = phase % a.stride;
    const int64_t q = q0 + qq, t = q * a.stride + r - a.pad;
    if (t < 0 || t >= a.l_out) continue;
    float acc[kVec] = {};
    if (q < a.len) add_rounded8(acc, staged + ((qq + 1) * taps + r) * cb + cv * kVec);  // tap r, sample q
    if (q >= 1) add_rounded8(acc, staged + (qq * taps + a.stride + r) * cb + cv * kVec);  // tap s + r, sample q - 1
    const int c = blk.y * cb + cv * kVec;
    const Bf16x8 bv = load_bf16x8(a.bias + c);
    Bf16x8 ov;
    for (int j = 0; j < kVec; ++j) ov.e[j] = to_bf16(acc[j] + to_f32(bv.e[j]));
    store_bf16x8(a.out + (blk.z * a.l_out + t) * a.cout + c, ov);
  }
}

// Blocks along x: input samples 0 .. L (sample L feeds the last outputs through its tap s + r).
inline int64_t sample_blocks(int64_t len, const Plan& plan) { return (len + 1 + plan.samples - 1) / plan.samples; }

}  // namespace music3::ops::staged_col2im
