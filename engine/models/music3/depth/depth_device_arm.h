// The device arm: the depth stage over the op entry points, on any queue that has
// providers (CPU queue with the CPU providers, CUDA queue with the CUDA ones).
// Staging merges to_q|to_k|to_v into one [3H, H] and gate_proj|up_proj into one
// [2I, H], and copies every weight to the queue's device once, straight from the
// host weights (no host staging copy); the K/V cache and every activation are drawn
// from the device pool once, so frames cost no backend allocation. ops() lists every
// op the arm issues: the selector refuses a device lacking any of them, and the
// reachability gate checks the list against the provider table's record. The whole frame stays on the device: projection, heads, CFG, top-k and
// the draw included; the host uploads the frame's inputs once and reads back the
// codes and hiddens once. Where the backend has graphs (CUDA), the frame body is
// captured once per feed mode and replayed. Counters: device_forwards moves by one
// per forward call the frame executes: forward() counts each call it issues, and a
// replayed graph adds the count its capture recorded (body_forwards_).
// Thread-safety: one thread at a time (it owns its queue's buffers and graphs).
#pragma once
#include <span>
#include <vector>

#include "engine/core/backend.h"
#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/models/music3/depth/depth_arm.h"
#include "engine/models/music3/depth/depth_weights.h"
#include "engine/ops/registry.h"
#include "engine/runtime/frame_graph.h"
#include "engine/runtime/resident_set.h"

namespace music3::depth {

class DepthDeviceArm final : public DepthArm {
 public:
  DepthDeviceArm(const DepthWeights& weights, const Queue& q, DevicePool& pool, DepthInstruments& instruments);
  DepthDeviceArm(const DepthDeviceArm&) = delete;
  DepthDeviceArm& operator=(const DepthDeviceArm&) = delete;
  ArmKind kind() const override { return ArmKind::Device; }
  FrameResult run_frame(const FrameInputs& in, FrameTrace* trace) override;
  static std::span<const ops::OpId> ops();
  // The AR loop's device-resident frame (ar_device_loop.h): run_frame() is its inputs uploaded into
  // input_last_hidden() [2, H] and input_c0() [1, H], then issue_frame() (the frame's work issued on the queue,
  // nothing waited for) and collect_frame() (its codes and hiddens read back: waits). The device path fills the
  // inputs on the device, reads codes() there, and collects in two parts: issue_collect() queues the read-back
  // (codes, hiddens, the non-finite count) into host staging, and taken_frame() reads the staging once the caller
  // has waited for the queue to pass a later mark (backend.h), so the host need not wait for work queued after it.
  void issue_frame(uint64_t frame, const DrawSource& draws, const int32_t* forced_codes);
  FrameResult collect_frame(FrameTrace* trace);
  void issue_collect();
  FrameResult taken_frame(FrameTrace* trace);
  const Tensor& input_last_hidden() const { return in_last_hidden_; }
  const Tensor& input_c0() const { return in_c0_; }
  const Tensor& codes() const { return codes_; }  // i32 [steps]: c1..c_steps of the frame issued last
  const Tensor& audio_embeddings() const { return audio_embeddings_; }  // [steps vocab, H], staged

 private:
  struct Layer {
    Tensor in_norm, post_norm, wqkv, wo, w_gate_up, w_down;
  };
  Tensor resident(DType dt, Shape shape, bool forward_buffer) { return held_.resident(dt, shape, forward_buffer); }
  // src[t] is the projected element for new position pos + t: [2,H], or [1,H] shared by both rows.
  void forward(const Tensor* src, int pos, int n, const Tensor& out);
  // Everything between the uploads and the read-back: 7 calls, heads, CFG, top-k, draws.
  void issue_frame_body(bool forced);

  const DepthConfig cfg_;
  Queue q_;
  DepthInstruments& ins_;
  runtime::ResidentSet held_;
  runtime::FrameGraph graph_;  // one mode per feed: own codes, forced codes
  uint64_t issued_forwards_ = 0;    // forward() calls issued so far (direct or into a capture)
  uint64_t body_forwards_[2] = {};  // per feed mode: the calls the last issued frame body holds
  Tensor projection_, pos_embedding_, audio_embeddings_, norm_;
  std::vector<Tensor> heads_;
  std::vector<Layer> layers_;
  // Activations, position-major rows [t][b], at most 4 rows.
  Tensor x_, h_, h_mid_, a_, qkv_, attn_, o_, gate_up_, act_, d_, logits_, final_hidden_;
  Tensor in_last_hidden_, in_c0_, embed_row_, proj_row_;
  // Sampler buffers (f32/i32/u32: outside the forward's bf16 contract).
  Tensor draws_, guided_, codes_, forced_, nonfinite_;
  Tensor kv_k_, kv_v_;
  HostStaging frame_host_;  // the read-back: codes i32 [steps], the non-finite count i32, final_hidden bf16
};

}  // namespace music3::depth
