// Gate vocoder.loader_independent: what vocoder::load_vocoder_checkpoint makes resident equals, bit for bit, torch's
// reading of the same checkpoint (oracle_bridge/loader_check/independent_reader.py): every weight-normed conv's
// folded weight against the weight-norm fold torch computes from the raw weight_g / weight_v pair (w = v * g / ||v||,
// the norm over every dimension but 0: a Conv1d's output channel, a ConvTranspose1d's input channel), and every raw
// tensor the loader keeps (dec_in_proj, the biases, the Snake alphas) against torch's bf16 of it. On the BF16 path
// (the oracle's checkpoints, seed 0 of every geometry) and on the F32 path (F32 copies whose values need rounding:
// g and v are rounded to bf16 before the fold, as a bf16 model loads them), so a fold over the wrong dimension, a
// transposed layout or a rounding defect that the parity goldens' checkpoints never reach cannot pass.
// Measured: 0 mismatched elements on every geometry and path (the bound is 0: exact): per path, 364 tensors (the
// 120 folded weights with the raw ones; 211,591 elements) over the four geometries.
#include <gtest/gtest.h>

#include "engine/models/music3/vocoder/vocoder_loader.h"
#include "gates/lib/case_geometries.h"
#include "gates/lib/independent_reader.h"
#include "gates/vocoder/vocoder_oracle.h"

namespace music3::gates {
namespace {

class Resident {
 public:
  void add(const std::string& name, Shape shape, const std::vector<bf16>& data) {
    list_.push_back({name, shape, data.data()});
  }
  void alpha(const std::string& name, const std::vector<bf16>& a) { add(name, Shape{1, int64_t(a.size()), 1}, a); }
  // A conv's weight in torch's layout ([out][in][k]; [in][out][k] when transposed) and its bias.
  void conv(const std::string& prefix, const vocoder::Conv& c) {
    const Shape w = c.transposed ? Shape{c.in, c.out, c.kernel} : Shape{c.out, c.in, c.kernel};
    add(prefix + ".weight", w, c.weight);
    add(prefix + ".bias", Shape{int64_t(c.bias.size())}, c.bias);
  }
  const std::vector<ResidentTensor>& list() const { return list_; }

 private:
  std::vector<ResidentTensor> list_;
};

std::vector<ResidentTensor> resident(const vocoder::VocoderWeights& w) {
  Resident r;
  r.conv("dec_in_proj", w.dec_in_proj);
  r.conv("conv_in", w.conv_in);
  for (size_t i = 0; i < w.blocks.size(); ++i) {
    const std::string b = "blocks." + std::to_string(i);
    r.alpha(b + ".snake1.alpha", w.blocks[i].alpha);
    r.conv(b + ".conv_t1", w.blocks[i].up);
    for (int u = 0; u < 3; ++u) {
      const std::string p = b + ".res_unit" + std::to_string(u + 1);
      const vocoder::ResidualUnit& unit = w.blocks[i].units[u];
      r.alpha(p + ".snake1.alpha", unit.alpha1);
      r.conv(p + ".conv1", unit.conv1);
      r.alpha(p + ".snake2.alpha", unit.alpha2);
      r.conv(p + ".conv2", unit.conv2);
    }
  }
  r.alpha("snake_out.alpha", w.alpha_out);
  r.conv("conv_out", w.conv_out);
  return r.list();
}

class VocoderLoaderIndependent : public ::testing::TestWithParam<std::string> {};

TEST_P(VocoderLoaderIndependent, Bf16CheckpointMatchesTorchFold) {
  const ScratchDir s("vocoder_loader_independent");
  const VocoderCase c{GetParam(), 0};
  const vocoder::VocoderWeights w = load_vocoder_case(c);  // after the sha256 check against the manifest
  EXPECT_EQ(compare_resident(vocoder_checkpoint_dir(c), resident(w), s.path()), "");
}

TEST_P(VocoderLoaderIndependent, F32CopyMatchesTorchRoundingAndFold) {
  const ScratchDir s("vocoder_loader_independent");
  const VocoderCase c{GetParam(), 0};
  load_vocoder_case(c);  // the sha256 check of the original
  f32_copy(vocoder_checkpoint_dir(c), s.path("f32"), 17);
  vocoder::LoadReport report;
  const vocoder::VocoderWeights w = vocoder::load_vocoder_checkpoint(s.path("f32"), &report);
  ASSERT_GT(report.folded, 0u);
  EXPECT_EQ(compare_resident(s.path("f32"), resident(w), s.path()), "");
}

INSTANTIATE_TEST_SUITE_P(Geometries, VocoderLoaderIndependent, ::testing::ValuesIn(geometries_of(vocoder_cases())),
                         geometry_param_name);

}  // namespace
}  // namespace music3::gates
