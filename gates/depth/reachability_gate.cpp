// Gate depth.reachability: the production depth path (DepthEngine, as the CLI builds it) reaches the
// arm the selector chose, proven by the forward counters a real run emits: over two
// frames a device arm moves the device counter by exactly one per forward call
// (counted where the call is issued, or recorded in the replayed graph) and the host
// counter by zero; a host arm the reverse; the frames counter counts frames, and the
// device arm stages every weight byte once. Deleting the engine's call to the selector turns
// the device case red (the engine would quietly keep its host loop). The ops the
// device arm declares (the selector's refusal list) are exactly the ops the provider
// table saw it issue.
#include <gtest/gtest.h>

#include <set>

#include "engine/models/music3/depth/depth_device_arm.h"
#include "engine/ops/registry.h"
#include "gates/depth/depth_runs.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"

namespace music3::gates {
namespace {

const uint64_t kSteps = 7;   // calls per frame: codebooks - 1 in every oracle geometry
const uint64_t kFrames = 2;  // two frames, so a counter that moves once per frame (not per event) is seen

// Runs `frames` frames of the default case through the engine; returns its counters.
depth::DepthInstruments run_frames(const Queue& q, depth::ArmRequest req, uint64_t frames = 1) {
  const OracleCase c{"default", 0};
  depth::DepthEngine engine(load_case_weights(c), q, req);
  const auto g = read_golden(c, engine.config());
  depth::FrameInputs in;
  in.last_hidden = g.last_hidden.data();
  in.c0_embedding = g.c0_embedding.data();
  for (uint64_t f = 0; f < frames; ++f) {
    in.frame = f;
    engine.run_frame(in);
  }
  return engine.instruments();
}

TEST(DepthReachability, DeviceArmMovesOnlyTheDeviceCounter) {
  const auto ins = run_frames(gate_queue(), depth::ArmRequest::Device, kFrames);
  EXPECT_EQ(ins.device_forwards, kFrames * kSteps);
  EXPECT_EQ(ins.host_forwards, 0u);
  EXPECT_EQ(ins.frames, kFrames);
  EXPECT_EQ(ins.staging_count, 1u);
  // Staged once, every weight byte: the resident set holds the checkpoint's bf16 tensors (merged, not widened).
  EXPECT_EQ(ins.staged_bytes, load_case_weights({"default", 0}).bytes());
  record("depth.reachability", "device", "device_forwards", double(ins.device_forwards), double(kFrames * kSteps),
         BoundKind::Lower);
  record("depth.reachability", "device", "device_forwards_max", double(ins.device_forwards), double(kFrames * kSteps));
  record("depth.reachability", "device", "host_forwards", double(ins.host_forwards), 0);
}

TEST(DepthReachability, DeviceArmIssuesExactlyTheOpsItDeclares) {
  const Queue q = gate_queue();
  ops::registry().reset_usage();
  run_frames(q, depth::ArmRequest::Device);
  std::set<std::string> issued, declared;
  // A fused op's calls count as the ops its entry would issue (registry.h: primitive_ops_run), as the arm declares.
  for (ops::OpId op : ops::primitive_ops_run(ops::registry(), q.device)) issued.insert(ops::op_name(op));
  for (ops::OpId op : depth::DepthDeviceArm::ops()) declared.insert(ops::op_name(op));
  EXPECT_EQ(issued, declared);
  record("depth.reachability", "device", "ops_issued==ops_declared", issued == declared, 1, BoundKind::Lower);
}

TEST(DepthReachability, AutoOnTheGateQueuePicksTheQueuesArm) {
  // CPU queue: the host arm; CUDA queue: the device arm, with no explicit request.
  const Queue q = gate_queue();
  const auto ins = run_frames(q, depth::ArmRequest::Auto);
  const bool cpu = q.is_cpu();
  EXPECT_EQ(ins.host_forwards, cpu ? kSteps : 0u);
  EXPECT_EQ(ins.device_forwards, cpu ? 0u : kSteps);
  record("depth.reachability", "auto", cpu ? "host_forwards" : "device_forwards",
         double(cpu ? ins.host_forwards : ins.device_forwards), double(kSteps), BoundKind::Lower);
}

TEST(DepthReachability, HostArmMovesOnlyTheHostCounter) {
  const auto ins = run_frames(cpu_queue(), depth::ArmRequest::Host, kFrames);
  EXPECT_EQ(ins.host_forwards, kFrames * kSteps);
  EXPECT_EQ(ins.device_forwards, 0u);
  EXPECT_EQ(ins.frames, kFrames);
  EXPECT_EQ(ins.staging_count, 0u);
  EXPECT_EQ(ins.staged_bytes, 0u);
  record("depth.reachability", "host", "host_forwards", double(ins.host_forwards), double(kFrames * kSteps),
         BoundKind::Lower);
  record("depth.reachability", "host", "frames", double(ins.frames), double(kFrames));
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
