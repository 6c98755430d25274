// Gate acoustic.device: the acoustic device arms (ConditionEncoderDeviceArm, DitDeviceArm over the op seam)
// against the host arms on the gate's queue (--device cpu: the CPU providers; --device cuda: the CUDA providers,
// exit 77 without a GPU), on every geometry x seed of the acoustic oracle, the golden inputs fed to both arms:
//  - band: the encoder's condition and both DiT branches (the device arm runs them as one batch of 2) against the
//    host arm's, ULP statistics (acoustic_device_bounds.h), nothing non-finite;
//  - reachability: the window loop (run_acoustic, the production call site) on arms the selector made for a
//    Device request calls the device arms, 2 DiT evaluations per step and one encode per window, and the ops that
//    ran on the gate's device are exactly those the two arms declare (ops(), what the selector checks providers
//    for), each run;
//  - residency: every forward buffer bf16, no aux buffer on the DiT, the conv accumulator (f32, encoder) aux;
//    each arm staged once, every tensor but time_proj;
//  - selection: a Device request stages, Auto and Host on a CPU queue keep the host arm, and every other device
//    type (Tenstorrent included) is refused by name, never served by the host arm;
//  - repeatability: two runs of the loop on the device arms give identical latents (CPU: on 1 and 2 threads);
//  - the device loop: DitDeviceArm::run_steps (the window's steps kept on the device) gives the bits of the loop's
//    host steps over the same arm's velocities(), both windows of a two-window run, every geometry.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/acoustic/condition_encoder_device_arm.h"
#include "engine/models/music3/acoustic/condition_encoder_host_arm.h"
#include "engine/models/music3/acoustic/dit_device_arm.h"
#include "engine/models/music3/acoustic/dit_host_arm.h"
#include "engine/ops/registry.h"
#include "gates/acoustic/acoustic_device_bounds.h"
#include "gates/acoustic/acoustic_oracle.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lib/ulp_stats.h"

namespace music3::gates {
namespace {

using runtime::ArmKind;
using runtime::ArmRequest;

const UlpBounds& dit_bounds() {
  return gate_device() == DeviceType::CUDA ? acoustic_device_bounds::kCudaDit : acoustic_device_bounds::kCpuDit;
}
const UlpBounds& encoder_bounds() {
  return gate_device() == DeviceType::CUDA ? acoustic_device_bounds::kCudaEncoder
                                           : acoustic_device_bounds::kCpuEncoder;
}

void judge(const std::string& case_name, const std::string& metric, const std::vector<bf16>& got,
           const std::vector<bf16>& want, const UlpBounds& bounds) {
  ASSERT_EQ(got.size(), want.size()) << case_name << " " << metric;
  const UlpStats s = ulp_stats(got, want);
  EXPECT_EQ(s.nonfinite, 0u) << case_name << " " << metric;
  check_ulp("acoustic.device" + gate_variant(), case_name, metric, s, bounds);
}

TEST(AcousticDevice, BandAgainstTheHostArms) {
  const auto cases = acoustic_cases();
  ASSERT_EQ(cases.size(), 24u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name());
    const auto enc_w = load_encoder_case(c);
    const auto dit_w = load_dit_case(c);
    const std::string golden = acoustic_golden(c);
    const GoldenTensor frames = read_golden(golden, "frames"), x = read_golden(golden, "latents");
    const GoldenTensor t = read_golden(golden, "timestep"), cond = read_golden(golden, "condition");
    const int64_t n = frames.shape[1], L = x.shape[2];
    runtime::ArmInstruments ins;
    acoustic::ConditionEncoderHostArm enc_host(enc_w, 0);
    const auto enc_dev = acoustic::make_condition_encoder_arm(enc_w, gate_queue(), ArmRequest::Device, ins);
    ASSERT_EQ(enc_dev->kind(), ArmKind::Device);
    judge(c.name(), "condition.ulp", enc_dev->encode(frames.data.data(), n, L),
          enc_host.encode(frames.data.data(), n, L), encoder_bounds());
    acoustic::DitHostArm dit_host(dit_w, 0);
    const auto dit_dev = acoustic::make_dit_arm(dit_w, gate_queue(), ArmRequest::Device, ins);
    ASSERT_EQ(dit_dev->kind(), ArmKind::Device);
    const auto want = dit_host.velocities(x.data.data(), L, t.data[0], cond.data.data());
    const auto got = dit_dev->velocities(x.data.data(), L, t.data[0], cond.data.data());
    judge(c.name(), "v_cond.ulp", got.conditional, want.conditional, dit_bounds());
    judge(c.name(), "v_uncond.ulp", got.unconditional, want.unconditional, dit_bounds());
    EXPECT_EQ(dit_dev->forwards(), 2);
  }
}

// The loop on a case with two windows (F = 250 frames of the case's width, drawn noise), on arms the selector made.
struct LoopRun {
  acoustic::AcousticResult result;
  runtime::ArmInstruments enc_ins, dit_ins;
  int64_t encodes = 0, dit_forwards = 0;
  ArmKind enc_kind = ArmKind::Host, dit_kind = ArmKind::Host;
  std::vector<int64_t> progress;  // 1000 * window + step, per progress callback
};

constexpr int kLoopSteps = 3;
constexpr int64_t kLoopFrames = 250;

// The DiT arm with its own loop (run_steps) hidden, so the window loop runs the steps on the host over its
// velocities(): the reference the device loop must equal bit for bit.
class HostStepsOver final : public acoustic::DitArm {
 public:
  explicit HostStepsOver(acoustic::DitArm& arm) : arm_(arm) {}
  acoustic::VelocityPair velocities(const bf16* x, int64_t length, bf16 t, const bf16* cond) override {
    return arm_.velocities(x, length, t, cond);
  }
  int64_t latent_channels() const override { return arm_.latent_channels(); }
  int64_t cond_channels() const override { return arm_.cond_channels(); }
  int64_t forwards() const override { return arm_.forwards(); }
  ArmKind kind() const override { return arm_.kind(); }

