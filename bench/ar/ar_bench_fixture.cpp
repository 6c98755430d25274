#include "bench/ar/ar_bench_fixture.h"

#include <stdexcept>

#include "bench/lm/lm_bench_weights.h"
#include "bench/support/uniform_bf16.h"
#include "engine/models/music3/depth/depth_synthetic.h"

namespace music3::bench {
namespace {

depth::DepthConfig depth_geometry_for(const std::string& geometry, int lm_hidden) {
  if (geometry == "full") return depth::DepthConfig::full();
  depth::DepthConfig c = depth::DepthConfig::named("tiny");
  c.hidden = lm_hidden;
  return c;
}

}  // namespace

std::unique_ptr<ArFixture> make_ar_fixture(const Queue& q, const std::string& geometry, runtime::ArmRequest request) {
  const lm::LmConfig lc = lm_bench_geometry(geometry);
  lm::LmWeights lm = synthetic_lm_weights(lc, kBenchSeed);
  lm.embed = runtime::HostTensor({lc.vocab, lc.hidden});  // the prompt's rows and c0's feedback rows are read
  fill_uniform_bf16(lm.embed.mutable_ptr(), size_t(lc.vocab) * size_t(lc.hidden), kBenchSeed + 20, 0.02f);
  depth::DepthWeights depth = depth::synthetic_depth_weights(depth_geometry_for(geometry, lc.hidden), kBenchSeed + 21);
  auto f = std::make_unique<ArFixture>();
  f->stage = std::make_unique<ar::ArStage>(std::move(lm), std::move(depth), q, request);
  const runtime::ArmKind want = request == runtime::ArmRequest::Host ? runtime::ArmKind::Host
                                                                      : runtime::ArmKind::Device;
  if (f->stage->lm_arm_kind() != want) throw std::runtime_error("the selector chose another LM arm");
  f->prompt.resize(2 * kBenchPrompt);
  for (int i = 0; i < kBenchPrompt; ++i)
    f->prompt[size_t(i)] = f->prompt[size_t(kBenchPrompt + i)] = (i * 7919) % 151000;
  return f;
}

}  // namespace music3::bench
