// The window-loop oracle as the gates see it: every (geometry, seed) of oracle_bridge/goldens/acoustic_loop/
// manifest.json and its golden, as the `acoustic_loop_oracle` fixture regenerated it into
// MUSIC3_ACOUSTIC_LOOP_ORACLE_DIR (default: the configure-time build/acoustic_loop_oracle), verified by sha256
// against the manifest before it is read. A golden holds upstream's MiniMaxMusic3CoreDenoiseStep run on a tiny
// condition encoder and DiT: the inputs, the recorded noise, the encoder's outputs, every DiT call's inputs and
// outputs, and the final latents per window (oracle_bridge/acoustic_loop/loop_goldens.py).
// Contract: every reader throws std::runtime_error naming the file and tensor. Thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::gates {

struct LoopCase {
  std::string geometry;
  int seed = 0;
  std::string name() const { return geometry + "/seed" + std::to_string(seed); }
};

struct LoopWindowGolden {
  int64_t start = 0, length = 0;
  std::vector<bf16> noise;          // [C][L]
  std::vector<bf16> condition;      // [L][D], the encoder's output
  std::vector<bf16> dit_condition;  // [L][D], after the overlap splice
  std::vector<float> sigmas;        // [N+1]
  std::vector<bf16> dit_x;          // [N][C][L]
  std::vector<bf16> dit_t;          // [N]
  std::vector<bf16> v_cond, v_uncond;  // [N][C][L]
  std::vector<bf16> latents;        // [C][L]
};

struct LoopGolden {
  int64_t frames = 0, frame_width = 0, channels = 0, cond_channels = 0;
  int steps = 0;
  std::vector<bf16> frame_hiddens;  // [F][width]
  std::vector<LoopWindowGolden> windows;
};

std::vector<LoopCase> loop_cases();  // every geometry x seed of the manifest
LoopGolden load_loop_golden(const LoopCase& c);
// The case's checkpoint root (condition_encoder/ and transformer/), after both weight files' sha256 checks.
std::string loop_checkpoint_root(const LoopCase& c);
std::string loop_golden_file(const LoopCase& c);  // after its sha256 check
std::string loop_schedules_file();  // goldens/schedules.safetensors, after its sha256 check
std::vector<int> loop_schedule_steps();
std::vector<bf16> read_bf16(const std::string& file, const std::string& tensor, std::vector<int64_t>* shape = nullptr);
std::vector<float> read_f32(const std::string& file, const std::string& tensor, std::vector<int64_t>* shape = nullptr);

}  // namespace music3::gates
