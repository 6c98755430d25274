// gate_depth_oracle_regen: the committed goldens are what the pinned upstream code produces from the committed
// inputs, on this machine, whatever its instruction set.
//  1. The bridge regenerates every checkpoint and golden (oracle_bridge/depth/generate_all.py, in the oracle venv) into
//     a fresh folder, or MUSIC3_ORACLE_REGEN_DIR names a regeneration to judge instead.
//  2. What must be bit-identical everywhere is (compare_committed.py, exit 0): checkpoints, configs, the golden
//     inputs and recorded draws, every tensor's dtype and shape, and the manifest but for provenance.
//  3. Upstream's outputs, computed through CPU bf16 kernels, are judged as the parity gates judge an arm: codes
//     equal up to a shared near-tie (and only the steps before such a divergence are compared further), and
//     final_hidden, head_logits, guided logits, the returned hidden and the sampler's probabilities within the
//     ULP bounds of
//     oracle_regen_bounds.h, placed between the spread across instruction-set paths and the tightest catalogued
//     change of the bridge.
// Gate id `depth.oracle_regen`. Exit status as any GoogleTest binary; a missing venv is a failure, never a skip.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <type_traits>

#include "engine/models/music3/depth/depth_loader.h"
#include "gates/depth/oracle_regen_bounds.h"
#include "gates/lib/code_agreement.h"
#include "gates/lib/gate_record.h"
#include "gates/depth/depth_oracle_cases.h"
#include "tools/process.h"

