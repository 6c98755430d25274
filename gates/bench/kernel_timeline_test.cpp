// The breakdown tools' kernel trace summary (bench/support/kernel_timeline.h) on hand-made records: the exposed and
// idle-before charges add up to each step's span, a kernel that ran under an earlier one is exposed 0, kernels are
// grouped by their short names, and records that cannot be steps of one graph are refused by name.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/support/kernel_timeline.h"

namespace music3::bench {
namespace {

const KernelRow& row(const KernelTimeline& t, const std::string& name) {
  for (const KernelRow& r : t.rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

// One step (ns): a 0-10, b 12-20 (idle 2), c 15-18 (under b: exposed 0), d 19-30 (overlaps b by 1: exposed 10).
std::vector<KernelRecord> step_at(uint64_t t0) {
  return {{"void a_kernel()", t0 + 0, t0 + 10000}, {"void b_kernel(int)", t0 + 12000, t0 + 20000},
          {"void c_kernel()", t0 + 15000, t0 + 18000}, {"void a_kernel()", t0 + 19000, t0 + 30000}};
}

TEST(KernelTimeline, ChargesAddUpToTheSpan) {
  std::vector<KernelRecord> records = step_at(1'000'000);
  const auto second = step_at(2'000'000);
  records.insert(records.begin(), second.rbegin(), second.rend());  // out of order: the summary sorts by start
  const KernelTimeline t = summarize_kernels(records, 2);
  EXPECT_EQ(t.steps, 2);
  EXPECT_EQ(t.kernels_per_step, 4);
  EXPECT_DOUBLE_EQ(t.span_us, 30.0);
  EXPECT_DOUBLE_EQ(t.idle_us, 2.0);
  EXPECT_DOUBLE_EQ(t.exposed_us, 28.0);
  EXPECT_DOUBLE_EQ(t.exposed_us + t.idle_us, t.span_us);
  EXPECT_DOUBLE_EQ(t.busy_us, 10.0 + 8.0 + 3.0 + 11.0);
  const KernelRow& a = row(t, "a_kernel");
  EXPECT_EQ(a.calls, 2);
  EXPECT_DOUBLE_EQ(a.busy_us, 21.0);
  EXPECT_DOUBLE_EQ(a.exposed_us, 20.0);  // 10 + the 10 its second call added past b's end
  EXPECT_DOUBLE_EQ(row(t, "b_kernel").idle_before_us, 2.0);
  EXPECT_DOUBLE_EQ(row(t, "c_kernel").exposed_us, 0.0);
  EXPECT_EQ(t.rows.front().name, "a_kernel");  // largest exposed first
  std::ostringstream out;
  print_kernel_timeline(out, t);
  EXPECT_NE(out.str().find("step span 30.0 us = exposed 28.0 + idle 2.0"), std::string::npos) << out.str();
  EXPECT_EQ(kernel_timeline_json(t)["kernels"].size(), 3u);
}

TEST(KernelTimeline, RefusesRecordsThatAreNotWholeSteps) {
  auto records = step_at(0);
  records.pop_back();
  try {
    summarize_kernels(records, 2);
    FAIL() << "3 kernels split into 2 steps";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("3 kernels do not split into 2 steps"), std::string::npos) << e.what();
  }
  records = step_at(0);
  records[1].end_ns = records[1].start_ns - 1;
  EXPECT_THROW(summarize_kernels(records, 1), std::invalid_argument);
  EXPECT_THROW(summarize_kernels({}, 1), std::invalid_argument);
}

// A loop's whole periods, from one anchor kernel to the next: the warm-up periods skipped, the tail left out.
TEST(KernelTimeline, WholePeriodsRunFromAnchorToAnchor) {
  std::vector<KernelRecord> records;
  for (uint64_t i = 0; i < 5; ++i) {  // period i: sample at 100 i, then work at 100 i + 10 (the first one longer)
    records.push_back({"void music3::ops::(anonymous namespace)::lm_sample_kernel(int)", 100 * i, 100 * i + 5});
    records.push_back({"void work()", 100 * i + 10, 100 * i + (i == 0 ? 90 : 50)});
  }
  const auto periods = whole_periods(records, "lm_sample_kernel", 1, 3);
  ASSERT_EQ(periods.size(), 6u);
  EXPECT_EQ(periods.front().start_ns, 100u);
  EXPECT_EQ(periods.back().start_ns, 310u);
  const KernelTimeline t = summarize_kernels(periods, 3);
  EXPECT_DOUBLE_EQ(t.span_us, 0.050);
  try {
    whole_periods(records, "lm_sample_kernel", 2, 3);
    FAIL() << "5 anchors made 3 periods after 2";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("5 kernels named 'lm_sample_kernel', fewer than the 6"), std::string::npos)
        << e.what();
  }
}

TEST(KernelTimeline, ShortNamesDropTheParametersAndTheProjectNamespaces) {
  EXPECT_EQ(short_kernel_name("void music3::ops::gemv::gemv_fast_kernel<2, 2, 4, 3, false, "
                              "music3::ops::gemv::PlainRows>(music3::ops::gemv::PlainRows, music3::bf16 const*, "
                              "music3::bf16*, int, long, long)"),
            "gemv::gemv_fast_kernel<2, 2, 4, 3, false, gemv::PlainRows>");
  EXPECT_EQ(short_kernel_name("void music3::ops::(anonymous namespace)::add_rms_norm_kernel(music3::bf16 const*)"),
            "add_rms_norm_kernel");
  EXPECT_EQ(short_kernel_name("cutlass_80_tensorop_bf16_s16816gemm"), "cutlass_80_tensorop_bf16_s16816gemm");
}

}  // namespace
}  // namespace music3::bench