 private:
  acoustic::DitArm& arm_;
};

LoopRun run_loop(const AcousticCase& c, const Queue& q, bool host_steps = false) {
  const auto enc_w = load_encoder_case(c);
  const auto dit_w = load_dit_case(c);
  const int64_t width = enc_w.cfg.frame_width();
  std::vector<bf16> frames(size_t(kLoopFrames * width));
  const GoldenTensor golden = read_golden(acoustic_golden(c), "frames");
  for (size_t i = 0; i < frames.size(); ++i) frames[i] = golden.data[i % golden.data.size()];
  LoopRun r;
  const auto enc = acoustic::make_condition_encoder_arm(enc_w, q, ArmRequest::Device, r.enc_ins);
  const auto dit = acoustic::make_dit_arm(dit_w, q, ArmRequest::Device, r.dit_ins);
  acoustic::AcousticOptions o;
  o.steps = kLoopSteps;
  o.progress = [&r](int64_t window, int64_t, int step, int) { r.progress.push_back(1000 * window + step); };
  HostStepsOver host_stepped(*dit);
  acoustic::DitArm& stepped = host_steps ? static_cast<acoustic::DitArm&>(host_stepped) : *dit;
  r.result = acoustic::run_acoustic(*enc, stepped, frames.data(), kLoopFrames, width, acoustic::NoiseSource::drawn(7), o);
  r.encodes = enc->forwards();
  r.dit_forwards = dit->forwards();
  r.enc_kind = enc->kind();
  r.dit_kind = dit->kind();
  return r;
}

const AcousticCase kLoopCase{"realhead", 0};  // head_dim 64, the release's head width

TEST(AcousticDevice, TheLoopCallsTheDeviceArmsAndTheDeclaredOpsRan) {
  ops::registry().reset_usage();
  const LoopRun r = run_loop(kLoopCase, gate_queue());
  const int64_t windows = int64_t(r.result.windows.size());
  EXPECT_EQ(windows, 2);
  EXPECT_EQ(r.enc_kind, ArmKind::Device);
  EXPECT_EQ(r.dit_kind, ArmKind::Device);
  EXPECT_EQ(r.encodes, windows);
  EXPECT_EQ(r.dit_forwards, 2 * kLoopSteps * windows);
  EXPECT_EQ(r.dit_ins.device_forwards, uint64_t(2 * kLoopSteps * windows));
  EXPECT_EQ(r.enc_ins.device_forwards, uint64_t(windows));
  EXPECT_EQ(r.dit_ins.host_forwards + r.enc_ins.host_forwards, 0u);
  record("acoustic.reachability" + gate_variant(), kLoopCase.name(), "dit.device_forwards",
         double(r.dit_ins.device_forwards), double(2 * kLoopSteps * windows), BoundKind::Lower);
  std::set<std::string> ran, declared;
  // A fused op's calls count as the ops its entry would issue (registry.h: primitive_ops_run), as the arm declares.
  for (ops::OpId op : ops::primitive_ops_run(ops::registry(), gate_device())) ran.insert(ops::op_name(op));
  for (ops::OpId op : acoustic::DitDeviceArm::ops()) declared.insert(ops::op_name(op));
  for (ops::OpId op : acoustic::ConditionEncoderDeviceArm::ops()) declared.insert(ops::op_name(op));
  EXPECT_EQ(ran, declared);
  record("acoustic.reachability" + gate_variant(), kLoopCase.name(), "declared_ops.equal_ran", ran == declared, 1,
         BoundKind::Lower);
}

// The device arm's own loop (x kept on the device, guided_euler, the re-noised overlap from tables) against the
// loop's host steps over the same arm's velocities(): every latent of both windows (the second re-noises its
// overlap every step) equal, on every geometry, and the progress callback seen once per step in order.
TEST(AcousticDevice, TheDeviceLoopGivesTheHostStepsBits) {
  for (const std::string geometry : {"realhead", "odd", "tiny", "quiet"}) {
    const AcousticCase c{geometry, 0};
    SCOPED_TRACE(c.name());
    const LoopRun device = run_loop(c, gate_queue()), host = run_loop(c, gate_queue(), /*host_steps=*/true);
    ASSERT_EQ(device.result.windows.size(), 2u);
    ASSERT_EQ(host.result.windows.size(), 2u);
    EXPECT_GT(device.result.windows[1].overlap, 0) << "the second window must re-noise an overlap";
    size_t differing = 0, total = 0;
    for (size_t k = 0; k < 2; ++k) {
      const auto& a = device.result.windows[k].latents;
      const auto& b = host.result.windows[k].latents;
      ASSERT_EQ(a.size(), b.size());
      differing += size_t(differing_bits(a, b));
      total += a.size();
    }
    EXPECT_EQ(differing, 0u) << "of " << total << " latents";
    EXPECT_EQ(device.dit_forwards, host.dit_forwards);
    EXPECT_EQ(device.progress, (std::vector<int64_t>{0, 1, 2, 1000, 1001, 1002}));
    EXPECT_EQ(device.progress, host.progress);
    record("acoustic.device_loop" + gate_variant(), c.name(), "latents.differing_from_host_steps", double(differing), 0,
           BoundKind::Upper);
  }
}

TEST(AcousticDevice, ResidentDtypesAndStagingOnce) {
  const LoopRun r = run_loop(kLoopCase, gate_queue());
  EXPECT_EQ(r.dit_ins.resident_dtypes, dtype_bit(DType::BF16));
  EXPECT_EQ(r.dit_ins.aux_dtypes, 0u);  // rope is fused into self_attention: no position buffer
  EXPECT_EQ(r.enc_ins.resident_dtypes, dtype_bit(DType::BF16));
  EXPECT_EQ(r.enc_ins.aux_dtypes, dtype_bit(DType::F32));
  EXPECT_EQ(r.dit_ins.staging_count, 1u);
  EXPECT_EQ(r.enc_ins.staging_count, 1u);
  const auto dit_w = load_dit_case(kLoopCase);
  const auto enc_w = load_encoder_case(kLoopCase);
  EXPECT_EQ(r.dit_ins.staged_bytes, dit_w.bytes() - dit_w.time_proj.bytes()) << "every tensor but time_proj";
  EXPECT_EQ(r.enc_ins.staged_bytes, enc_w.proj_w.bytes() + enc_w.proj_b.bytes());
  const bool ok = r.dit_ins.resident_dtypes == dtype_bit(DType::BF16) &&
                  r.enc_ins.resident_dtypes == dtype_bit(DType::BF16) && r.dit_ins.staging_count == 1;
  record("acoustic.residency" + gate_variant(), kLoopCase.name(), "resident_dtypes.bf16_only", ok, 1, BoundKind::Lower);
}

TEST(AcousticDevice, SelectionOverDeviceTypes) {
  const auto enc_w = load_encoder_case(kLoopCase);
  const auto dit_w = load_dit_case(kLoopCase);
  runtime::ArmInstruments ins;
  EXPECT_EQ(acoustic::make_dit_arm(dit_w, gate_queue(), ArmRequest::Device, ins)->kind(), ArmKind::Device);
  EXPECT_EQ(acoustic::make_condition_encoder_arm(enc_w, gate_queue(), ArmRequest::Device, ins)->kind(),
            ArmKind::Device);
  const bool cpu = gate_device() == DeviceType::CPU;
  for (auto req : {ArmRequest::Auto, ArmRequest::Host}) {
    if (cpu) {
      EXPECT_EQ(acoustic::make_dit_arm(dit_w, gate_queue(), req, ins)->kind(), ArmKind::Host);
    } else if (req == ArmRequest::Auto) {
      EXPECT_EQ(acoustic::make_dit_arm(dit_w, gate_queue(), req, ins)->kind(), ArmKind::Device);
    } else {
      EXPECT_THROW(acoustic::make_dit_arm(dit_w, gate_queue(), req, ins), runtime::ArmRefused);
    }
  }
  int refused = 0;
  for (DeviceType dev : all_device_types()) {
    if (dev == DeviceType::CPU || dev == gate_device()) continue;
    for (auto req : {ArmRequest::Auto, ArmRequest::Device}) {
      for (const char* component : {"dit", "condition_encoder"}) {
        try {
          if (std::string(component) == "dit")
            acoustic::make_dit_arm(dit_w, fabricated_queue(dev), req, ins);
          else
            acoustic::make_condition_encoder_arm(enc_w, fabricated_queue(dev), req, ins);
          ADD_FAILURE() << component << " was not refused on " << device_type_name(dev);
        } catch (const runtime::ArmRefused& e) {
          EXPECT_EQ(e.device, dev);
          EXPECT_NE(std::string(e.what()).find(component), std::string::npos) << e.what();
          EXPECT_NE(std::string(e.what()).find(device_type_name(dev)), std::string::npos) << e.what();
          ++refused;
        }
      }
    }
  }
  EXPECT_GE(refused, 4 * 4) << "ROCm, Metal, Vulkan, XPU, Tenstorrent (and CUDA from a CPU gate)";
  record("acoustic.selection" + gate_variant(), kLoopCase.name(), "fabricated.refused", refused, 16, BoundKind::Lower);
}

TEST(AcousticDevice, RepeatableRuns) {
  const bool cpu = gate_device() == DeviceType::CPU;
  const LoopRun a = run_loop(kLoopCase, cpu ? cpu_queue(1) : gate_queue());
  const LoopRun b = run_loop(kLoopCase, cpu ? cpu_queue(2) : gate_queue());
  bool same = a.result.windows.size() == b.result.windows.size();
  for (size_t k = 0; same && k < a.result.windows.size(); ++k) {
    const auto& x = a.result.windows[k].latents;
    const auto& y = b.result.windows[k].latents;
    same = x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(bf16)) == 0;
  }
  EXPECT_TRUE(same);
  record("acoustic.repeat" + gate_variant(), kLoopCase.name(), "device_arms.identical", same, 1, BoundKind::Lower);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
