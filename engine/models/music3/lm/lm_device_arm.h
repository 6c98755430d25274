// The device arm of the language model: Qwen3 over the op entry points (ops.h,
// lm_ops.h), on any queue whose device has providers for ops() (the CPU providers on a
// CPU queue, the CUDA ones on a CUDA queue).
// Staging copies every weight to the queue's device once, straight from the host
// weights, merging q_proj|k_proj|v_proj into one [(nH + 2 nKV) D, H], gate_proj|up_proj
// into one [2I, H] (silu_and_mul reads gate first), and lm_head's sampleable rows
// (row 151670, then rows 151675 ...) into one [16385, H] read by one matmul; the
// embedding table is not staged (the AR loop embeds on the host). prefill() draws the
// sequence's buffers from the device pool (K/V cache [layer][batch][capacity][nKV D]
// bf16, activations for 2 P rows, the rope table of `capacity` positions from
// lm_host_math's rope_table, so cos/sin are the host arm's bf16 values) and runs the
// prompt; decode() uploads the two embeddings and the position (an i32 on the device)
// and runs one step, captured once per sequence where the backend has graphs (CUDA) and
// replayed after; head() runs the sliced head, captured once. sample_last() runs that head
// on the last position's rows of the final-norm buffer (no upload) and, where the op
// lm_sample has an enabled provider on the queue's device, samples there and reads back the
// column and the non-finite count (8 bytes); elsewhere (cuda.lm_sample disabled) it reads
// the logits back and samples on the host: the same bits, by lm_sample's contract. Activation rows are
// position-major ([token][row]). Counters: device_forwards moves by one per prefill or
// decode call; resident_dtypes holds BF16 alone (weights, caches, activations) and
// aux_dtypes the position (I32) and the attention's f32 chunk scratch.
// Thread-safety: one thread at a time (it owns its queue's buffers and graphs).
#pragma once
#include <memory>
#include <span>
#include <vector>

#include "engine/core/backend.h"
#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/models/music3/lm/lm_arm.h"
#include "engine/models/music3/lm/lm_weights.h"
#include "engine/ops/registry.h"
#include "engine/runtime/frame_graph.h"
#include "engine/runtime/resident_set.h"

namespace music3::lm {

class LmDeviceArm final : public LmArm {
 public:
  LmDeviceArm(const LmWeights& weights, const Queue& q, DevicePool& pool, runtime::ArmInstruments& instruments);
  LmDeviceArm(const LmDeviceArm&) = delete;
  LmDeviceArm& operator=(const LmDeviceArm&) = delete;
  runtime::ArmKind kind() const override { return runtime::ArmKind::Device; }
  void prefill(const bf16* embeds, int prompt, int capacity, bf16* last, bf16* all) override;
  void decode(const bf16* embeds, bf16* last) override;
  void head(const bf16* last, bf16* logits) override;
  LmSample sample_last(const LmDraws& draws, bool mask_eos) override;
  // The AR loop's device-resident frame (ar_device_loop.h), each call issuing work on the queue without waiting:
  // issue_sample() is sample_last()'s head and lm_sample op into sampled_column() (needs an lm_sample provider on
  // the device), read_sample() reads that sample back (waits), or in two parts: issue_read_sample() queues its copy
  // into host staging and taken_sample() reads the staging once the caller has waited for the queue to pass a later
  // mark (backend.h); issue_decode() is decode() of decode_input()'s rows,
  // with nothing read back. code_embeddings() is embed_tokens' rows 151674 .. 168058, staged once: row c is sliced
  // column c's embedding (lm_ids.h), row 0 a filler for <|audio_end|>'s column, which is never fed back; empty
  // (data null) for weights without an embedding table of at least 168,059 rows.
  void issue_sample(const LmDraws& draws, bool mask_eos);
  LmSample read_sample();
  void issue_read_sample();
  LmSample taken_sample() const;
  void issue_decode();
  Tensor sampled_column() const;
  Tensor last_rows() const;  // [2, H]: the last position's final-normed hidden (conditional, CFG)
  Tensor decode_input() const;  // [2, H]
  const Tensor& code_embeddings() const { return code_embeddings_; }
  int position() const override { return pos_; }
  const Queue& queue() const { return q_; }
  static std::span<const ops::OpId> ops();

 private:
  struct Layer {
    Tensor in_norm, post_norm, q_norm, k_norm, wqkv, wo, w_gate_up, w_down;
  };
  // The sequence's buffers, drawn at prefill for `rows` activation rows and `capacity` positions.
  Tensor sequence_buffer(DType dt, Shape shape, bool forward_buffer);
  // Every layer over the M = 2 T rows in h_ at positions pos_dev_ .. + T - 1, then the
  // final norm of all M rows into fin_.
  void forward(int T);
  void upload_position(int pos);
  void require_decode_room() const;  // throws: no sequence, or no position left
  // The sliced head of last_rows() into logits_, column 0 of both rows masked when asked.
  void issue_head(bool mask_eos);

  const LmConfig cfg_;
  Queue q_;
  DevicePool& pool_;
  runtime::ArmInstruments& ins_;
  runtime::ResidentSet held_;
  std::vector<Layer> layers_;
  Tensor norm_, head_w_;
  Tensor head_in_, logits_;  // [2, H], [2, 16385]
  Tensor draws_, sample_;     // lm_sample's recorded draws f32 [16385]; its column and count i32 [2]
  Tensor code_embeddings_;    // [16385, H]
  runtime::FrameGraph head_graph_;
  // Per sequence (prefill).
  std::vector<DeviceBuffer> seq_;
  std::unique_ptr<runtime::FrameGraph> step_graph_;
  Tensor h_, h_mid_, a_, qkv_, attn_, o_, gate_up_, act_, d_, fin_, cos_, sin_, pos_dev_, scratch_, k_cache_, v_cache_;
  int pos_ = 0, capacity_ = 0;
  int last_row_ = -1;     // fin_'s row of the last position's conditional row (the CFG row follows it)
  int32_t pos_host_ = 0;  // the source of the position's upload
  HostStaging sample_host_;  // i32 [2], column and non-finite count: the sample's read-back
};

}  // namespace music3::lm
