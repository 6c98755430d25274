// Gate lm.loader_independent: what lm::load_lm_checkpoint makes resident equals, bit for bit, torch's reading of the
// same checkpoint (oracle_bridge/loader_check/independent_reader.py), on the BF16 path (the oracle's tiny/seed0
// checkpoint, mapped in place) and on the F32 path (an F32 copy whose values need rounding). Every tensor is
// checked: embed, norm, every layer's eleven, and the two lm_head row ranges the engine keeps (151670 and
// 151675 ... 168058), so a row offset, a transposed copy or a shard mix-up shared by both paths cannot cancel.
// Measured: 0 mismatched elements on both paths (the bound is 0: exact).
#include <gtest/gtest.h>

#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_loader.h"
#include "gates/lib/independent_reader.h"
#include "gates/lm/lm_oracle.h"

namespace music3::gates {
namespace {

std::string row_range(const char* name, int64_t first, int64_t count) {
  return std::string(name) + "[" + std::to_string(first) + ":" + std::to_string(first + count) + "]";
}

std::vector<ResidentTensor> resident(const lm::LmWeights& w) {
  std::vector<ResidentTensor> out;
  auto add = [&](const std::string& name, const runtime::HostTensor& t) { out.push_back({name, t.shape, t.ptr()}); };
  add("model.embed_tokens.weight", w.embed);
  add("model.norm.weight", w.norm);
  add(row_range("lm_head.weight", lm::kAudioEndId, 1), w.head_eos);
  add(row_range("lm_head.weight", lm::kCodeOffset, lm::kSemanticVocab), w.head_codes);
  for (size_t l = 0; l < w.layers.size(); ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const lm::LmLayerWeights& L = w.layers[l];
    add(p + "input_layernorm.weight", L.input_norm);
    add(p + "post_attention_layernorm.weight", L.post_norm);
    add(p + "self_attn.q_norm.weight", L.q_norm);
    add(p + "self_attn.k_norm.weight", L.k_norm);
    add(p + "self_attn.q_proj.weight", L.wq);
    add(p + "self_attn.k_proj.weight", L.wk);
    add(p + "self_attn.v_proj.weight", L.wv);
    add(p + "self_attn.o_proj.weight", L.wo);
    add(p + "mlp.gate_proj.weight", L.w_gate);
    add(p + "mlp.up_proj.weight", L.w_up);
    add(p + "mlp.down_proj.weight", L.w_down);
  }
  return out;
}

TEST(LmLoaderIndependent, Bf16CheckpointMatchesTorch) {
  const ScratchDir s("lm_loader_independent");
  const std::string ckpt = lm_checkpoint_dir({"tiny", 0}) + "/language_model";
  lm::LmLoadReport report;
  const lm::LmWeights w = lm::load_lm_checkpoint(ckpt, &report);
  ASSERT_TRUE(report.converted.empty()) << "the oracle checkpoint is BF16: nothing should be converted";
  EXPECT_EQ(compare_resident(ckpt, resident(w), s.path()), "");
}

TEST(LmLoaderIndependent, F32CheckpointMatchesTorchRounding) {
  const ScratchDir s("lm_loader_independent");
  const std::string copy = s.path("f32");
  f32_copy(lm_checkpoint_dir({"tiny", 0}) + "/language_model", copy, 15);
  lm::LmLoadReport report;
  const lm::LmWeights w = lm::load_lm_checkpoint(copy, &report);
  ASSERT_FALSE(report.converted.empty()) << "the F32 copy must take the loader's F32 path";
  EXPECT_EQ(compare_resident(copy, resident(w), s.path()), "");
}

}  // namespace
}  // namespace music3::gates
