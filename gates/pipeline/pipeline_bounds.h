// The pipeline gates' bands (pipeline.e2e: each stage fed upstream's input; pipeline.whole: run_generate, each
// stage fed the engine's own output), each between the correct engine's worst over the songs of the pipeline
// oracle (tiny_w1_seed0-5, tiny_w2_seed0-1, odd_w2_seed0: the nine the latent and hidden bands were measured on;
// tiny_qwen_w1_seed0-5, the real vocabulary, added since and inside every band; on branch generate3 the two 8.4 s
// tiny songs became tiny_10s_seed0 and tiny_16s_seed1 (same sampling seeds, longer) and tiny_eos_seed2 was added,
// each inside every band but the latents' zero bucket (below); the seven heads songs (LM head_dim 128, GQA 4:1:
// not bit-exact with torch) joined in session 7, inside every band but the whole gate's latents p99.9 (below); host
// arms, CPU) and the tightest
// catalogued mutation it must catch (mutations/catalogue/pipeline.json; numbers beside each bound).
#pragma once
#include "gates/lib/gate_record.h"
#include "gates/lm/lm_bounds.h"

namespace music3::gates::pipeline_bounds {

// frame_hiddens, teacher forced: the LM parity band (same stage, same statistic; gates/lm/lm_bounds.h). Correct
// worst here: median 0, mean 0.00025, p99.9 0, max_conditioned 2 (odd_w2_seed0; the tiny songs are bit-exact).
inline constexpr UlpBounds kFrameHiddens = lm_bounds::kHidden;

// Window latents (the condition encoder and DiT host arms in the window loop, recorded noise), both gates.
// Correct worst: median 0, mean 1.364, p99.9 180 (tiny_w2_seed1), max_conditioned 10 (tiny_w1_seed3), bit-exact
// fraction 0.589 (tiny_w1_seed5); with the heads songs, mean 2.953 and p99.9 792 (heads_w1_seed1, whole gate),
// max_conditioned 10 (heads_w2_seed0), bit-exact fraction 0.527 (heads_w1_seed2, whole gate). The arms' rare roundings that differ from torch compound over 2N DiT
// calls (gates/acoustic/loop_bounds.h), hence the tail.
// Tightest mutation: the final overlap splice one column short (pipeline-join-window-splice-off-by-one, the patch of
// acoustic_loop's loop-final-splice-off-by-one), max_conditioned 27 / 28 / 39 on odd_w2_seed0 / tiny_w2_seed0 /
// tiny_w2_seed1 (mean 0.75-1.43, exact fraction >= 0.61: only max_conditioned separates it). The finest rounding
// mutations stay inside the arms' spread, as in loop_bounds.h: loop-guidance-shift-unrounded measured here gives
// median 0, mean <= 1.88, p99.9 <= 320, max_conditioned <= 8, exact fraction >= 0.57 (the teacher-forced loop gate
// catches it bit-exactly). The structural joins (teacher noise ignored, steps not threaded) move the median.
// Zero bucket: correct worst 0.594 (tiny_16s_seed1, the one latent upstream gives exactly 0: the engine's is 0.0046,
// in both gates; 0 on every other song); the bound moved from 0.5 to 1.0 for it. No catalogued mutation is caught
// by this statistic alone (the latents' mutations above move max_conditioned or the median).
// zero_max: correct worst 0.594 (CPU, 16 songs; 3 exact-zero references) | tightest mutation
// pipeline-join-steps-not-threaded: 1.84 (tiny_16s_seed1, whole gate), then pipeline-join-teacher-noise-ignored 128
// (tiny_10s_seed0); the other eight latents-reaching mutations leave it at 0.594. From the [stats] lines of the CPU
// battery at b2fc5e8 (reports/mutations/pipeline/2026-12-01-b2fc5e824adb-cpu/log/; 36/36 as expected), whose
// engine, pipeline gates and pipeline oracle are this tree's.
// p99.9: correct worst 792 (heads_w1_seed1, whole gate: the DiT fed the engine's own frame_hiddens, which at the
// heads geometry differ from torch's by mean 0.5 ULP; 1,376 latents, so p99.9 is the second largest ratio, of a
// latent near zero: max_conditioned there is 5); it was 180 (tiny_w2_seed1) before the heads songs, the bound 600 |
// tightest mutation that p99.9 separates: pipeline-join-steps-not-threaded 2,608 (whole gate; the battery at
// b2fc5e8), which max_conditioned (40) catches as well; the window splice off by one reaches 192.
inline constexpr UlpBounds kLatents{/*median*/ 0.5, /*mean*/ 4.0, /*p999*/ 1500.0, /*max_conditioned*/ 20.0,
                                      /*zero_max*/ 1.0};  // zero_max 0.594 | 1.84; p99.9 792 | 2,608
inline constexpr double kLatentsMinExactFraction = 0.45;

// The audio bands are in f32 ULPs (the stitched audio is f32; gates/lib/ulp_stats.h), measured on branch
// generate2 over the fifteen songs (host arms, CPU). The vocoder's output is bf16, widened to f32 by the stitch, so
// every difference is a whole number of bf16 steps: 65,536 f32 ULPs each within a binade. The bounds are the bf16
// bands this gate had, times 65,536 (the correct worst moved with the scale, the placement with it).
// Tightest catalogued mutations (battery at ad84327, f32 ULPs): pipeline-join-stitch-streams-swapped, e2e: median
// 393,216 on every song, mean >= 495,200 (tiny_w1_seed5), p99.9 >= 2.9e6, max_conditioned >= 7.9e6;
// pipeline-join-windows-reversed, whole: median 393,216, mean 484,700, p99.9 2.687e6, max_conditioned 6.9e6
// (tiny_w2_seed1/0); the window and crop length mutations change the sample count (caught exactly).

// Audio from upstream's latents (vocoder host arm + stitching). Correct worst: median 0, mean 989.8
// (tiny_qwen_w1_seed5), p99.9 131,072 (tiny_qwen_w1_seed5), max_conditioned 262,144 (tiny_w1_seed3), bit-exact
// fraction 0.986 (tiny_qwen_w1_seed5). zero_max: correct worst 0 | tightest mutation: none reaches it, the songs'
// audio holds no exact-zero sample (0 in the 16 songs of the battery at b2fc5e8, e2e and whole gates alike).
inline constexpr UlpBounds kAudio{/*median*/ 0.5, /*mean*/ 6553.6, /*p999*/ 262144.0, /*max_conditioned*/ 786432.0,
                                    /*zero_max*/ 0.5};  // zero bucket: correct worst 0 | unreachable (see above)
inline constexpr double kAudioMinExactFraction = 0.95;

// Audio of the whole run (the vocoder on the engine's latents, whose few differing values it spreads). Correct
// worst: median 0, mean 30,028.8 (tiny_w1_seed5), p99.9 196,608, max_conditioned 393,216 (tiny_w2_seed0/1), bit-exact
// fraction 0.586 (tiny_w1_seed2); the songs whose latents are bit-exact (tiny_w1_seed0, seed4, tiny_qwen_w1_seed0,
// 2, 3, 5) keep 0.98. Any differing latent moves ~41 % of the samples by a few bf16 steps
// (loop-guidance-shift-unrounded: exact fraction 0.584-0.589 on every tiny song), so this band guards the
// structure (stream order, window order and length, stitching), whose mutations move the median; the latents band
// above carries the finer checks.
inline constexpr UlpBounds kWholeAudio{/*median*/ 0.5, /*mean*/ 131072.0, /*p999*/ 786432.0,
                                         /*max_conditioned*/ 1572864.0,
                                         /*zero_max*/ 0.5};  // correct worst 0 | unreachable: no exact-zero sample
inline constexpr double kWholeAudioMinExactFraction = 0.45;

}  // namespace music3::gates::pipeline_bounds
