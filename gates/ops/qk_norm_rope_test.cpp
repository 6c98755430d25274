// qk_norm_rope gate: the provider under test against a host reference computed independently of every provider
// (lm_ops.h: the q heads normed with q_norm and the k heads with k_norm in f64 with the two bf16 roundings, then
// the rotation's three roundings, gates/ops/support/rope_reference.h; the v heads untouched):
//  - bits: heads of entries +-a (a a power of two per head, signs drawn) norm to exactly +-w on every provider
//    (ss / D = a^2 and 1 / a are exact, eps moves x * r far less than half a bf16 ulp), so the whole op must equal
//    the reference bit for bit: 6 seeds x 3 geometries (Qwen3's 32 q + 8 k heads of 128 at two rows; an odd head
//    count with T = 3 tokens; partial rotary, the table narrower than the head);
//  - the norm's band: drawn heads under identity tables (cos 1, sin 0) against the f64 norm: every element within
//    1 ulp and >= 99.5 % exact (ss in f32 vs f64 is the only difference);
//  - a position past the table: refused (CPU, std::out_of_range) or its rows normed and not rotated (CUDA);
//  - thread-count invariance (CPU) and the CPU provider's band (CUDA); refusals named.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "engine/core/device_array.h"
#include "engine/ops/lm_ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/rope_reference.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t tokens, batch, heads, kv_heads, dim, rot, positions;
  int pos0;
  int64_t rows() const { return tokens * batch; }
  int64_t width() const { return (heads + 2 * kv_heads) * dim; }
  std::string name() const {
    return "heads " + std::to_string(heads) + "+" + std::to_string(kv_heads) + " D " + std::to_string(dim) + " R " +
           std::to_string(rot) + " T " + std::to_string(tokens) + " pos " + std::to_string(pos0);
  }
};

struct Inputs {
  std::vector<bf16> x, q_norm, k_norm, cos, sin;
};

std::vector<bf16> weights(int64_t n, uint64_t seed) {
  std::vector<bf16> w = normal_bf16(size_t(n), seed, 0.3);
  for (auto& v : w) v = to_bf16(to_f32(v) + 1.0f);
  return w;
}

// Drawn heads (sd 2), norms (1 + sd 0.3) and tables (sd 0.7).
Inputs drawn(const Case& c, uint64_t seed) {
  return {normal_bf16(size_t(c.rows() * c.width()), seed, 2.0), weights(c.dim, seed + 1), weights(c.dim, seed + 2),
          normal_bf16(size_t(c.positions * c.rot), seed + 3, 0.7),
          normal_bf16(size_t(c.positions * c.rot), seed + 4, 0.7)};
}

// drawn(), with every head of every row holding +-a, a = 2^k for k in [-3, 3] drawn per (row, head).
Inputs exact_norm(const Case& c, uint64_t seed) {
  Inputs in = drawn(c, seed);
  std::mt19937_64 gen(seed + 5);
  std::uniform_int_distribution<int> exponent(-3, 3), sign(0, 1);
  for (int64_t r = 0; r < c.rows(); ++r)
    for (int64_t h = 0; h < c.heads + 2 * c.kv_heads; ++h) {
      const float a = std::ldexp(1.0f, exponent(gen));
      for (int64_t i = 0; i < c.dim; ++i) in.x[size_t(r * c.width() + h * c.dim + i)] = to_bf16(sign(gen) ? -a : a);
    }
  return in;
}

// cos 1 and sin 0 everywhere: the rotation returns n unchanged.
void identity_tables(Inputs& in) {
  for (auto& v : in.cos) v = to_bf16(1.0f);
  for (auto& v : in.sin) v = to_bf16(0.0f);
}

std::vector<bf16> run(const Queue& q, const Inputs& in, const Case& c, float eps) {
  DeviceArray x(q, DType::BF16, {c.rows(), c.width()}), qn(q, DType::BF16, {c.dim}), kn(q, DType::BF16, {c.dim});
  DeviceArray cb(q, DType::BF16, {c.positions, c.rot}), sb(q, DType::BF16, {c.positions, c.rot});
  DeviceArray pb(q, DType::I32, {1});
  x.upload(in.x);
  qn.upload(in.q_norm);
  kn.upload(in.k_norm);
  cb.upload(in.cos);
  sb.upload(in.sin);
  pb.upload(std::vector<int32_t>{c.pos0});
  ops::qk_norm_rope(q, {x, qn, kn, cb, sb, pb, int(c.heads), int(c.kv_heads), int(c.batch), eps});
  return x.download<bf16>();
}

std::vector<bf16> reference(const Inputs& in, const Case& c, float eps) {
  std::vector<bf16> x = in.x;
  for (int64_t r = 0; r < c.rows(); ++r)
    for (int64_t h = 0; h < c.heads + c.kv_heads; ++h) {
      const std::vector<bf16>& w = h < c.heads ? in.q_norm : in.k_norm;
      bf16* head = x.data() + r * c.width() + h * c.dim;
      double ss = 0;
      for (int64_t d = 0; d < c.dim; ++d) ss += double(to_f32(head[d])) * to_f32(head[d]);
      const double inv = 1.0 / std::sqrt(ss / double(c.dim) + double(eps));
      for (int64_t d = 0; d < c.dim; ++d)
        head[d] = bf16_from_f64(double(to_f32(bf16_from_f64(to_f32(head[d]) * inv))) * to_f32(w[size_t(d)]));
    }
  const RopeLayout l{c.width(), int(c.heads + c.kv_heads), c.dim, c.batch, c.pos0, c.rot};
  return rope_reference(std::move(x), l, in.cos, in.sin);
}

