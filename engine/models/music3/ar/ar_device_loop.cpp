#include "engine/models/music3/ar/ar_device_loop.h"

#include <vector>

#include "engine/core/backend.h"
#include "engine/models/music3/ar/ar_iteration.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/ops/lm_ops.h"
#include "engine/ops/ops.h"
#include "engine/ops/registry.h"

namespace music3::ar {

std::optional<DeviceFrameArms> device_frame_arms(const ArModels& m, const ArOptions& o, const ArTrace* trace) {
  if (trace || o.teacher) return std::nullopt;
  DeviceFrameArms arms{dynamic_cast<lm::LmDeviceArm*>(&m.lm), m.depth.device_arm()};
  if (!arms.lm || !arms.depth || !arms.lm->code_embeddings().data) return std::nullopt;
  const Queue& q = arms.lm->queue();
  const Queue& dq = m.depth.queue();
  if (q.device != dq.device || q.ordinal != dq.ordinal || q.stream != dq.stream) return std::nullopt;
  const auto& reg = ops::registry();
  for (const ops::OpId op : {ops::OpId::LmSample, ops::OpId::FeedbackEmbedding, ops::OpId::EmbeddingGather})
    if (!reg.has(op, q.device)) return std::nullopt;
  return arms;
}

void run_device_iterations(const ArModels& m, const DeviceFrameArms& arms, const ArOptions& o, ArResult& r) {
  lm::LmDeviceArm& lm = *arms.lm;
  depth::DepthDeviceArm& depth = *arms.depth;
  const Queue& q = lm.queue();
  Backend& be = *q.backend;
  const auto& dc = m.depth.config();
  const int64_t H = m.lm_weights.cfg.hidden;
  const int S = dc.steps(), A = dc.vocab, C = dc.codebooks;
  const float scale = feedback_scale(C);
  std::vector<float> lm_slice;
  HostStaging last(be, sizeof(bf16) * size_t(H));  // the frame's LM hidden, conditional row
  // Placed after the frame's read-backs and before the next decode: the host reads the frame while the decode runs,
  // and issues the next iteration behind it, so the device does not wait for the host between iterations.
  StreamMark frame_read(be);
  r.device_frame = true;
  for (int64_t it = 0; it <= o.max_frames; ++it) {
    lm.issue_sample(lm_draws_for(o.draws, it, lm_slice), o.ignore_eos);
    if (o.draws.depth_replay && it >= o.draws.depth_rows) {  // no draws for a frame: only <|audio_end|> may come
      const lm::LmSample s = lm.read_sample();
      record_sample(r, s);
      if (s.token != lm::kAudioEndId) depth_draws_for(o.draws, it, S, A);  // throws draws_exhausted
      r.eos = true;
      return;
    }
    be.copy(depth.input_last_hidden().data, lm.last_rows().data, depth.input_last_hidden().bytes(),
            CopyKind::DeviceToDevice, q.stream);
    ops::embedding_gather(q, lm.code_embeddings(), lm.sampled_column(), 0, depth.input_c0());
    depth.issue_frame(uint64_t(it), depth_draws_for(o.draws, it, S, A), nullptr);
    lm.issue_read_sample();
    depth.issue_collect();
    if (it > 0) be.copy_to_host_async(last.data(), depth.input_last_hidden().data, last.bytes(), q.stream);
    frame_read.place(q.stream);
    if (it < o.max_frames) {  // the last possible iteration never feeds back
      ops::feedback_embedding(q, {lm.code_embeddings(), lm.sampled_column(), depth.audio_embeddings(), depth.codes(),
                                  lm.decode_input(), A, scale});
      lm.issue_decode();
    }
    frame_read.wait();  // the iteration's one wait
    const lm::LmSample s = lm.taken_sample();
    record_sample(r, s);
    if (s.token == lm::kAudioEndId) {
      r.eos = true;
      return;
    }
    const depth::FrameResult fr = depth.taken_frame(nullptr);
    r.codes.push_back(s.token - lm::kCodeOffset);
    r.codes.insert(r.codes.end(), fr.codes.begin(), fr.codes.end());
    if (it == 0) continue;  // the warm-up frame: sampled and fed back, never emitted
    if (emit_frame(r, o, static_cast<const bf16*>(last.data()), H, fr.hidden)) return;
  }
}

}  // namespace music3::ar
