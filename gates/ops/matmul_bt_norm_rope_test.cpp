// matmul_bt's qk_norm_rope epilogue gate (ops.h): the epilogue call must give, bit for bit, what matmul_bt and then
// qk_norm_rope give on the same provider, and leave the arrivals count zero, on every seed and geometry:
//  - 6 seeds x 3 geometries: Qwen3's projection (32 q + 8 k/v heads of 128, K 4096, both CFG rows), one row with
//    partial rotary (R 64 of 128, K 2048), and an odd head count at K 12288 (the widest fast path, the packed
//    kernel) whose heads span many blocks; each call three times in a row on one count (a count left non-zero, or a head finished by a
//    block that was not last, changes the second call's bits);
//  - a call the fused provider declines (M = 3) given to the two ops; on CUDA a position past the table (rows normed,
//    not rotated, by both forms);
//  - which provider ran: where cuda.matmul_bt.gemv.norm_rope is enabled (the gate's twin op_matmul_bt_norm_rope_cuda_
//    fused) it takes every call of the LM's geometry and no other; disabled, the entry point's two ops run;
//  - refusals named: a bias with the epilogue, an epilogue that norms another tensor, an arrivals count of the wrong
//    shape or dtype.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "engine/core/device_array.h"
#include "engine/ops/lm_ops.h"
#include "engine/ops/ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/provider_use.h"

namespace music3::optest {
namespace {

constexpr int64_t kDim = 128;
constexpr int kRepeats = 3;
const char* const kFused = "cuda.matmul_bt.gemv.norm_rope";

struct Case {
  int64_t rows, k, heads, kv_heads, rot, positions;
  int pos0, batch;
  int64_t width() const { return (heads + 2 * kv_heads) * kDim; }
  bool fusable() const { return rows <= 2 && k % 8 == 0 && k <= 12288; }
  std::string name() const {
    return "M " + std::to_string(rows) + " K " + std::to_string(k) + " heads " + std::to_string(heads) + "+" +
           std::to_string(kv_heads) + " R " + std::to_string(rot) + " pos " + std::to_string(pos0);
  }
};

// The drawn inputs of one call: activations (sd 1), weights (sd 0.05), norms near 1, tables (sd 0.7).
struct Inputs {
  std::vector<bf16> a, w, q_norm, k_norm, cos, sin;
  Inputs(const Case& c, uint64_t seed)
      : a(normal_bf16(size_t(c.rows * c.k), seed, 1.0)), w(normal_bf16(size_t(c.width() * c.k), seed + 1, 0.05)),
        q_norm(near_one(seed + 2)), k_norm(near_one(seed + 3)),
        cos(normal_bf16(size_t(c.positions * c.rot), seed + 4, 0.7)),
        sin(normal_bf16(size_t(c.positions * c.rot), seed + 5, 0.7)) {}
  static std::vector<bf16> near_one(uint64_t seed) {
    std::vector<bf16> v = normal_bf16(size_t(kDim), seed, 0.3);
    for (auto& x : v) x = to_bf16(to_f32(x) + 1.0f);
    return v;
  }
};

// The operands of one call, resident on the queue's device, the arrivals count zeroed.
struct Operands {
  DeviceArray a, w, out, q_norm, k_norm, cos, sin, pos, arrivals;
  const Case& c;
  Operands(const Queue& q, const Case& cs, const Inputs& in)
      : a(q, DType::BF16, {cs.rows, cs.k}), w(q, DType::BF16, {cs.width(), cs.k}),
        out(q, DType::BF16, {cs.rows, cs.width()}), q_norm(q, DType::BF16, {kDim}), k_norm(q, DType::BF16, {kDim}),
        cos(q, DType::BF16, {cs.positions, cs.rot}), sin(q, DType::BF16, {cs.positions, cs.rot}),
        pos(q, DType::I32, {1}), arrivals(q, DType::I32, {cs.heads + cs.kv_heads}), c(cs) {
    a.upload(in.a);
    w.upload(in.w);
    q_norm.upload(in.q_norm);
    k_norm.upload(in.k_norm);
    cos.upload(in.cos);
    sin.upload(in.sin);
    pos.upload(std::vector<int32_t>{c.pos0});
    arrivals.upload(std::vector<int32_t>(size_t(c.heads + c.kv_heads), 0));
  }
  ops::QkNormRopeArgs norm_rope() const {
    return {out, q_norm, k_norm, cos, sin, pos, int(c.heads), int(c.kv_heads), c.batch, 1e-6f};
  }
};

// The two ops, one after the other.
std::vector<bf16> two_ops(const Queue& q, const Case& c, const Inputs& in) {
  Operands o(q, c, in);
  o.out.poison();
  ops::matmul_bt(q, o.a, o.w, o.out);
  ops::qk_norm_rope(q, o.norm_rope());
  return o.out.download<bf16>();
}

// The epilogue call kRepeats times on one arrivals count: every call's output, and the count after the last.
struct EpilogueRuns {
  std::vector<std::vector<bf16>> outs;
  std::vector<int32_t> arrivals;
};
EpilogueRuns with_epilogue(const Queue& q, const Case& c, const Inputs& in) {
  Operands o(q, c, in);
  EpilogueRuns r;
  for (int i = 0; i < kRepeats; ++i) {
    o.out.poison();
    const ops::QkNormRopeArgs nr = o.norm_rope();
    ops::matmul_bt(q, {o.a, o.w, o.out, {}, &nr, o.arrivals});
    r.outs.push_back(o.out.download<bf16>());
  }
  r.arrivals = o.arrivals.download<int32_t>();
  return r;
}

// Bit equality, naming the first differing (row, head, dim) and counting the rest.
void expect_bits(const std::vector<bf16>& got, const std::vector<bf16>& want, const Case& c, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i].bits != want[i].bits && differ++ == 0) first = i;
  const int64_t row = int64_t(first) / c.width(), col = int64_t(first) % c.width();
  EXPECT_EQ(differ, 0u) << provider_name() << " " << what << ": " << differ << " differ, first at row " << row
                        << " head " << col / kDim << " dim " << col % kDim << " (" << to_f32(got[first]) << " vs "
                        << to_f32(want[first]) << ")";
}