// Bit equality, naming the first differing (row, head, dim) and counting the rest.
void expect_bits(const std::vector<bf16>& got, const std::vector<bf16>& want, const Case& c, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i].bits != want[i].bits && differ++ == 0) first = i;
  const int64_t row = int64_t(first) / c.width(), col = int64_t(first) % c.width();
  EXPECT_EQ(differ, 0u) << provider_name() << " " << what << ": first at row " << row << " head " << col / c.dim
                        << " dim " << col % c.dim << " (" << to_f32(got[first]) << " vs " << to_f32(want[first])
                        << ")";
}

// Bounds measured on the CPU provider over the band's cases (and met by the CUDA one): every element within
// 1 ulp and >= 99.5 % exact.
void expect_close(const std::vector<bf16>& got, const std::vector<bf16>& ref, const std::string& what) {
  const gates::UlpStats s = gates::ulp_stats(got, ref);
  report(provider_name() + " " + what, s);
  SCOPED_TRACE(provider_name() + " " + what + ": " + s.summary());
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.within_one, s.nonzero_refs);
  EXPECT_GE(double(s.exact), 0.995 * double(s.nonzero_refs));
}

TEST(QkNormRope, ExactNormsRotateToTheReferenceBitForBit) {
  const Case cases[] = {{1, 2, 32, 8, 128, 128, 40, 17}, {3, 2, 3, 1, 64, 64, 12, 7}, {2, 2, 4, 2, 64, 32, 9, 3}};
  for (const Case& c : cases)
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      const Inputs in = exact_norm(c, 10 * seed);
      expect_bits(run(provider_queue(0), in, c, 1e-6f), reference(in, c, 1e-6f), c,
                  c.name() + " seed " + std::to_string(seed));
    }
}

TEST(QkNormRope, NormWithinTheBandOfTheF64Norm) {
  const Case qwen{1, 2, 32, 8, 128, 128, 2, 1}, odd{37, 1, 5, 1, 40, 40, 40, 3};
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Inputs in = drawn(qwen, 100 * seed);
    identity_tables(in);
    expect_close(run(provider_queue(0), in, qwen, 1e-6f), reference(in, qwen, 1e-6f),
                 qwen.name() + " seed " + std::to_string(seed));
  }
  Inputs in = drawn(odd, 7);
  in.x = normal_bf16(in.x.size(), 8, 0.05);
  identity_tables(in);
  expect_close(run(provider_queue(0), in, odd, 1e-5f), reference(in, odd, 1e-5f), odd.name());
}

TEST(QkNormRope, PositionsPastTheTable) {
  const Case c{2, 2, 2, 1, 8, 8, 4, 3};  // token 1 sits at position 4 of a 4-row table
  const Inputs in = exact_norm(c, 50);
  if (!provider_is_cuda()) {
    EXPECT_THROW(run(provider_queue(0), in, c, 1e-6f), std::out_of_range);
    return;
  }
  expect_bits(run(provider_queue(0), in, c, 1e-6f), reference(in, c, 1e-6f), c, "token 1 past the table");
}

TEST(QkNormRope, BitsDoNotDependOnThreadsOrMatchTheCpuProvider) {
  const Case c{7, 2, 6, 2, 64, 64, 20, 5};
  Inputs in = drawn(c, 99);
  if (!provider_is_cuda()) {
    EXPECT_EQ(bits(run(cpu_queue(2), in, c, 1e-6f)), bits(run(cpu_queue(1), in, c, 1e-6f)));
    return;
  }
  identity_tables(in);
  expect_close(run(provider_queue(0), in, c, 1e-6f), run(cpu_queue(1), in, c, 1e-6f), "vs CPU provider");
}

TEST(QkNormRope, RefusesMismatchedNormsAndHeadsByName) {
  const Queue q = provider_queue(0);
  const Case c{1, 2, 4, 2, 64, 64, 8, 0};
  DeviceArray x(q, DType::BF16, {c.rows(), c.width()}), qn(q, DType::BF16, {c.dim}), kn(q, DType::BF16, {c.dim});
  DeviceArray cb(q, DType::BF16, {c.positions, c.rot}), sb(q, DType::BF16, {c.positions, c.rot});
  DeviceArray wide(q, DType::BF16, {c.positions, 2 * c.rot}), pb(q, DType::I32, {1}), narrow(q, DType::BF16, {32});
  const ops::QkNormRopeArgs good{x, qn, kn, cb, sb, pb, int(c.heads), int(c.kv_heads), int(c.batch), 1e-6f};
  auto expect_refused = [&](const ops::QkNormRopeArgs& a, const std::string& name) {
    try {
      ops::qk_norm_rope(q, a);
      ADD_FAILURE() << "accepted a bad '" << name << "'";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("qk_norm_rope"), std::string::npos) << m;
      EXPECT_NE(m.find(name), std::string::npos) << m;
    }
  };
  ops::QkNormRopeArgs a = good;
  a.k_norm = narrow;
  expect_refused(a, "k_norm");
  a = good;
  a.kv_heads = 5;  // 4 + 5 heads of 64 past the q and k heads of a 512-wide row
  expect_refused(a, "kv_heads");
  a = good;
  a.batch = 3;
  expect_refused(a, "batch");
  a = good;
  a.cos = a.sin = wide;  // a table wider than the head
  expect_refused(a, "cos");
}

}  // namespace
}  // namespace music3::optest
