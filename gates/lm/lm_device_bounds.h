// Bounds of the LM device gate (the device arm against the host arm, both through
// ArStage, teacher forced on the 24 oracle cases). Each sits between the correct device
// arm's worst over every case ("correct worst", measured on the CPU providers at the
// commit that set it) and the tightest catalogued mutation of the device path it must
// catch ("tightest defect": that mutation's largest value over the cases):
// lm-dev-cpu-gqa-p-unrounded (the attention's probabilities kept in f32), the smallest
// numeric defect of the catalogue. The CPU providers differ from the host arm only in
// reduction orders (rms sums through dot_bf16_f32, attention's 1/l, the depth device arm
// inside frame_hiddens). Hidden bounds hold for the prefill hidden, every last hidden and
// frame_hiddens. CUDA's bounds are below, measured on the H200.
#pragma once
#include "gates/lib/gate_record.h"

namespace music3::gates::lm_device_bounds {

// Per CFG row (frame_hiddens has no rows), re-measured on the CPU providers at the commit that split them;
// tightest over lm-dev-cpu-gqa-p-unrounded and lm-rope-position-off-by-one.
inline constexpr UlpBounds kCpuHidden{
    /*median*/ 1.5,           // correct worst 1 (frame_hiddens, last_hidden) | tightest 1 (gross defects only)
    /*mean*/ 3.5,             // correct worst 2.60 (frame_hiddens) | tightest 4.58 (rope, frame_hiddens)
    /*p999*/ 450.0,           // correct worst 198.5 (prefill)      | tightest 752 (rope, frame_hiddens)
    /*max_conditioned*/ 11.0, // correct worst 8 (prefill)          | tightest 14 (gqa p unrounded, frame_hiddens)
    /*zero_max*/ 0.9,         // correct worst 0.58 (frame_hiddens) | tightest 1.30 (rope, last_hidden)
};
inline constexpr UlpBounds kCpuLogits{
    /*median*/ 1.0,           // correct worst 1    | tightest 1 (not discriminating)
    /*mean*/ 15.0,            // correct worst 6.14 | tightest 41.0 (gqa p unrounded)
    /*p999*/ 800.0,           // correct worst 593  | tightest 1029 (gqa p unrounded)
    /*max_conditioned*/ 24.0, // correct worst 16   | tightest 34 (gqa p unrounded)
    /*zero_max*/ 0.5,         // correct worst 0 (no zero logit) | tightest none reaches it
};
// CUDA (the H200, sm_90), per CFG row and with the zero bucket: "correct worst" over the 24 cases from the gate
// records of `ctest -L gpu` at 2e56292 (reports/gates/all/2026-12-01-2e56292-h200-worsts.md; the GPU battery's
// verification at a791fdc reproduced every figure); "tightest defect" is the least, over the 10 CUDA-path mutations
// killed by the GPU battery at a791fdc (reports/mutations/lm/2026-12-02-a791fdc8aa80-gpu-only-lm-cuda-layer-norm),
// of each mutation's largest value over the cases and both rows. The CPU's numeric defects (e.g. the attention's
// probabilities kept in f32: hidden mean 4.58) sit inside CUDA's own reduction-order spread (mean 4.39), so on CUDA
// the bounds catch the structural defects and the CPU gate the rounding points.
inline constexpr UlpBounds kCudaHidden{
    /*median*/ 2.0,           // correct worst 1 (gqa128 frame_hiddens, last_hidden) | tightest 17 (qk-norm-rope-k-with-q-norm,
                              // last_hidden cond, odd/seed2); the split-K combine's two defects keep the median at 1
                              // and die on the mean and the maxima
    /*mean*/ 8.0,             // correct worst 4.39 (gqa128/seed0 frame_hiddens)    | tightest 29.9 (gqa-combine-sum-unweighted)
    /*p999*/ 1200.0,          // correct worst 420 (gqa128/seed0 frame_hiddens)     | tightest 6762 (gqa-combine-sum-unweighted)
    /*max_conditioned*/ 16.0, // correct worst 8 (eos/seed3)                        | tightest 126 (gqa-combine-sum-unweighted)
    /*zero_max*/ 1.0,         // correct worst 0.68 (gqa128/seed0 frame_hiddens)    | tightest 29.1 (qk-norm-rope-k-with-q-norm,
                              // prefill cond, gqa128/seed2); the combine defects leave every zero reference alone
};
inline constexpr UlpBounds kCudaLogits{
    /*median*/ 1.5,           // correct worst 1 (gqa128, either row)  | tightest 18 (qk-norm-rope-k-with-q-norm)
    /*mean*/ 15.0,            // correct worst 6.30 (gqa128/seed5 cond) | tightest 33.9 (gqa-combine-sum-unweighted)
    /*p999*/ 1000.0,          // correct worst 635 (gqa128/seed5 cond)  | tightest 2409 (gqa-combine-sum-unweighted)
    /*max_conditioned*/ 64.0, // correct worst 31 (eos/seed3 cond)      | tightest 212.5 (gqa-combine-sum-unweighted)
    /*zero_max*/ 0.5,         // correct worst 0 (no zero logit)        | tightest none reaches it
};

}  // namespace music3::gates::lm_device_bounds
