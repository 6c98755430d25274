// matmul_bt's add_rms_norm epilogue gate (ops.h): the epilogue call must give, bit for bit, what matmul_bt and then
// add_rms_norm (x + out into h_out, its norm into a_out) give on the same provider, and leave the arrivals count
// zero, on every seed and geometry:
//  - 6 seeds x 3 geometries: the LM's o projection (K 4096 into N 4096, both CFG rows: every one of a thread's 16
//    elements), its down projection's K (12288: the packed GEMV) into N 1024, and one row into N 1000 (a partial
//    batch); each call three times in a row on one count (a count left non-zero, or a norm taken by a block that was
//    not last, changes a later call's bits), and once more in place (h_out the very view of x);
//  - a call the fused provider declines (M = 3, N 4104 > 4096) given to the two ops;
//  - which provider ran: where cuda.matmul_bt.gemv.add_norm is enabled (twin op_matmul_bt_add_norm_cuda_fused) it
//    takes every call of M <= 2 and N <= 4096 and no other; disabled, the entry point's two ops run;
//  - refusals named: an epilogue whose r is not out, two epilogues, an arrivals count of the wrong shape.
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

constexpr int kRepeats = 3;
const char* const kFused = "cuda.matmul_bt.gemv.add_norm";

struct Case {
  int64_t rows, k, n;
  bool fusable() const { return rows <= 2 && k % 8 == 0 && k <= 12288 && n <= 4096; }
  std::string name() const {
    return "M " + std::to_string(rows) + " K " + std::to_string(k) + " N " + std::to_string(n);
  }
};

// Activations (sd 1), weights (sd 0.05), the residual (sd 1), the norm weight near 1.
struct Inputs {
  std::vector<bf16> a, w, x, norm;
  Inputs(const Case& c, uint64_t seed)
      : a(normal_bf16(size_t(c.rows * c.k), seed, 1.0)), w(normal_bf16(size_t(c.n * c.k), seed + 1, 0.05)),
        x(normal_bf16(size_t(c.rows * c.n), seed + 2, 1.0)), norm(normal_bf16(size_t(c.n), seed + 3, 0.3)) {
    for (auto& v : norm) v = to_bf16(to_f32(v) + 1.0f);
  }
};

// What a call leaves: the product, the new residual and its norm.
struct Outputs {
  std::vector<bf16> out, h, a;
};

struct Operands {
  DeviceArray a, w, out, x, norm, h, normed, arrivals;
  Operands(const Queue& q, const Case& c, const Inputs& in)
      : a(q, DType::BF16, {c.rows, c.k}), w(q, DType::BF16, {c.n, c.k}), out(q, DType::BF16, {c.rows, c.n}),
        x(q, DType::BF16, {c.rows, c.n}), norm(q, DType::BF16, {c.n}), h(q, DType::BF16, {c.rows, c.n}),
        normed(q, DType::BF16, {c.rows, c.n}), arrivals(q, DType::I32, {1}) {
    a.upload(in.a);
    w.upload(in.w);
    x.upload(in.x);
    norm.upload(in.norm);
    arrivals.upload(std::vector<int32_t>{0});
  }
  void poison() {
    out.poison();
    h.poison();
    normed.poison();
  }
  // h_out is x itself when in_place.
  ops::AddRmsNormArgs add_norm(bool in_place) const { return {x, out, norm, in_place ? x : h, normed, 1e-6f}; }
  Outputs outputs(bool in_place) const {
    return {out.download<bf16>(), (in_place ? x : h).download<bf16>(), normed.download<bf16>()};
  }
};

Outputs two_ops(const Queue& q, const Case& c, const Inputs& in, bool in_place) {
  Operands o(q, c, in);
  o.poison();
  ops::matmul_bt(q, o.a, o.w, o.out);
  const ops::AddRmsNormArgs an = o.add_norm(in_place);
  ops::add_rms_norm(q, an.x, an.r, an.w, an.eps, an.h_out, an.a_out);
  return o.outputs(in_place);
}

