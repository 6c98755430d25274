// Gate depth.forcing: teacher forcing (FrameInputs::forced_codes) is verified on its own, on both arms (the
// device arm on the gate queue), with the engine's own generator (no replayed draws, so the sampled codes are
// not the forced ones by construction):
//  - a forced code is what the next call embeds: two runs whose forced codes differ at one step only have
//    bit-identical traces up to that step's call and different head logits at the next;
//  - forcing the codes a free run sampled reproduces the free run bit for bit (the forced code enters where
//    the sampled one does);
//  - a forced code outside [0, vocab) is refused by name (value and step) before any call runs.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "gates/depth/depth_runs.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"

namespace music3::gates {
namespace {

const OracleCase kCase{"default", 0};

struct FrameRun {
  std::vector<int32_t> codes;
  depth::FrameTrace trace;
};

FrameRun run_frame(depth::ArmRequest req, const int32_t* forced) {
  depth::DepthEngine engine(load_case_weights(kCase), req == depth::ArmRequest::Host ? cpu_queue() : gate_queue(), req);
  const auto g = read_golden(kCase, engine.config());
  depth::FrameInputs in;
  in.last_hidden = g.last_hidden.data();
  in.c0_embedding = g.c0_embedding.data();
  in.draws.seed = 11;
  in.forced_codes = forced;
  FrameRun r;
  r.codes = engine.run_frame(in, &r.trace).codes;
  return r;
}

bool same_rows(const std::vector<bf16>& a, const std::vector<bf16>& b, size_t begin, size_t end) {
  return std::memcmp(a.data() + begin, b.data() + begin, (end - begin) * sizeof(bf16)) == 0;
}

const std::vector<depth::ArmRequest> kArms{depth::ArmRequest::Host, depth::ArmRequest::Device};

TEST(DepthForcing, TheForcedCodeIsWhatTheNextCallEmbeds) {
  const auto cfg = load_case_weights(kCase).cfg;
  const size_t S = size_t(cfg.steps()), V = size_t(cfg.vocab);
  for (auto req : kArms) {
    const std::string arm =
        depth::arm_name(req == depth::ArmRequest::Host ? depth::ArmKind::Host : depth::ArmKind::Device);
    for (size_t k : {size_t(0), S / 2, S - 2}) {
      std::vector<int32_t> a(S), b(S);
      for (size_t s = 0; s < S; ++s) a[s] = b[s] = int32_t((s * 37 + 5) % V);
      b[k] = int32_t((size_t(a[k]) + V / 2) % V);
      const FrameRun ra = run_frame(req, a.data()), rb = run_frame(req, b.data());
      const size_t through = (k + 1) * 2 * V;  // head logits of calls 0..k
      EXPECT_TRUE(same_rows(ra.trace.head_logits, rb.trace.head_logits, 0, through))
          << arm << ": forcing step " << k << " changed an earlier call";
      const bool next_differs = !same_rows(ra.trace.head_logits, rb.trace.head_logits, through, through + 2 * V);
      EXPECT_TRUE(next_differs) << arm << ": the code forced at step " << k << " did not reach call " << k + 1;
      record("depth.forcing", arm + "/step" + std::to_string(k), "next_call_moved", next_differs, 1, BoundKind::Lower);
    }
  }
}

TEST(DepthForcing, ForcingTheSampledCodesReproducesTheFreeRun) {
  for (auto req : kArms) {
    const FrameRun free_run = run_frame(req, nullptr);
    const FrameRun forced = run_frame(req, free_run.codes.data());
    const bool same =
        forced.codes == free_run.codes && forced.trace.head_logits.size() == free_run.trace.head_logits.size() &&
        same_rows(forced.trace.head_logits, free_run.trace.head_logits, 0, free_run.trace.head_logits.size()) &&
        same_rows(forced.trace.final_hidden, free_run.trace.final_hidden, 0, free_run.trace.final_hidden.size());
    EXPECT_TRUE(same) << (req == depth::ArmRequest::Host ? "host" : "device");
    record("depth.forcing", req == depth::ArmRequest::Host ? "host" : "device", "replays_free_run", same, 1,
           BoundKind::Lower);
  }
}

TEST(DepthForcing, OutOfRangeForcedCodesAreRefusedByName) {
  const auto cfg = load_case_weights(kCase).cfg;
  const size_t S = size_t(cfg.steps());
  for (auto req : kArms)
    for (int32_t bad : {-1, int32_t(cfg.vocab), int32_t(cfg.vocab) + 1000}) {
      std::vector<int32_t> codes(S, 0);
      codes[S - 1] = bad;
      try {
        run_frame(req, codes.data());
        ADD_FAILURE() << "forced code " << bad << " was accepted";
      } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("forced code " + std::to_string(bad)), std::string::npos) << what;
        EXPECT_NE(what.find("step " + std::to_string(S - 1)), std::string::npos) << what;
      }
    }
  std::vector<int32_t> edge(S, int32_t(cfg.vocab) - 1);  // the largest valid code is accepted
  EXPECT_NO_THROW(run_frame(depth::ArmRequest::Host, edge.data()));
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