// Runs the case both ways on `seeds` seeds, and counts the fused provider's calls.
void expect_two_ops_bits(const Case& c, int seeds) {
  const Queue q = provider_queue(0);
  const OptInCalls fused(kFused);
  for (int s = 1; s <= seeds; ++s) {
    const Inputs in(c, 100 * uint64_t(s));
    const std::string what = c.name() + " seed " + std::to_string(s);
    const std::vector<bf16> want = two_ops(q, c, in);
    const EpilogueRuns got = with_epilogue(q, c, in);
    for (int i = 0; i < kRepeats; ++i) expect_bits(got.outs[size_t(i)], want, c, what + " call " + std::to_string(i + 1));
    for (size_t h = 0; h < got.arrivals.size(); ++h)
      EXPECT_EQ(got.arrivals[h], 0) << provider_name() << " " << what << ": arrivals[" << h << "] left non-zero";
  }
  fused.expect_took(c.fusable() ? uint64_t(seeds) * kRepeats : 0, c.name());
}

TEST(MatmulBtNormRope, EpilogueGivesTheTwoOpsBits) {
  const Case cases[] = {{2, 4096, 32, 8, 128, 64, 17, 2}, {1, 2048, 4, 2, 64, 40, 39, 1}, {2, 12288, 5, 1, 128, 9, 3, 2}};
  for (const Case& c : cases) expect_two_ops_bits(c, 6);
}

TEST(MatmulBtNormRope, DeclinedShapeRunsTheTwoOps) {
  expect_two_ops_bits({3, 1024, 2, 1, 128, 8, 2, 1}, 2);  // M = 3: the fused provider declines it
}

TEST(MatmulBtNormRope, PositionPastTheTableOnCuda) {
  if (!provider_is_cuda()) GTEST_SKIP() << "the CPU provider refuses a position past the table (std::out_of_range)";
  expect_two_ops_bits({2, 4096, 32, 8, 128, 16, 16, 2}, 2);  // pos 16 of a 16-row table: normed, not rotated
}

TEST(MatmulBtNormRope, RefusalsNameTheArgument) {
  const Queue q = provider_queue(0);
  const Case c{2, 256, 2, 1, 128, 8, 1, 2};
  const Inputs in(c, 7);
  Operands o(q, c, in);
  const ops::QkNormRopeArgs nr = o.norm_rope();
  DeviceArray bias(q, DType::BF16, {c.width()}), other(q, DType::BF16, {c.rows, c.width()});
  DeviceArray wide(q, DType::I32, {c.heads + c.kv_heads + 1}), f32(q, DType::F32, {c.heads + c.kv_heads});
  const auto refused = [&](const ops::MatmulBTArgs& args, const std::string& needle) {
    try {
      ops::matmul_bt(q, args);
      ADD_FAILURE() << "not refused: " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refused({o.a, o.w, o.out, bias, &nr, o.arrivals}, "'norm_rope'");
  ops::QkNormRopeArgs elsewhere = nr;
  elsewhere.x = other;
  refused({o.a, o.w, o.out, {}, &elsewhere, o.arrivals}, "'norm_rope'");
  refused({o.a, o.w, o.out, {}, &nr, wide}, "'arrivals'");
  refused({o.a, o.w, o.out, {}, &nr, f32}, "'arrivals'");
}

}  // namespace
}  // namespace music3::optest
