// Bounds of the per-stage gate (stage_gate.cpp), per stage kind, each between the correct arm's worst over every
// case (4 geometries x 6 seeds) and the tightest catalogued mutation it must catch (both measured, beside it).
// Teacher-forced: each stage reads upstream's own input, so a stage's statistics are its own error only.
#pragma once
#include <string>

#include "engine/models/music3/vocoder/vocoder_stages.h"
#include "gates/lib/gate_record.h"

namespace music3::gates::vocoder_stage_bounds {

struct StageBound {
  UlpBounds ulp;
  double min_exact_fraction;  // of the elements with a nonzero reference
};

inline std::string kind_name(vocoder::Stage::Kind k) {
  using K = vocoder::Stage::Kind;
  switch (k) {
    case K::DecInProj: case K::ConvIn: case K::ConvOut: return "conv";
    case K::BlockSnake: case K::SnakeOut: return "snake";
    case K::BlockUp: return "conv_transpose";
    case K::ResidualUnit: return "residual_unit";
    case K::Tanh: return "tanh";
  }
  return "?";
}

// Host arm, and the device arm on the CPU providers (bit-identical to it: gate_vocoder_device_cpu). Measured at
// this commit over the 24 cases, per kind: correct worst | tightest catalogued mutation (mutations/catalogue/
// vocoder.json, the CPU battery's report under reports/mutations/vocoder/). The whole-waveform gate's bounds for the
// same arm (vocoder_bounds.h) admit a median of 0.5 ULP and only 40% of samples bit-exact.
// conv (dec_in_proj, conv_in, conv_out): exact fraction 0.99888 (realdims/seed3/dec_in_proj), p99.9 1,
//   max_conditioned 0, mean 0.0011 | vocoder-conv-bias-rounded-apart and vocoder-conv-out-bias-rounded-apart:
//   exact 0.622 (realdims/seed4/conv_out), max_conditioned 2, p99.9 187.
//   zero_max: correct worst 0 (CPU, 24 cases) | tightest mutation: none reaches it (no exact-zero reference among
//   the 239,700 conv outputs).
inline constexpr StageBound kConv{{/*median*/ 0.5, /*mean*/ 0.05, /*p999*/ 2.0, /*max_conditioned*/ 1.0,
                                   /*zero_max*/ 0.0},
                                  0.99};
// snake (blocks.i.snake1, snake_out): bit-exact on every case | vocoder-snake-inverse-unrounded exact 0.809
//   (unit_stride/seed4/snake_out), vocoder-snake-square-unrounded 0.871, both max_conditioned 4.
//   zero_max: correct worst 0 (CPU, 24 cases; 1,204 exact-zero references) | tightest mutation: none of the 15
//   catalogued stage-reaching mutations moves a zero reference (snake(0) = 0 whatever the rounding).
inline constexpr StageBound kSnake{{0.5, 0.01, 1.0, 1.0, /*zero_max*/ 0.0}, 0.999};
// conv_transpose (blocks.i.conv_t1): bit-exact on every case | vocoder-col2im-column-unrounded exact 0.685
//   (odd/seed0/blocks.3.conv_t1), max_conditioned 6, p99.9 128.
//   zero_max: correct worst 0 (CPU, 24 cases; 402 exact-zero references) | tightest mutation
//   vocoder-col2im-column-unrounded: 0.9375 (odd/seed0/blocks.3.conv_t1).
inline constexpr StageBound kConvTranspose{{0.5, 0.01, 1.0, 1.0, /*zero_max*/ 0.0}, 0.999};
// residual_unit (Snake, dilated k7 conv, Snake, 1x1 conv, identity): exact 0.99896 (odd/seed1/blocks.2.res_unit1),
//   max_conditioned 2, p99.9 1, mean 0.0063 | the snake and conv mutations above: exact <= 0.609, max_conditioned
//   >= 20, p99.9 >= 384, mean >= 2.0.
//   zero_max: correct worst 0 (CPU, 24 cases; 3,544 exact-zero references) | tightest mutation
//   vocoder-snake-inverse-unrounded and vocoder-snake-square-unrounded: 5 (realdims/seed5/blocks.2.res_unit3).
inline constexpr StageBound kResidualUnit{{0.5, 0.1, 8.0, 8.0, /*zero_max*/ 0.0}, 0.99};
// tanh: bit-exact on every case | vocoder-tanh-via-exp (tanh as 1 - 2/(e^2x + 1), off near 0) exact 0.99992
//   (odd/seed2/tanh), mean 0.00065; the whole-waveform gate does not see it (vocoder-tanh-via-exp-whole survives).
//   zero_max: correct worst 0 (CPU, 24 cases) | tightest mutation: none reaches it (no exact-zero reference among
//   the 208,884 tanh outputs).
inline constexpr StageBound kTanh{{0.5, 0.0003, 0.5, 0.5, /*zero_max*/ 0.0}, 1.0};

// The device arm on CUDA, three provider runs (CUTLASS preferred: gate_vocoder_stages_cuda; cuBLAS channels-last:
// the same gate with CUTLASS disabled; cuDNN: gate_vocoder_stages_cuda_cudnn). Correct worst over the 24 cases of
// all three runs from the H200 gate records at e7749cf (reports/gates/all/2026-12-02-e7749cf-h200-gate-records.jsonl.gz;
// the vocoder is unchanged since). Tightest: each CUDA stage-gate mutation's largest value over the cases, least over
// the mutations, from the GPU battery at a791fdc (reports/mutations/vocoder/2026-12-02-a791fdc8aa80-gpu-only-*):
// cuda-snake-inverse-unrounded, cuda-col2im-additions-unrounded, cuda-cudnn-conv1d-flipped-kernel and
// cuda-cudnn-conv1d-bias-not-prefilled. A statistic that no catalogued mutation moves says "none".
// conv (cuBLAS channels-last is the worst run: one GEMM over all B*T rows for a 1x1 conv): median 0, mean 0.826
//   (realdims/seed1/dec_in_proj), p99.9 225 (realdims/seed5/dec_in_proj: 1408 values, its second-largest),
//   max_conditioned 1, zero_max 0, exact 0.676 (unit_stride/seed1/dec_in_proj) | cuDNN flipped kernel: median 334,
//   mean 5289, p99.9 6.6e5, exact 0; bias not prefilled: max_conditioned 1618; zero_max none.
inline constexpr StageBound kCudaConv{{0.5, 1.0, 512.0, 4.0, 8.0}, 0.6};
// snake, tanh: bit-exact on every run (exact 1, every statistic 0) | snake: cuda-snake-inverse-unrounded mean 0.308,
//   p99.9 4, max_conditioned 4, exact 0.809 (median 0, zero_max none); tanh: none at this gate (cuda-tanh-dropped
//   is killed end to end by gate_vocoder_device_cuda).
inline constexpr StageBound kCudaSnake{{0.5, 0.01, 1.0, 1.0, 8.0}, 0.995};
// conv_transpose (cuBLAS + col2im on every run): exact 0.99961, mean 0.00039, p99.9 0, max_conditioned 2
//   (realdims/seed0/blocks.2.conv_t1), zero_max 0 | cuda-col2im-additions-unrounded: exact 0.756, mean 0.391,
//   p99.9 32, max_conditioned 3 (realdims/seed0/blocks.2.conv_t1), zero_max 0.25 (realdims/seed3/blocks.2.conv_t1).
inline constexpr StageBound kCudaConvTranspose{{0.5, 0.05, 2.0, /*max_conditioned*/ 2.5, /*zero_max*/ 0.125}, 0.99};
// residual unit (cuBLAS channels-last is the worst run): exact 0.815, mean 0.919, p99.9 128, max_conditioned 16
//   (realdims/seed4/blocks.2.res_unit3), zero_max 2 (narrow/seed3/blocks.1.res_unit1) | cuda-snake-inverse-unrounded:
//   exact 0.600, mean 2.77, p99.9 640, max_conditioned 24 (realdims/seed5/blocks.3.res_unit2), zero_max 5
//   (realdims/seed5/blocks.2.res_unit3); the cuDNN mutations median >= 183, zero_max >= 904.
inline constexpr StageBound kCudaResidualUnit{{0.5, 2.5, 512.0, /*max_conditioned*/ 20.0, /*zero_max*/ 4.0}, 0.75};
inline constexpr StageBound kCudaTanh{{0.5, 0.01, 1.0, 1.0, 8.0}, 0.995};

inline const StageBound& for_kind(vocoder::Stage::Kind k, bool cuda) {
  using K = vocoder::Stage::Kind;
  switch (k) {
    case K::DecInProj: case K::ConvIn: case K::ConvOut: return cuda ? kCudaConv : kConv;
    case K::BlockSnake: case K::SnakeOut: return cuda ? kCudaSnake : kSnake;
    case K::BlockUp: return cuda ? kCudaConvTranspose : kConvTranspose;
    case K::ResidualUnit: return cuda ? kCudaResidualUnit : kResidualUnit;
    case K::Tanh: return cuda ? kCudaTanh : kTanh;
  }
  return kConv;
}

}  // namespace music3::gates::vocoder_stage_bounds
