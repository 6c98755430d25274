// Gate lm.device: the LM device arm (LmDeviceArm over the op seam) against the host arm,
// through the production call site (ArStage) on the gate's queue (--device cpu: the CPU
// providers; --device cuda: the CUDA providers, exit 77 without a GPU), on every geometry
// and seed, teacher forced with upstream's tokens and codes and its recorded draws:
//  - band: the prefill's final hidden, the last hidden of every iteration, the sliced logits
//    and frame_hiddens of the device run against the host run (ULP statistics,
//    lm_device_bounds.h); every sampled token equal up to a shared near-tie; no non-finite logit;
//  - reachability: the device arm's forward counter equals 1 (prefill) + the decode steps,
//    the host arm's stays 0;
//  - declared ops (own generator, so the depth stage draws on the device): the ops the stage ran on the device are exactly those the LM and depth
//    device arms declare (ops(), what the selector checks providers for), each LM op run;
//  - residency: every forward buffer bf16 (weights, caches, activations), the position
//    (i32) and the attention's chunk scratch (f32) aux; weights staged once, every tensor
//    but the embedding table (the merged q|k|v, gate|up and sliced head included), of which
//    only the 16,385 rows the device-resident frame gathers from;
//  - non-finite: a final-norm weight made NaN reaches every logit of the device run, and
//    the loop counts non-finite logits instead of failing silently;
//  - repeatability: two runs with the engine's own generator give identical tokens, codes
//    and frame_hiddens (CPU: on 1 and 2 threads);
//  - untraced sampling: a run that asks the arm for each sample alone (on the device where lm_sample has a
//    provider there) samples the traced run's tokens bit for bit, also with recorded draws and ignore_eos.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "engine/core/dtype.h"
#include "engine/models/music3/depth/depth_device_arm.h"
#include "engine/models/music3/depth/depth_loader.h"
#include "engine/models/music3/lm/lm_device_arm.h"
#include "engine/ops/registry.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_loader.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lib/near_tie.h"
#include "gates/lm/lm_device_bounds.h"
#include "gates/lm/lm_runs.h"

