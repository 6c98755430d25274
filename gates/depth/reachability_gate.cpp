// Gate depth.reachability: the production depth path (DepthEngine, as the CLI builds it) reaches the
// arm the selector chose, proven by the forward counters a real run emits: a device
// arm moves the device counter by exactly the calls per frame and the host counter
// by zero; a host arm the reverse. Deleting the engine's call to the selector turns
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

depth::DepthInstruments one_frame(const Queue& q, depth::ArmRequest req) {
  const OracleCase c{"default", 0};
  depth::DepthEngine engine(load_case_weights(c), q, req);
  const auto g = read_golden(c, engine.config());
  depth::FrameInputs in;
  in.last_hidden = g.last_hidden.data();
  in.c0_embedding = g.c0_embedding.data();
  engine.run_frame(in);
  return engine.instruments();
}

const uint64_t kSteps = 7;  // calls per frame: codebooks - 1 in every oracle geometry

TEST(DepthReachability, DeviceArmMovesOnlyTheDeviceCounter) {
  const auto ins = one_frame(gate_queue(), depth::ArmRequest::Device);
  EXPECT_EQ(ins.device_forwards, kSteps);
  EXPECT_EQ(ins.host_forwards, 0u);
  EXPECT_EQ(ins.frames, 1u);
  EXPECT_EQ(ins.staging_count, 1u);
  record("depth.reachability", "device", "device_forwards", double(ins.device_forwards), double(kSteps), BoundKind::Lower);
  record("depth.reachability", "device", "host_forwards", double(ins.host_forwards), 0);
}

TEST(DepthReachability, DeviceArmIssuesExactlyTheOpsItDeclares) {
  const Queue q = gate_queue();
  ops::registry().reset_usage();
  one_frame(q, depth::ArmRequest::Device);
  std::set<std::string> issued, declared;
  for (const auto& u : ops::registry().usage())
    if (u.device == q.device && u.calls > 0) issued.insert(ops::op_name(u.op));
  for (ops::OpId op : depth::DepthDeviceArm::ops()) declared.insert(ops::op_name(op));
  EXPECT_EQ(issued, declared);
  record("depth.reachability", "device", "ops_issued==ops_declared", issued == declared, 1, BoundKind::Lower);
}

TEST(DepthReachability, AutoOnTheGateQueuePicksTheQueuesArm) {
  // CPU queue: the host arm; CUDA queue: the device arm, with no explicit request.
  const Queue q = gate_queue();
  const auto ins = one_frame(q, depth::ArmRequest::Auto);
  const bool cpu = q.is_cpu();
  EXPECT_EQ(ins.host_forwards, cpu ? kSteps : 0u);
  EXPECT_EQ(ins.device_forwards, cpu ? 0u : kSteps);
  record("depth.reachability", "auto", cpu ? "host_forwards" : "device_forwards",
         double(cpu ? ins.host_forwards : ins.device_forwards), double(kSteps), BoundKind::Lower);
}

TEST(DepthReachability, HostArmMovesOnlyTheHostCounter) {
  const auto ins = one_frame(cpu_queue(), depth::ArmRequest::Host);
  EXPECT_EQ(ins.host_forwards, kSteps);
  EXPECT_EQ(ins.device_forwards, 0u);
  EXPECT_EQ(ins.staging_count, 0u);
  record("depth.reachability", "host", "host_forwards", double(ins.host_forwards), double(kSteps), BoundKind::Lower);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
