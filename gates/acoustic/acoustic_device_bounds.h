// Bounds of the acoustic device gate (the device arms against the host arms on the 24 oracle cases, the golden
// inputs fed to both). Each sits between the correct device arm's worst over every case ("correct worst",
// measured on the CPU providers at the commit that set it) and the tightest catalogued mutation of the device
// path it must catch (that mutation's worst case, mutations/catalogue/acoustic.json, ids acoustic-dev-*).
// Figures: correct worst at 6e0ad25; mutations from the CPU battery at d24747c (15/15 killed), its logs under
// reports/mutations/acoustic/2026-12-01-d24747caa997-cpu-in-diff/log/. zero_max, both: at 9edfe2a, the 16
// catalogued acoustic-dev-* mutations of gate_acoustic_device re-run with MUSIC3_GATE_RECORD_DIR (DiT: 104
// exact-zero references over the 24 cases; the encoder's output has none). Three leave the DiT's zero_max at the
// correct worst 6 (encoder-taps-reversed, dit-ops-list-missing-attention, dit-rotary-table-aux: caught otherwise);
// the others move it to >= 121.5. The device path has no subtle catalogued
// defect yet (every one is structural), so the bounds sit near the correct worst, like the oracle parity gate's.
// The CPU providers differ from the host arm only in summation orders (the GEMMs' dot order, LayerNorm's two-pass
// moments instead of torch's Welford, attention's 64-key tiles instead of 512, the Conv1d provider's order);
// the bf16 network amplifies a flipped rounding through attention, as in the oracle parity gate. CUDA adds its
// own orders (cuBLAS, the tensor-core attention or cuDNN's SDPA, exp2): its bounds are below, measured on the H200.
#pragma once
#include "gates/lib/gate_record.h"

namespace music3::gates::acoustic_device_bounds {

// The DiT's velocities, both branches.
inline constexpr UlpBounds kCpuDit{
    /*median*/ 4.0,            // correct worst 2 (quiet/seed1 v_uncond) | tightest mutation 117 (acoustic-dev-cpu-attention-no-rescale)
    /*mean*/ 24.0,             // correct worst 15.11 (quiet/seed1 v_uncond) | tightest mutation 703.1 (acoustic-dev-cpu-attention-no-rescale)
    /*p999*/ 8192.0,           // correct worst 5376 (quiet/seed1 v_uncond) | tightest mutation 141400 (acoustic-dev-dit-branches-swapped)
    /*max_conditioned*/ 64.0,  // correct worst 36 (tiny/seed2 v_uncond) | tightest mutation 1431 (acoustic-dev-cpu-matmul-bias-dropped)
    /*zero_max*/ 12.0,         // correct worst 6 (odd/seed0 v_cond) | tightest mutation 121.5 (acoustic-dev-cpu-matmul-bias-dropped, realhead/seed4 v_uncond)
};
// The condition encoder's output (one conv of the same inputs: only the conv's summation order differs).
inline constexpr UlpBounds kCpuEncoder{
    /*median*/ 0.5,           // correct worst 0 | tightest mutation 278 (acoustic-dev-encoder-taps-reversed)
    /*mean*/ 0.5,             // correct worst 0.00097 (odd/seed5) | tightest mutation 4167
    /*p999*/ 4.0,             // correct worst 0 | tightest mutation 892700
    /*max_conditioned*/ 4.0,  // correct worst 1 (realhead/seed1) | tightest mutation 3233
    /*zero_max*/ 2.0,         // correct worst 0 | tightest mutation: none reaches it (no exact-zero reference in the 24 cases)
};
// CUDA, measured on the H200 at cc55b69 (gate records of `ctest -L gpu`, 24 cases, both attention providers):
//   cuda.self_attention.cudnn (preferred where built; gate_acoustic_device_cuda): DiT median 2, mean 5.71 (odd/seed3
//   v_cond), p99.9 448, max_conditioned 33 (quiet/seed5 v_uncond), zero_max 6;
//   cuda.self_attention (ours; gate_acoustic_device_cuda_without_cudnn, and the default where cuDNN's frontend is
//   not built): median 2, mean 14.39 (quiet/seed1 v_uncond), p99.9 5376, max_conditioned 36 (tiny/seed2), zero_max 6;
//   the encoder as on the CPU (mean 0.00097, max_conditioned 1). One set holds both providers: the CPU bounds, and
//   zero_max at twice the worst. Re-measured at e7749cf (reports/gates/all/2026-12-02-e7749cf-h200-worsts.md): the
//   same worsts but p99.9 500 (cuDNN, realhead/seed2) and max_conditioned 27 / 33.
//   Tightest CUDA mutations, the GPU batteries at 2eff305 and 048daab (reports/mutations/acoustic/2026-12-02-*-gpu-*):
//   all 17 acoustic CUDA mutations killed; each one's worst over its cases, the least of them per statistic: median
//   42, mean 182.3, p99.9 12,800, max_conditioned 498 (acoustic-dev-cuda-cudnn-rope-vec8-high-half-unwritten),
//   zero_max 61.2 (acoustic-dev-cuda-matmul-tuned-off-stream). None moves the encoder's statistics past the correct
//   arm's (max_conditioned 1), so kCudaEncoder's tightest stays the CPU mutations'.
inline constexpr UlpBounds kCudaDit{/*median*/ 4.0, /*mean*/ 24.0, /*p999*/ 8192.0, /*max_conditioned*/ 64.0,
                                    /*zero_max*/ 12.0};
inline constexpr UlpBounds kCudaEncoder{/*median*/ 0.5, /*mean*/ 0.5, /*p999*/ 4.0, /*max_conditioned*/ 4.0, /*zero_max*/ 4.0};

}  // namespace music3::gates::acoustic_device_bounds
