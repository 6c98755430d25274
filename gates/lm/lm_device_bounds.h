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

inline constexpr UlpBounds kCpuHidden{
    /*median*/ 2.0,           // correct worst 1 (frame_hiddens) | tightest defect 1 (gross defects only)
    /*mean*/ 4.0,             // correct worst 2.60 (frame_hiddens) | tightest defect 5.18 (frame_hiddens), 5.91 prefill
    /*p999*/ 800.0,           // correct worst 163               | tightest defect 1494 (last_hidden)
    /*max_conditioned*/ 12.0, // correct worst 8 (prefill)       | tightest defect 14 (frame_hiddens), 17 prefill
};
inline constexpr UlpBounds kCpuLogits{
    /*median*/ 0.5,           // correct worst 0                 | tightest defect 1
    /*mean*/ 10.0,            // correct worst 3.07              | tightest defect 24.6
    /*p999*/ 600.0,           // correct worst 324               | tightest defect 864
    /*max_conditioned*/ 24.0, // correct worst 15                | tightest defect 34
};
// CUDA (the H200, sm_90): measured at ad92c1a over the 24 cases ("correct worst") and the GPU battery's
// mutations of the CUDA path in the same build ("tightest defect": the smallest of the mutations' worst values
// that this statistic must catch; reports/mutations/lm/2026-12-01-ad92c1a57019-gpu). The GEMV tree, cuBLAS in
// the prefill and the chunked decode attention make CUDA's orders differ from the host arm's.
inline constexpr UlpBounds kCudaHidden{
    /*median*/ 2.0,           // correct worst 1 (gqa128 frame_hiddens) | tightest defect 24 (head-norm-first-ignored)
    /*mean*/ 12.0,            // correct worst 4.39 (gqa128 frame_hiddens) | tightest defect 48.1 (gqa-combine-unscaled)
    /*p999*/ 1500.0,          // correct worst 420                  | tightest defect 8876 (gqa-combine-unscaled)
    /*max_conditioned*/ 32.0, // correct worst 8 (eos last_hidden)  | tightest defect 235 (gqa-combine-unscaled)
};
inline constexpr UlpBounds kCudaLogits{
    /*median*/ 0.5,           // correct worst 0                    | tightest defect 20 (gqa-prefill-self-excluded)
    /*mean*/ 12.0,            // correct worst 3.69 (gqa128)        | tightest defect 75.7 (gqa-combine-unscaled)
    /*p999*/ 1000.0,          // correct worst 379 (gqa128)         | tightest defect 5821 (gqa-combine-unscaled)
    /*max_conditioned*/ 80.0, // correct worst 31 (eos seed3)       | tightest defect 658 (gqa-combine-unscaled)
};

}  // namespace music3::gates::lm_device_bounds
