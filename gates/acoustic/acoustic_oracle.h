// The acoustic oracle as the gates see it: every (geometry, seed) of oracle_bridge/goldens/acoustic/manifest.json,
// its committed golden (frames, condition, latents, timestep, v_cond, v_uncond), and its checkpoint as the
// `acoustic_oracle` fixture regenerated it (every file of the case's condition_encoder/ and transformer/ checked
// by sha256 against the manifest before it is loaded, so a gate never compares against weights the goldens were
// not made from). Paths: gates/lib/oracle_paths.h for the goldens, MUSIC3_ACOUSTIC_ORACLE_DIR (default: the
// configure-time build/acoustic_oracle) for the checkpoints. Every reader throws naming the file and tensor.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/acoustic/condition_encoder_weights.h"
#include "engine/models/music3/acoustic/dit_weights.h"

namespace music3::gates {

struct AcousticCase {
  std::string geometry;
  int seed = 0;
  std::string name() const { return geometry + "/seed" + std::to_string(seed); }
};

struct GoldenTensor {
  std::vector<int64_t> shape;
  std::vector<bf16> data;
};

std::vector<AcousticCase> acoustic_cases();  // every geometry x seed of the manifest
std::string acoustic_checkpoint_dir(const AcousticCase& c);  // holds condition_encoder/ and transformer/
void verify_acoustic_checkpoint(const AcousticCase& c);      // sha256 of every file against the manifest
acoustic::ConditionEncoderWeights load_encoder_case(const AcousticCase& c);
acoustic::DitWeights load_dit_case(const AcousticCase& c);
std::string acoustic_golden(const AcousticCase& c);
GoldenTensor read_golden(const std::string& file, const std::string& tensor);

}  // namespace music3::gates