// The epilogue call `repeats` times on one arrivals count: every call's outputs, and the count after the last.
std::vector<Outputs> with_epilogue(const Queue& q, const Case& c, const Inputs& in, bool in_place, int repeats,
                                   std::vector<int32_t>& arrivals) {
  Operands o(q, c, in);
  std::vector<Outputs> runs;
  for (int i = 0; i < repeats; ++i) {
    o.poison();
    const ops::AddRmsNormArgs an = o.add_norm(in_place);
    ops::matmul_bt(q, {o.a, o.w, o.out, {}, nullptr, o.arrivals, &an});
    runs.push_back(o.outputs(in_place));
  }
  arrivals = o.arrivals.download<int32_t>();
  return runs;
}

void expect_same(const Outputs& got, const Outputs& want, const std::string& what) {
  EXPECT_EQ(bits(got.out), bits(want.out)) << provider_name() << " " << what << ": out";
  EXPECT_EQ(bits(got.h), bits(want.h)) << provider_name() << " " << what << ": h_out";
  EXPECT_EQ(bits(got.a), bits(want.a)) << provider_name() << " " << what << ": a_out";
}

// The case on `seeds` seeds, kRepeats calls apart from x and one in place each, and the fused provider's calls.
void expect_two_ops_bits(const Case& c, int seeds) {
  const Queue q = provider_queue(0);
  const OptInCalls fused(kFused);
  for (int s = 1; s <= seeds; ++s) {
    const Inputs in(c, 100 * uint64_t(s));
    const std::string what = c.name() + " seed " + std::to_string(s);
    for (const bool in_place : {false, true}) {
      const Outputs want = two_ops(q, c, in, in_place);
      std::vector<int32_t> arrivals;
      const std::vector<Outputs> got = with_epilogue(q, c, in, in_place, in_place ? 1 : kRepeats, arrivals);
      for (size_t i = 0; i < got.size(); ++i)
        expect_same(got[i], want, what + (in_place ? " in place" : " call " + std::to_string(i + 1)));
      EXPECT_EQ(arrivals, std::vector<int32_t>{0}) << provider_name() << " " << what << ": arrivals left non-zero";
    }
  }
  fused.expect_took(c.fusable() ? uint64_t(seeds) * (kRepeats + 1) : 0, c.name());
}

TEST(MatmulBtAddNorm, EpilogueGivesTheTwoOpsBits) {
  const Case cases[] = {{2, 4096, 4096}, {2, 12288, 1024}, {1, 2048, 1000}};
  for (const Case& c : cases) expect_two_ops_bits(c, 6);
}

TEST(MatmulBtAddNorm, DeclinedShapesRunTheTwoOps) {
  expect_two_ops_bits({3, 1024, 512}, 2);   // three rows
  expect_two_ops_bits({2, 1024, 4104}, 2);  // wider than the tail's 16 elements per thread
}

TEST(MatmulBtAddNorm, RefusalsNameTheArgument) {
  const Queue q = provider_queue(0);
  const Case c{2, 256, 512};
  const Inputs in(c, 7);
  Operands o(q, c, in);
  const ops::AddRmsNormArgs an = o.add_norm(false);
  DeviceArray two(q, DType::I32, {2});
  const auto refused = [&](const ops::MatmulBTArgs& args, const std::string& needle) {
    try {
      ops::matmul_bt(q, args);
      ADD_FAILURE() << "not refused: " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  ops::AddRmsNormArgs elsewhere = an;
  elsewhere.r = o.h;
  refused({o.a, o.w, o.out, {}, nullptr, o.arrivals, &elsewhere}, "'add_norm'");
  refused({o.a, o.w, o.out, {}, nullptr, two, &an}, "'arrivals'");
  DeviceArray qn(q, DType::BF16, {128}), cs(q, DType::BF16, {4, 128}), pos(q, DType::I32, {1});
  const ops::QkNormRopeArgs nr{o.out, qn, qn, cs, cs, pos, 2, 1, 2, 1e-6f};
  refused({o.a, o.w, o.out, {}, &nr, o.arrivals, &an}, "'add_norm'");
}

}  // namespace
}  // namespace music3::optest