namespace music3::gates {
namespace {

constexpr int K = lm::kSampledColumns;
int column_of(int32_t id) { return id == lm::kAudioEndId ? 0 : id - lm::kCodeOffset + 1; }

const UlpBounds& hidden_bounds() {
  return gate_device() == DeviceType::CUDA ? lm_device_bounds::kCudaHidden : lm_device_bounds::kCpuHidden;
}
const UlpBounds& logit_bounds() {
  return gate_device() == DeviceType::CUDA ? lm_device_bounds::kCudaLogits : lm_device_bounds::kCpuLogits;
}

TEST(LmDevice, BandAgainstTheHostArmAndReachability) {
  const std::string gate = "lm.device";
  for (const auto& c : lm_cases()) {
    SCOPED_TRACE(c.name());
    const LmGolden g = read_lm_golden(c);
    const LmRun host = run_lm_case(c, g, cpu_queue(), {runtime::ArmRequest::Host});
    const LmRun dev = run_lm_case(c, g, gate_queue(), {runtime::ArmRequest::Device});
    const auto& r = dev.result;
    const auto& t = dev.trace;
    EXPECT_EQ(r.iterations, host.result.iterations);
    EXPECT_EQ(r.frames, host.result.frames);
    EXPECT_EQ(r.eos, host.result.eos);
    EXPECT_EQ(r.nonfinite_logits, 0u);
    ASSERT_EQ(t.last_hidden.size(), host.trace.last_hidden.size());
    ASSERT_EQ(r.frame_hiddens.size(), host.result.frame_hiddens.size());
    const size_t H = size_t(g.hidden);
    check_ulp_cfg(gate, c.name(), "prefill_hidden.ulp", t.prefill_hidden, host.trace.prefill_hidden,
                  size_t(g.prompt) * H, hidden_bounds());
    check_ulp_cfg(gate, c.name(), "last_hidden.ulp", t.last_hidden, host.trace.last_hidden, H, hidden_bounds());
    check_ulp_cfg(gate, c.name(), "logits.ulp", t.lm_logits, host.trace.lm_logits, K, logit_bounds());
    check_ulp(gate, c.name(), "frame_hiddens.ulp", ulp_stats(r.frame_hiddens, host.result.frame_hiddens),
              hidden_bounds());
    int defects = 0;
    for (int64_t it = 0; it < r.iterations; ++it) {
      const int32_t mine = r.tokens[size_t(it)], ref = host.result.tokens[size_t(it)];
      if (mine == ref) continue;
      const std::vector<float> draws = g.sliced_draws(it);
      if (!shared_near_tie(t.guided.data() + it * K, host.trace.guided.data() + it * K, draws.data(), column_of(mine),
                           column_of(ref)))
        ADD_FAILURE() << "iteration " << it << ": token " << mine << " vs host " << ref << " is not a near-tie",
            ++defects;
    }
    record(gate, c.name(), "tokens.defects", defects, 0);
    const uint64_t decode_steps = t.feedback.size() / (2 * size_t(g.hidden));
    EXPECT_EQ(dev.lm_instruments.device_forwards, 1 + decode_steps);
    EXPECT_EQ(dev.lm_instruments.host_forwards, 0u);
    record("lm.reachability", c.name(), "lm_forwards.device_forwards",
           double(dev.lm_instruments.device_forwards), double(1 + decode_steps), BoundKind::Lower);
  }
}

TEST(LmDevice, DeclaredOpsAreTheOpsThatRan) {
  const LmCase c{"odd", 1};
  const LmGolden g = read_lm_golden(c);
  ops::registry().reset_usage();
  run_lm_case(c, g, gate_queue(), {runtime::ArmRequest::Device, /*replay*/ false, /*teacher*/ false, 5});
  std::set<std::string> ran, declared, lm_declared;
  // A fused op's calls count as the ops its entry would issue (registry.h: primitive_ops_run), as the arm declares.
  for (ops::OpId op : ops::primitive_ops_run(ops::registry(), gate_device())) ran.insert(ops::op_name(op));
  for (ops::OpId op : lm::LmDeviceArm::ops()) declared.insert(ops::op_name(op)), lm_declared.insert(ops::op_name(op));
  for (ops::OpId op : depth::DepthDeviceArm::ops()) declared.insert(ops::op_name(op));
  EXPECT_EQ(ran, declared);
  for (const auto& op : lm_declared) EXPECT_TRUE(ran.count(op)) << op << " declared by the LM device arm, never run";
  record("lm.reachability", c.name(), "declared_ops.equal_ran", ran == declared, 1, BoundKind::Lower);
}

TEST(LmDevice, ResidentDtypesAndStagingOnce) {
  const LmCase c{"gqa128", 0};
  const LmGolden g = read_lm_golden(c);
  const LmRun dev = run_lm_case(c, g, gate_queue(), {runtime::ArmRequest::Device});
  const auto& ins = dev.lm_instruments;
  EXPECT_EQ(ins.resident_dtypes, dtype_bit(DType::BF16));
  EXPECT_EQ(ins.aux_dtypes, dtype_bit(DType::F32) | dtype_bit(DType::I32));
  EXPECT_EQ(ins.staging_count, 1u);
  auto stage = make_stage(c, cpu_queue(), runtime::ArmRequest::Host);
  const auto& cfg = stage->lm_config();
  // The sliced head once, every layer tensor and the final norm, and of the embedding table the 16,385 rows the
  // device-resident frame gathers from (code_embeddings: ids 151674 .. 168058).
  size_t want = size_t(lm::kSampledColumns) * size_t(cfg.hidden) * 2;
  for (const auto& spec : lm::LmWeights::expected_tensors(cfg)) {
    if (spec.name == "model.embed_tokens.weight") continue;
    if (spec.name == "lm_head.weight") {
      want += size_t(lm::kSampledColumns) * size_t(cfg.hidden) * 2;
      continue;
    }
    want += size_t(spec.shape.numel()) * 2;
  }
  EXPECT_EQ(ins.staged_bytes, want);
  const bool ok = ins.resident_dtypes == dtype_bit(DType::BF16) && ins.staging_count == 1;
  record("lm.residency", c.name(), "resident_dtypes.bf16_only", ok, 1, BoundKind::Lower);
}

TEST(LmDevice, NonFiniteLogitsAreCounted) {
  const LmCase c{"odd", 0};
  const LmGolden g = read_lm_golden(c);
  const std::string dir = lm_checkpoint_dir(c);
  lm::LmWeights w = lm::load_lm_checkpoint(dir + "/language_model");
  w.norm.mutable_ptr()[0] = bf16{0x7FC0};  // NaN: every final hidden row, so every logit, is NaN
  ar::ArStage stage(std::move(w), depth::load_depth_checkpoint(dir + "/rvq_depth_decoder"), gate_queue(),
                    runtime::ArmRequest::Device);
  ar::ArOptions o;
  o.max_frames = g.max_frames;
  const ar::ArResult r = stage.run(g.text_ids.data(), int(g.prompt), o);
  EXPECT_GE(r.nonfinite_logits, uint32_t(2 * lm::kSampledColumns)) << "the first iteration's two rows";
  record("lm.device", c.name(), "nonfinite.counted", r.nonfinite_logits >= uint32_t(2 * lm::kSampledColumns), 1,
         BoundKind::Lower);
}

TEST(LmDevice, OwnGeneratorIsRepeatable) {
  for (const auto& c : lm_cases()) {
    if (c.seed > 1) continue;
    const LmGolden g = read_lm_golden(c);
    const LmRunOptions own{runtime::ArmRequest::Device, /*replay*/ false, /*teacher*/ false, 91 + uint64_t(c.seed)};
    const bool cpu = gate_device() == DeviceType::CPU;
    const LmRun a = run_lm_case(c, g, cpu ? cpu_queue(1) : gate_queue(), own);
    const LmRun b = run_lm_case(c, g, cpu ? cpu_queue(2) : gate_queue(), own);
    const bool same = a.result.tokens == b.result.tokens && a.result.codes == b.result.codes &&
                      a.result.frame_hiddens.size() == b.result.frame_hiddens.size() &&
                      std::memcmp(a.result.frame_hiddens.data(), b.result.frame_hiddens.data(),
                                  a.result.frame_hiddens.size() * sizeof(bf16)) == 0;
    EXPECT_TRUE(same) << c.name();
    record("lm.repeat", c.name(), "device_arm.identical", same, 1, BoundKind::Lower);
  }
}

// An untraced run (the loop asks the arm for each sample alone: LmArm::sample_last) samples what a traced run of the
// same draws samples from the logits it brings back, bit for bit in tokens, codes, frame_hiddens and the non-finite
// count: with the engine's generator, with upstream's recorded draws, and with <|audio_end|> masked (ignore_eos,
// teacher forced).
// Where the op lm_sample has an enabled provider on the gate's device, the untraced run drew every token through it
// (its calls equal the iterations); elsewhere (CUDA with cuda.lm_sample disabled: gate_lm_device_cuda_host_sampler)
// none. Where feedback_embedding has one too, the runs without a teacher took the device-resident frame
// (ar_device_loop.h): every decode step's input came from that op.
TEST(LmDevice, UntracedRunsSampleTheTracedTokens) {
  const bool device_samples = ops::registry().has(ops::OpId::LmSample, gate_device());
  const bool device_frames = device_samples && ops::registry().has(ops::OpId::FeedbackEmbedding, gate_device());
  for (const auto& c : lm_cases()) {
    if (c.seed > 1) continue;
    const LmGolden g = read_lm_golden(c);
    for (int variant = 0; variant < 3; ++variant) {
      // variant 2 teacher forced with upstream's draws, so where upstream sampled <|audio_end|> the masked row must
      // sample a code instead (on both paths) while the teacher's token still ends the loop there.
      LmRunOptions o{runtime::ArmRequest::Device, /*replay*/ variant > 0, /*teacher*/ variant == 2,
                     300 + uint64_t(c.seed)};
      o.ignore_eos = variant == 2;
      const LmRun traced = run_lm_case(c, g, gate_queue(), o);
      o.traced = false;
      ops::registry().reset_usage();
      const LmRun bare = run_lm_case(c, g, gate_queue(), o);
      uint64_t sample_calls = 0, feedback_calls = 0;
      for (const auto& u : ops::registry().usage())
        if (u.device == gate_device()) {
          if (u.op == ops::OpId::LmSample) sample_calls += u.calls;
          if (u.op == ops::OpId::FeedbackEmbedding) feedback_calls += u.calls;
        }
      const auto& a = traced.result;
      const auto& b = bare.result;
      const bool same = a.tokens == b.tokens && a.codes == b.codes && a.nonfinite_logits == b.nonfinite_logits &&
                        a.frame_hiddens.size() == b.frame_hiddens.size() &&
                        std::memcmp(a.frame_hiddens.data(), b.frame_hiddens.data(),
                                    a.frame_hiddens.size() * sizeof(bf16)) == 0;
      const std::string name = c.name() + (variant == 0 ? "" : variant == 1 ? ".recorded" : ".ignore_eos");
      EXPECT_TRUE(same) << name;
      EXPECT_TRUE(bare.trace.lm_logits.empty()) << name;
      EXPECT_EQ(sample_calls, device_samples ? uint64_t(b.iterations) : 0u) << name;
      // The device-resident frame (ar_device_loop.h) fed every decode step back on the device.
      const bool device_frame = device_frames && !o.teacher;
      EXPECT_EQ(feedback_calls, device_frame ? bare.lm_instruments.device_forwards - 1 : 0u) << name;
      EXPECT_EQ(b.device_frame, device_frame) << name;
      EXPECT_FALSE(a.device_frame) << name;
      EXPECT_GT(bare.lm_instruments.device_forwards, 1u) << name;
      record("lm.device", name, "untraced_vs_traced.identical", same, 1, BoundKind::Lower);
      record("lm.reachability", name, "lm_sample.calls", double(sample_calls),
             device_samples ? double(b.iterations) : 0.0, BoundKind::Lower);
      record("lm.reachability", name, "feedback_embedding.calls", double(feedback_calls),
             device_frame ? double(bare.lm_instruments.device_forwards - 1) : 0.0, BoundKind::Lower);
    }
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
