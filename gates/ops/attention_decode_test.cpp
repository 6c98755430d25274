// attention_decode gate: the provider under test against an independent f64
// reference with the contract's rounding points (bf16 unnormalised probabilities,
// bf16 output), cache rows at and past `length` poisoned with NaN (never read),
// thread-count invariance (CPU) and agreement with the CPU provider (CUDA).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/ops/ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t batch, heads, dim, tmax;
  int length;
  float scale;
};

struct Inputs {
  std::vector<bf16> q, k, v;
};

Inputs make_inputs(const Case& c, uint64_t seed) {
  const int64_t width = c.heads * c.dim;
  Inputs in{normal_bf16(c.batch * width, seed, 1.0), normal_bf16(c.batch * c.tmax * width, seed + 1, 1.0),
            normal_bf16(c.batch * c.tmax * width, seed + 2, 1.0)};
  for (int64_t b = 0; b < c.batch; ++b)  // positions >= length are not attended: poison them
    for (int64_t t = c.length; t < c.tmax; ++t)
      for (int64_t i = 0; i < width; ++i) {
        in.k[(b * c.tmax + t) * width + i] = bf16{0x7FC0};
        in.v[(b * c.tmax + t) * width + i] = bf16{0x7FC0};
      }
  return in;
}

std::vector<bf16> reference(const Inputs& in, const Case& c) {
  const int64_t width = c.heads * c.dim;
  std::vector<bf16> out(static_cast<size_t>(c.batch * width));
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h) {
      std::vector<double> s(static_cast<size_t>(c.length));
      for (int t = 0; t < c.length; ++t) {
        double dot = 0;
        for (int64_t d = 0; d < c.dim; ++d)
          dot += static_cast<double>(to_f32(in.q[b * width + h * c.dim + d])) *
                 to_f32(in.k[(b * c.tmax + t) * width + h * c.dim + d]);
        s[t] = dot * c.scale;
      }
      const double m = *std::max_element(s.begin(), s.end());
      double l = 0;
      std::vector<double> p(s.size());
      for (int t = 0; t < c.length; ++t) {
        const double e = std::exp(s[t] - m);
        l += e;
        p[t] = to_f32(bf16_from_f64(e));
      }
      for (int64_t d = 0; d < c.dim; ++d) {
        double acc = 0;
        for (int t = 0; t < c.length; ++t) acc += p[t] * to_f32(in.v[(b * c.tmax + t) * width + h * c.dim + d]);
        out[b * width + h * c.dim + d] = bf16_from_f64(acc / l);
      }
    }
  return out;
}

std::vector<bf16> run(const Queue& q, const Inputs& in, const Case& c) {
  const int64_t width = c.heads * c.dim;
  DeviceArray qb(q, DType::BF16, {c.batch, width}), ob(q, DType::BF16, {c.batch, width});
  DeviceArray kb(q, DType::BF16, {c.batch, c.tmax, width}), vb(q, DType::BF16, {c.batch, c.tmax, width});
  qb.upload(in.q);
  kb.upload(in.k);
  vb.upload(in.v);
  ob.poison();
  ops::attention_decode(q, qb, kb, vb, c.length, static_cast<int>(c.heads), c.scale, ob);
  return ob.download<bf16>();
}

void expect_close(const std::vector<bf16>& got, const std::vector<bf16>& ref, const std::string& what) {
  const gates::UlpStats s = gates::ulp_stats(got, ref);
  report(provider_name() + " " + what, s);
  SCOPED_TRACE(provider_name() + " " + what + ": " + s.summary());
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.nonzero_refs + s.zero_refs + s.nonfinite, s.compared);
  EXPECT_LE(s.max_conditioned, 1.0);
  EXPECT_GE(static_cast<double>(s.within_one), 0.99 * static_cast<double>(s.nonzero_refs));
  EXPECT_GE(static_cast<double>(s.exact), 0.99 * static_cast<double>(s.nonzero_refs));
}

TEST(AttentionDecode, MatchesF64ReferenceAtModelGeometry) {
  for (int length : {1, 2, 5, 8, 16}) {
    const Case c{2, 16, 256, 16, length, 1.0f / 16.0f};
    const Inputs in = make_inputs(c, 10 + static_cast<uint64_t>(length));
    expect_close(run(provider_queue(0), in, c), reference(in, c), "length " + std::to_string(length));
  }
}

TEST(AttentionDecode, PeakedScoresAndOddGeometry) {
  const Case peaked{2, 4, 64, 9, 9, 0.9f};  // large scores: one position dominates
  const Inputs a = make_inputs(peaked, 50);
  expect_close(run(provider_queue(0), a, peaked), reference(a, peaked), "peaked");
  const Case odd{3, 3, 40, 7, 6, 0.15f};  // head width not a multiple of 8 or 32
  const Inputs b = make_inputs(odd, 60);
  expect_close(run(provider_queue(0), b, odd), reference(b, odd), "odd geometry");
}

TEST(AttentionDecode, BitsDoNotDependOnThreadsOrMatchTheCpuProvider) {
  const Case c{2, 16, 256, 16, 11, 1.0f / 16.0f};
  const Inputs in = make_inputs(c, 70);
  const auto one_thread = run(cpu_queue(1), in, c);
  if (!provider_is_cuda()) {
    EXPECT_EQ(bits(run(cpu_queue(2), in, c)), bits(one_thread));
    EXPECT_EQ(bits(run(cpu_queue(0), in, c)), bits(one_thread));
    return;
  }
  expect_close(run(provider_queue(0), in, c), one_thread, "vs CPU provider");
}

}  // namespace
}  // namespace music3::optest
