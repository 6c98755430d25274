// Gate acoustic.loader_independent: what acoustic::load_condition_encoder and acoustic::load_dit make resident
// equals, bit for bit, torch's reading of the same checkpoint (oracle_bridge/loader_check/independent_reader.py),
// for every tensor the weights hold (the DiT's q, k and v each as the loader returns them, before any merge), on the
// F32 path (the oracle's checkpoints, stored F32 as the release is, sharded: every tensor rounded at load) and on the
// BF16 path (a copy torch rounded to BF16, mapped in place), both against torch's bf16 of the oracle's F32 tensors,
// for seed 0 of every geometry of the acoustic manifest. A tensor read from the wrong shard or offset, a transposed
// copy or a rounding defect of either path cannot cancel against the other.
// Measured: 0 mismatched elements on every geometry, component and path (the bound is 0: exact): per path, the
// encoder's 16 tensors (4,916 elements) and the DiT's 144 (293,206 elements) over the four geometries.
#include <gtest/gtest.h>

#include "engine/models/music3/acoustic/condition_encoder_loader.h"
#include "engine/models/music3/acoustic/dit_loader.h"
#include "gates/acoustic/acoustic_oracle.h"
#include "gates/lib/case_geometries.h"
#include "gates/lib/independent_reader.h"

namespace music3::gates {
namespace {

using runtime::HostTensor;

// Appends one resident tensor, named as the checkpoint names it.
void add(std::vector<ResidentTensor>& r, const std::string& name, const HostTensor& t) {
  r.push_back({name, t.shape, t.ptr()});
}

std::vector<ResidentTensor> resident(const acoustic::ConditionEncoderWeights& w) {
  std::vector<ResidentTensor> r;
  add(r, "layer_weight_logits", w.logits);
  add(r, "layer_scale", w.scale);
  add(r, "proj.weight", w.proj_w);
  add(r, "proj.bias", w.proj_b);
  return r;
}

std::vector<ResidentTensor> resident(const acoustic::DitWeights& w) {
  std::vector<ResidentTensor> r;
  add(r, "time_proj.weight", w.time_proj);
  add(r, "time_embed.linear_1.weight", w.lin1_w);
  add(r, "time_embed.linear_1.bias", w.lin1_b);
  add(r, "time_embed.linear_2.weight", w.lin2_w);
  add(r, "time_embed.linear_2.bias", w.lin2_b);
  add(r, "preprocess_conv.weight", w.pre_conv);
  add(r, "proj_in.weight", w.proj_in);
  for (size_t i = 0; i < w.blocks.size(); ++i) {
    const std::string p = "transformer_blocks." + std::to_string(i) + ".";
    const acoustic::DitBlockWeights& b = w.blocks[i];
    add(r, p + "norm1.weight", b.norm1_w);
    add(r, p + "norm1.bias", b.norm1_b);
    add(r, p + "attn.to_q.weight", b.wq);
    add(r, p + "attn.to_k.weight", b.wk);
    add(r, p + "attn.to_v.weight", b.wv);
    add(r, p + "attn.to_out.0.weight", b.wo);
    add(r, p + "norm2.weight", b.norm2_w);
    add(r, p + "norm2.bias", b.norm2_b);
    add(r, p + "ff_in.weight", b.ff_in_w);
    add(r, p + "ff_in.bias", b.ff_in_b);
    add(r, p + "ff_out.weight", b.ff_out_w);
    add(r, p + "ff_out.bias", b.ff_out_b);
  }
  add(r, "proj_out.weight", w.proj_out);
  add(r, "postprocess_conv.weight", w.post_conv);
  return r;
}

// The component folder of the geometry's seed-0 checkpoint, after its sha256 check against the manifest.
std::string component(const std::string& geometry, const std::string& sub) {
  const AcousticCase c{geometry, 0};
  verify_acoustic_checkpoint(c);
  return acoustic_checkpoint_dir(c) + sub;
}

// Loads `dir` with `load`, checks the path taken (every tensor converted, or none) and compares with torch's
// reading of `oracle` (the F32 checkpoint the folder was made from).
template <class Load>
void expect_matches_torch(const Load& load, const std::string& dir, const std::string& oracle, bool f32_path,
                          const ScratchDir& s) {
  acoustic::AcousticLoadReport report;
  const auto w = load(dir, &report);
  ASSERT_GT(report.tensors, 0u);
  ASSERT_EQ(report.converted, f32_path ? report.tensors : 0u)
      << dir << ": the " << (f32_path ? "F32" : "BF16") << " path must convert " << (f32_path ? "every" : "no")
      << " tensor";
  EXPECT_EQ(compare_resident(oracle, resident(w), s.path()), "");
}

class AcousticLoaderIndependent : public ::testing::TestWithParam<std::string> {};

TEST_P(AcousticLoaderIndependent, EncoderF32CheckpointMatchesTorchRounding) {
  const ScratchDir s("acoustic_loader_independent");
  const std::string oracle = component(GetParam(), "condition_encoder");
  expect_matches_torch(acoustic::load_condition_encoder, oracle, oracle, true, s);
}

TEST_P(AcousticLoaderIndependent, EncoderBf16CopyMatchesTorch) {
  const ScratchDir s("acoustic_loader_independent");
  const std::string oracle = component(GetParam(), "condition_encoder");
  bf16_copy(oracle, s.path("bf16"));
  expect_matches_torch(acoustic::load_condition_encoder, s.path("bf16"), oracle, false, s);
}

TEST_P(AcousticLoaderIndependent, DitF32CheckpointMatchesTorchRounding) {
  const ScratchDir s("acoustic_loader_independent");
  const std::string oracle = component(GetParam(), "transformer");
  expect_matches_torch(acoustic::load_dit, oracle, oracle, true, s);
}

TEST_P(AcousticLoaderIndependent, DitBf16CopyMatchesTorch) {
  const ScratchDir s("acoustic_loader_independent");
  const std::string oracle = component(GetParam(), "transformer");
  bf16_copy(oracle, s.path("bf16"));
  expect_matches_torch(acoustic::load_dit, s.path("bf16"), oracle, false, s);
}

INSTANTIATE_TEST_SUITE_P(Geometries, AcousticLoaderIndependent, ::testing::ValuesIn(geometries_of(acoustic_cases())),
                         geometry_param_name);

}  // namespace
}  // namespace music3::gates
