// The arms an A/B run compares. Asked for one repetition, an arm runs `warmup` untimed
// frames, then `frames` timed frames, and returns their milliseconds.
// Specs:
//   depth:ARM:DEVICE[:GEOMETRY]        this binary's DepthEngine (ARM host|device|auto,
//                                      DEVICE cpu|cuda, GEOMETRY full|mid|tiny; default full)
//   peer:VARIANT:DEVICE[:GEOMETRY]     bench/depth/torch_depth_peer.py --serve, VARIANT
//                                      upstream|kv|graph (a PyTorch reference, not gated)
//   cmd:COMMAND                        any command speaking the peer protocol (peer_process.h)
//   music3:PATH:ARM:DEVICE[:GEOMETRY]  a build's `music3 depth --json`, one process per repetition
//   vocoder:ARM:DEVICE[:GEOMETRY[:LATENTS]]   this binary's vocoder, one window per frame (vocoder_in_process_arm.h)
//   vocoder-peer:VARIANT:DEVICE[:GEOMETRY[:LATENTS]]  bench/vocoder/torch_vocoder_peer.py --serve, VARIANT
//                                      upstream|folded (the diffusers vocoder, a PyTorch reference, not gated)
//   lm:ARM:DEVICE[:GEOMETRY[:KV]]      this binary's LM, one step (decode + sliced head) per frame
//                                      (lm_in_process_arm.h; GEOMETRY full|small, KV default 300)
//   lm-peer:VARIANT:DEVICE[:GEOMETRY[:KV]]  bench/lm/torch_lm_peer.py --serve, VARIANT upstream|static_graph
//                                      (a PyTorch reference, not gated)
//   generate:ARM:DEVICE:CHECKPOINT[:DURATION[:STEPS]]  this binary's whole `music3 generate` (EOS masked), one
//                                      song per frame, on a pipeline folder (generate_in_process_arm.h)
//   generate-peer:DEVICE:CHECKPOINT[:DURATION[:STEPS]]  bench/pipeline/diffusers_pipeline_peer.py --serve: the
//                                      diffusers MiniMaxMusic3ModularPipeline (EOS masked), one song per frame
//   generate:ARM:DEVICE:CHECKPOINT[:DURATION[:STEPS]]  this binary's whole `music3 generate` (EOS masked), one
//                                      song per frame, on a pipeline folder (generate_in_process_arm.h)
//   generate-peer:DEVICE:CHECKPOINT[:DURATION[:STEPS]]  bench/pipeline/diffusers_pipeline_peer.py --serve: the
//                                      diffusers MiniMaxMusic3ModularPipeline (EOS masked), one song per frame
//   any in-process spec above + `+disable=NAME[,NAME...]` / `+enable=NAME[,NAME...]`: the same arm under its own
//                                      provider set (provider_set_arm.h), for one-binary A/B runs of a provider
// Contract: make_arm() throws std::invalid_argument naming the spec and what is wrong;
// gated_binary() is the path of the binary whose gates decide whether a verdict may be
// given (empty for a reference peer, which has no gates of ours).
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace music3::bench {

class Arm {
 public:
  virtual ~Arm() = default;
  virtual std::vector<double> run_repetition(int warmup, int frames) = 0;
  virtual nlohmann::json describe() const = 0;
  virtual std::string gated_binary() const = 0;
};

struct ArmContext {
  std::string source_dir;  // where bench/<component>/ (the peers) lives
  std::string python = "python3";
  uint64_t seed = 0;       // weights, inputs and draws
  int threads = 0;         // CPU threads of in-process arms (0: all cores)
  int peer_timeout_s = 600;
};

std::unique_ptr<Arm> make_arm(const std::string& spec, const ArmContext& ctx);

// One repetition of an in-process arm: `warmup` untimed calls of one_frame(), then the ms of `frames` timed ones.
template <class OneFrame>
std::vector<double> timed_frames(int warmup, int frames, OneFrame&& one_frame) {
  for (int i = 0; i < warmup; ++i) one_frame();
  std::vector<double> ms;
  for (int i = 0; i < frames; ++i) ms.push_back(one_frame());
  return ms;
}

// The path of the running executable (what in-process arms time).
std::string self_executable();

}  // namespace music3::bench
