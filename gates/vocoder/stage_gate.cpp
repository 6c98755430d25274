// Gate vocoder.stages: every stage of the forward (vocoder_stages(): dec_in_proj, conv_in, per up-block its Snake,
// transposed conv and three residual units, snake_out, conv_out, tanh) fed upstream's recorded input for that
// stage and judged against upstream's recorded output (the `vocoder_stages` fixture, record_stages.py), every
// geometry x seed. Teacher forcing keeps one stage's rounding difference from being amplified by the stages after
// it, which is what lets these bounds be tight where the whole-waveform gates cannot be (vocoder_bounds.h).
//  - HostArm: the host arm, on every run of the binary.
//  - DeviceArm: the device arm on the gate's queue (--device cpu: the CPU providers; cuda: the CUDA providers).
// Bounds per stage kind: vocoder_stage_bounds.h.
#include <gtest/gtest.h>

#include <map>

#include "engine/core/queue.h"
#include "engine/models/music3/vocoder/vocoder_device_arm.h"
#include "engine/models/music3/vocoder/vocoder_host_arm.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/vocoder/vocoder_oracle.h"
#include "gates/vocoder/vocoder_stage_bounds.h"

namespace music3::gates {
namespace {

vocoder::StageTensor read_stage(const std::string& file, const std::string& tensor) {
  const Bf16Tensor t = read_bf16(file, tensor);
  if (t.shape.size() != 3 || t.shape[0] != 2) throw std::runtime_error(file + ": tensor '" + tensor + "' is not [2, C, T]");
  return {static_cast<int>(t.shape[1]), t.shape[2], t.data};
}

// The worst of each statistic per stage kind over every case, printed after the run (what the bounds rest on).
struct Worst {
  double median = 0, mean = 0, p999 = 0, max_conditioned = 0, min_exact = 1;
  std::string where;
};

void check_arm(vocoder::VocoderArm& arm, bool cuda, const VocoderCase& c, const std::string& gate,
               std::map<std::string, Worst>& worst) {
  const std::string file = vocoder_stage_file(c);
  for (const auto& stage : vocoder::vocoder_stages(load_vocoder_case(c).cfg)) {
    const std::string name = stage.name(), where = c.name() + "/" + name;
    const auto in = read_stage(file, name + ".in"), expected = read_stage(file, name + ".out");
    const auto got = arm.run_stage(stage, in);
    ASSERT_EQ(got.channels, expected.channels) << where;
    ASSERT_EQ(got.time, expected.time) << where;
    const UlpStats s = ulp_stats(got.data, expected.data);
    EXPECT_EQ(s.nonfinite, 0u) << where;
    const auto& b = vocoder_stage_bounds::for_kind(stage.kind, cuda);
    check_ulp(gate, where, "output", s, b.ulp);
    const double exact = s.nonzero_refs ? double(s.exact) / double(s.nonzero_refs) : 1.0;
    record(gate, where, "exact_fraction", exact, b.min_exact_fraction, BoundKind::Lower);
    EXPECT_GE(exact, b.min_exact_fraction) << where;
    Worst& w = worst[vocoder_stage_bounds::kind_name(stage.kind)];
    if (s.max_conditioned > w.max_conditioned || exact < w.min_exact) w.where = where;
    w.median = std::max(w.median, s.median), w.mean = std::max(w.mean, s.mean), w.p999 = std::max(w.p999, s.p999);
    w.max_conditioned = std::max(w.max_conditioned, s.max_conditioned), w.min_exact = std::min(w.min_exact, exact);
  }
}

void print_worst(const std::string& gate, const std::map<std::string, Worst>& worst) {
  for (const auto& [kind, w] : worst)
    printf("%s %-14s worst: median %g mean %.4g p99.9 %g max_conditioned %g exact_fraction %.5f (%s)\n", gate.c_str(),
           kind.c_str(), w.median, w.mean, w.p999, w.max_conditioned, w.min_exact, w.where.c_str());
}

TEST(VocoderStages, HostArm) {
  const auto cases = vocoder_cases();
  ASSERT_EQ(cases.size(), 24u);
  std::map<std::string, Worst> worst;
  for (const auto& c : cases) {
    const auto weights = load_vocoder_case(c);
    vocoder::VocoderHostArm arm(weights, 1);
    check_arm(arm, false, c, "vocoder.stages_host", worst);
  }
  print_worst("vocoder.stages_host", worst);
}

TEST(VocoderStages, DeviceArm) {
  const Queue q = gate_queue(1);
  const std::string gate = "vocoder.stages_device_" + gate_device_name() + gate_variant();
  std::map<std::string, Worst> worst;
  for (const auto& c : vocoder_cases()) {
    const auto weights = load_vocoder_case(c);
    vocoder::VocoderDeviceArm arm(weights, q);
    check_arm(arm, !q.is_cpu(), c, gate, worst);
    EXPECT_EQ(arm.forwards(), 0) << c.name() << ": run_stage is not a forward";
  }
  print_worst(gate, worst);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
