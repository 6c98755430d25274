// The vocoder oracle as the gates see it: every (geometry, seed) of oracle_bridge/goldens/vocoder/manifest.json,
// its committed parity golden, the stitching goldens, and each checkpoint as the `vocoder_oracle` fixture
// regenerated it (verified by sha256 against the manifest before it is loaded, so a gate never compares against
// weights the goldens were not made from). Paths: gates/lib/oracle_paths.h for the goldens, and
// MUSIC3_VOCODER_ORACLE_DIR (default: the configure-time build/vocoder_oracle) for the checkpoints and stage records. Every reader throws naming the file and tensor.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/vocoder/vocoder_weights.h"

namespace music3::gates {

struct VocoderCase {
  std::string geometry;
  int seed = 0;
  std::string name() const { return geometry + "/seed" + std::to_string(seed); }
};

struct Bf16Tensor {
  std::vector<int64_t> shape;
  std::vector<bf16> data;
};

std::vector<VocoderCase> vocoder_cases();     // every geometry x seed of the manifest
std::vector<int> vocoder_stitch_seeds();      // the seeds with a stitching golden
std::string vocoder_stitch_geometry();
std::string vocoder_checkpoint_dir(const VocoderCase& c);
vocoder::VocoderWeights load_vocoder_case(const VocoderCase& c);  // after the sha256 check
std::string vocoder_parity_golden(const VocoderCase& c);
std::string vocoder_stitch_golden(int seed);
// The per-stage tensors the `vocoder_stages` fixture (oracle_bridge/vocoder/record_stages.py) wrote for the case
// under MUSIC3_VOCODER_ORACLE_DIR/stages; throws naming the fixture when the file is missing.
std::string vocoder_stage_file(const VocoderCase& c);
Bf16Tensor read_bf16(const std::string& file, const std::string& tensor);
std::vector<float> read_f32(const std::string& file, const std::string& tensor, std::vector<int64_t>* shape = nullptr);

}  // namespace music3::gates