namespace music3::gates {
namespace {

namespace fs = std::filesystem;
const std::string kGate = "depth.oracle_regen";
std::string made_dir;  // the folder this run created for its regeneration, if any

std::string oracle_python() {
  const char* v = std::getenv("MUSIC3_ORACLE_PYTHON");
  return v && *v ? v : MUSIC3_DEFAULT_ORACLE_PYTHON;
}

std::string tail_of(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

// Runs one bridge script; returns "" on success, else its status and the log's tail.
std::string run_bridge(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> argv{oracle_python()};
  argv.insert(argv.end(), args.begin(), args.end());
  const tools::ProcessResult r = tools::run_process({argv, "", {}, log, 900});
  return r.ok() ? "" : tools::join_command(argv) + ": " + r.describe() + "\n" + tail_of(log);
}

struct Regeneration {
  std::string dir;
  std::string failure;  // generate_all.py did not succeed
  std::string exact_failure;  // compare_committed.py found a difference in what must be bit-identical
};

const Regeneration& regeneration() {
  static const Regeneration r = [] {
    Regeneration out;
    const std::string bridge = source_dir() + "/oracle_bridge/depth";
    if (const char* given = std::getenv("MUSIC3_ORACLE_REGEN_DIR"); given && *given) {
      out.dir = given;
    } else {
      if (!fs::exists(oracle_python())) {
        out.failure = "no oracle python at " + oracle_python() + " (scripts/install-deps creates .venv)";
        return out;
      }
      std::string pattern = fs::temp_directory_path().string() + "/music3-oracle-regen.XXXXXX";
      if (!mkdtemp(pattern.data())) {
        out.failure = "cannot create a folder for the regeneration";
        return out;
      }
      out.dir = made_dir = pattern;
      out.failure = run_bridge({bridge + "/generate_all.py", out.dir}, out.dir + "/generate_all.log");
    }
    if (out.failure.empty())
      out.exact_failure = run_bridge({bridge + "/compare_committed.py", out.dir}, out.dir + "/compare_committed.log");
    return out;
  }();
  return r;
}

std::string regenerated_golden(const OracleCase& c) {
  return regeneration().dir + "/goldens/" + c.geometry + "/seed" + std::to_string(c.seed) + ".safetensors";
}

depth::DepthConfig regenerated_config(const OracleCase& c) {
  return depth::load_depth_checkpoint(regeneration().dir + "/checkpoints/" + c.geometry + "/seed" +
                                      std::to_string(c.seed) + "/rvq_depth_decoder")
      .cfg;
}

// The rows of a [F,S,...] tensor whose (frame, step) is comparable, `row` elements each.
template <class T>
std::vector<T> comparable_rows(const std::vector<T>& t, const std::vector<int>& steps_per_frame, int steps,
                               size_t row) {
  std::vector<T> out;
  for (size_t f = 0; f < steps_per_frame.size(); ++f) {
    const auto begin = t.begin() + std::ptrdiff_t(f * size_t(steps) * row);
    out.insert(out.end(), begin, begin + std::ptrdiff_t(size_t(steps_per_frame[f]) * row));
  }
  return out;
}

class OracleRegen : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(regeneration().failure, "") << "the oracle bridge failed"; }
};

TEST_F(OracleRegen, InputsCheckpointsConfigsAndManifestAreBitIdentical) {
  EXPECT_EQ(regeneration().exact_failure, "");
  record(kGate, "all", "bit_identical_inputs", regeneration().exact_failure.empty(), 1, BoundKind::Lower);
}

TEST_F(OracleRegen, OutputsAgreeWithinTheInstructionSetSpread) {
  int cases = 0;
  for (const auto& c : oracle_cases()) {
    SCOPED_TRACE(c.name());
    const depth::DepthConfig cfg = regenerated_config(c);
    const OracleGolden committed = read_golden(c, cfg);
    const OracleGolden regen = read_golden(regenerated_golden(c), cfg);
    ASSERT_EQ(regen.frames, committed.frames);
    const int S = cfg.steps();
    const size_t H = size_t(cfg.hidden), V = size_t(cfg.vocab);
    const CodeAgreement codes =
        compare_codes(regen.codes.data(), regen.guided.data(), committed.codes.data(), committed.guided.data(),
                      committed.exp_draws.data(), committed.frames, S, cfg.vocab);
    for (const auto& defect : codes.defects_found) ADD_FAILURE() << defect;
    record(kGate, c.name(), "codes.defects", codes.defects, 0);
    record(kGate, c.name(), "codes.near_ties", codes.near_ties, 0, BoundKind::ReportOnly);
    int comparable = 0;
    for (int s : codes.comparable_steps) comparable += s;
    const double fraction = double(comparable) / double(committed.frames * S);
    EXPECT_GE(fraction, oracle_regen_bounds::kMinComparableFraction);
    record(kGate, c.name(), "comparable_step_fraction", fraction, oracle_regen_bounds::kMinComparableFraction,
           BoundKind::Lower);

    const auto& steps = codes.comparable_steps;
    const auto stats = [&](const auto& a, const auto& b, size_t row) {
      const auto ca = comparable_rows(a, steps, S, row), cb = comparable_rows(b, steps, S, row);
      // Pooled rows, f32 outputs on the bf16 scale: the scale its unpinned-spread bounds were measured on
      // (oracle_regen_bounds.h).
      if constexpr (std::is_same_v<typename decltype(ca)::value_type, float>)
        return ulp_stats(ca.data(), cb.data(), ca.size(), UlpScale::Bf16);
      else
        return ulp_stats(ca.data(), cb.data(), ca.size());
    };
    check_ulp(kGate, c.name(), "final_hidden", stats(regen.final_hidden, committed.final_hidden, 2 * H),
              oracle_regen_bounds::kOutputs);
    check_ulp(kGate, c.name(), "head_logits", stats(regen.head_logits, committed.head_logits, 2 * V),
              oracle_regen_bounds::kOutputs);
    check_ulp(kGate, c.name(), "guided", stats(regen.guided, committed.guided, V), oracle_regen_bounds::kOutputs);
    check_ulp(kGate, c.name(), "hidden", stats(regen.hidden, committed.hidden, H), oracle_regen_bounds::kOutputs);
    check_ulp(kGate, c.name(), "sample_probs", stats(regen.sample_probs, committed.sample_probs, V),
              oracle_regen_bounds::kOutputs);
    ++cases;
  }
  EXPECT_EQ(cases, 18) << "three geometries x six seeds, or the manifest changed under the gate";
}

}  // namespace

const std::string& regeneration_made_here() { return made_dir; }

}  // namespace music3::gates

// Removes the regeneration folder this run made when every test passed; keeps it (and names it) otherwise.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const std::string& made = music3::gates::regeneration_made_here();
  if (!made.empty()) {
    if (status == 0)
      std::filesystem::remove_all(made);
    else
      std::cerr << "gate_depth_oracle_regen: the regeneration is kept in " << made << "\n";
  }
  return status;
}
