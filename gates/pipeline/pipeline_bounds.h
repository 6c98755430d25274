// The pipeline gates' bands (pipeline.e2e: each stage fed upstream's input; pipeline.whole: each stage fed the
// engine's own), each between the correct engine's worst over the six songs and the tightest catalogued mutation
// it must catch (both measured; numbers beside each bound; mutations/catalogue/pipeline.json).
// PROVISIONAL: the component gates' own bands until measured here.
#pragma once
#include "gates/acoustic/loop_bounds.h"
#include "gates/lib/gate_record.h"
#include "gates/lm/lm_bounds.h"
#include "gates/vocoder/vocoder_bounds.h"

namespace music3::gates::pipeline_bounds {

inline constexpr UlpBounds kFrameHiddens = lm_bounds::kHidden;
inline constexpr UlpBounds kLatents = loop_bounds::kRealArmsVsOracle;
inline constexpr double kLatentsMinExactFraction = loop_bounds::kRealArmsMinExactFraction;
inline constexpr UlpBounds kAudio = vocoder_bounds::kVsOracle;
inline constexpr double kAudioMinExactFraction = vocoder_bounds::kMinExactFraction;
inline constexpr UlpBounds kWholeAudio = vocoder_bounds::kVsOracle;
inline constexpr double kWholeAudioMinExactFraction = vocoder_bounds::kMinExactFraction;

}  // namespace music3::gates::pipeline_bounds
