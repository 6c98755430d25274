// matmul_bt gate: the provider under test against an independent f64 reference
// rounded once to bf16, over the GEMV shapes (CUDA: M <= 4) and the GEMM path, with
// K multiples of 8 and not, 16-byte aligned operands and not (CUDA's two paths);
// thread-count and M invariance (CPU) and agreement with the CPU provider (CUDA).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>

#include "engine/ops/ops.h"
#include "engine/ops/registry.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/provider_use.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

struct Dims {
  int64_t m, n, k;
};

std::vector<bf16> reference(const std::vector<bf16>& a, const std::vector<bf16>& b, Dims d) {
  std::vector<bf16> out(static_cast<size_t>(d.m * d.n));
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t j = 0; j < d.n; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < d.k; ++k) acc += static_cast<double>(to_f32(a[i * d.k + k])) * to_f32(b[j * d.k + k]);
      out[i * d.n + j] = bf16_from_f64(acc);
    }
  return out;
}

// Runs the op with a and b placed `skew` elements into their buffers (skew 1 breaks 16-byte alignment).
std::vector<bf16> run(const Queue& q, const std::vector<bf16>& a, const std::vector<bf16>& b, Dims d,
                      int64_t skew = 0) {
  DeviceArray ab(q, DType::BF16, {d.m * d.k + skew}), bb(q, DType::BF16, {d.n * d.k + skew});
  DeviceArray ob(q, DType::BF16, {d.m, d.n});
  std::vector<bf16> a_host(static_cast<size_t>(skew), bf16{0x7FC0}), b_host(static_cast<size_t>(skew), bf16{0x7FC0});
  a_host.insert(a_host.end(), a.begin(), a.end());
  b_host.insert(b_host.end(), b.begin(), b.end());
  ab.upload(a_host);
  bb.upload(b_host);
  ob.poison();
  Tensor av = ab.tensor(), bv = bb.tensor();
  av.data = av.as<bf16>() + skew;
  av.shape = {d.m, d.k};
  bv.data = bv.as<bf16>() + skew;
  bv.shape = {d.n, d.k};
  ops::matmul_bt(q, av, bv, ob);
  return ob.download<bf16>();
}

// The gate: over elements with |ref| >= 0.25 RMS the max is 1 ulp (an output near zero
// after cancellation has no meaningful relative error);
// the raw max (outputs near zero after cancellation) is only reported.
void expect_close_to_reference(const std::vector<bf16>& got, const std::vector<bf16>& ref, const std::string& what) {
  const gates::UlpStats s = gates::ulp_stats(got, ref);
  report(provider_name() + " " + what, s);
  SCOPED_TRACE(provider_name() + " " + what + ": " + s.summary());
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.nonzero_refs + s.zero_refs + s.nonfinite, s.compared);
  EXPECT_LE(s.max_conditioned, 1.0);
  EXPECT_GE(static_cast<double>(s.within_one), 0.99 * static_cast<double>(s.nonzero_refs));
  EXPECT_LE(s.mean, 0.2);
}

struct SeededDims {
  Dims d;
  uint64_t seed;  // a's seed; b's is seed + 1
};

void expect_shapes_close_to_reference(std::initializer_list<SeededDims> shapes) {
  for (const SeededDims& s : shapes) {
    const Dims d = s.d;
    const auto a = normal_bf16(d.m * d.k, s.seed, 1.0);
    const auto b = normal_bf16(d.n * d.k, s.seed + 1, 0.02);
    const std::string what = "M=" + std::to_string(d.m) + " N=" + std::to_string(d.n) + " K=" + std::to_string(d.k);
    std::printf("matmul_bt: %s\n", what.c_str());
    expect_close_to_reference(run(provider_queue(0), a, b, d), reference(a, b, d), what);
  }
}

// The GEMV shapes (M <= 4) apart from the GEMM ones, so that op_matmul_bt_cuda_racecheck runs the GEMV kernels alone:
// under racecheck on the H200 a process that also ran cuBLAS's GEMMs stopped in "failed to handle a hardware
// exception" (session 31; op_matmul_bt_cuda_memcheck checks every kernel of the op, the libraries' included).
TEST(MatmulBT, MatchesF64ReferenceOnGemvShapes) {
  expect_shapes_close_to_reference({{{2, 512, 4096}, 1}, {{1, 300, 1000}, 3}, {{3, 129, 100}, 5}, {{4, 64, 6144}, 7},
                                    {{2, 96, 12288}, 17}, {{1, 40, 10240}, 19}, {{1, 72, 12288}, 21}});
}

TEST(MatmulBT, MatchesF64ReferenceOnGemmShapes) {
  expect_shapes_close_to_reference({{{7, 129, 100}, 9}, {{16, 64, 6144}, 11}, {{17, 96, 256}, 13}, {{64, 80, 520}, 15}});
}

TEST(MatmulBT, UnalignedOperandsTakeTheScalarPathAndAgree) {
  const Dims d{3, 70, 512};
  const auto a = normal_bf16(d.m * d.k, 21, 1.0);
  const auto b = normal_bf16(d.n * d.k, 22, 0.05);
  const auto ref = reference(a, b, d);
  const auto aligned = run(provider_queue(0), a, b, d, 0);
  const auto skewed = run(provider_queue(0), a, b, d, 1);
  expect_close_to_reference(aligned, ref, "aligned");
  expect_close_to_reference(skewed, ref, "skewed by one element");
  // The LM's down projection (K = 12288, two rows): the vector path and the scalar path sum in one order.
  const Dims wide{2, 40, 12288};
  const auto wa = normal_bf16(wide.m * wide.k, 23, 1.0);
  const auto wb = normal_bf16(wide.n * wide.k, 24, 0.02);
  EXPECT_EQ(bits(run(provider_queue(0), wa, wb, wide, 0)), bits(run(provider_queue(0), wa, wb, wide, 1)));
}

// The GEMM path (M >= 5) with operands 16 bytes but not 256 bytes into their buffers (as a row view of a larger
// activation can be: CUDA's cuBLASLt providers declare each operand's actual alignment) and 2 bytes (CUDA: GemmEx),
// each against the f64 reference.
TEST(MatmulBT, GemmPathOperandsOffsetFromTheirBuffers) {
  const Dims d{37, 136, 520};
  const auto a = normal_bf16(d.m * d.k, 61, 1.0);
  const auto b = normal_bf16(d.n * d.k, 62, 0.05);
  const auto ref = reference(a, b, d);
  expect_close_to_reference(run(provider_queue(0), a, b, d, 8), ref, "GEMM operands 16-byte aligned");
  expect_close_to_reference(run(provider_queue(0), a, b, d, 1), ref, "GEMM operands 2-byte aligned");
}

// The LM's down projection at its release shape [4096, 12288], two rows: on CUDA the packed GEMV
// (two blocks per multiprocessor, each streaming ~15 rows through a ring of 4 one-row tiles) takes
// it where enabled, the lone-block kernel otherwise (one block per multiprocessor, ~31 rows through
// 4 two-row tiles); either way the ring wraps several times; the vector path against the f64
// reference and, bit for bit, against the scalar path (operands skewed by one element), which sums
// in the same order.
TEST(MatmulBT, LmDownProjectionShapeWrapsTheRing) {
  const Dims d{2, 4096, 12288};
  const auto a = normal_bf16(d.m * d.k, 51, 1.0);
  const auto b = normal_bf16(d.n * d.k, 52, 0.02);
  bool packed = false;
  const uint64_t before = provider_calls("cuda.matmul_bt.gemv.packed", packed);
  const auto vector_path = run(provider_queue(0), a, b, d, 0);
  if (provider_is_cuda() && packed) {
    EXPECT_EQ(provider_calls("cuda.matmul_bt.gemv.packed", packed), before + 1) << "cuda.matmul_bt.gemv.packed";
  }
  expect_close_to_reference(vector_path, reference(a, b, d), "LM down projection M=2 N=4096 K=12288");
  EXPECT_EQ(bits(vector_path), bits(run(provider_queue(0), a, b, d, 1)));
}

// The opt-in L2 providers (cuda.matmul_bt.gemv.l2_ahead, cuda.matmul_bt.gemv.packed.l2_ahead; their ctest twin
// op_matmul_bt_cuda_l2_ahead enables them) ask weight rows into L2 and change nothing else: where enabled, each takes
// its shapes and gives the bits of the same call with both switched off. The shapes: blocks whose rows run past the
// ring's first tiles (the L2 request made: N 4096 and 6144 over the H200's 264 blocks), blocks with none left
// (N 64), one, two and four rows, and the down projection (the packed kernel).
TEST(MatmulBT, L2AheadProvidersGiveTheGemvBits) {
  if (!provider_is_cuda()) return;
  const char* plain = "cuda.matmul_bt.gemv.l2_ahead";
  const char* packed = "cuda.matmul_bt.gemv.packed.l2_ahead";
  bool plain_on = false, packed_on = false;
  provider_calls(plain, plain_on);
  provider_calls(packed, packed_on);
  if (!plain_on && !packed_on) return;  // the default registry: op_matmul_bt_cuda_l2_ahead runs this test's checks
  const SeededDims shapes[] = {{{2, 4096, 4096}, 61}, {{2, 6144, 4096}, 63}, {{1, 4096, 2048}, 65},
                               {{4, 4096, 1024}, 67}, {{2, 64, 4096}, 69},   {{2, 4096, 12288}, 71}};
  for (const SeededDims& s : shapes) {
    const Dims d = s.d;
    const std::string what = "M=" + std::to_string(d.m) + " N=" + std::to_string(d.n) + " K=" + std::to_string(d.k);
    const auto a = normal_bf16(d.m * d.k, s.seed, 1.0);
    const auto b = normal_bf16(d.n * d.k, s.seed + 1, 0.02);
    const char* taker = d.k > 10240 ? packed : plain;
    bool on = false;
    const uint64_t before = provider_calls(taker, on);
    const auto with_l2 = run(provider_queue(0), a, b, d);
    EXPECT_EQ(provider_calls(taker, on), before + (on ? 1 : 0)) << taker << ", " << what;
    ops::registry().set_enabled(plain, false);
    ops::registry().set_enabled(packed, false);
    const auto without = run(provider_queue(0), a, b, d);
    ops::registry().set_enabled(plain, plain_on);
    ops::registry().set_enabled(packed, packed_on);
    EXPECT_EQ(bits(with_l2), bits(without)) << what;
  }
}

TEST(MatmulBT, BitsDoNotDependOnThreadsOrMOnTheCpu) {
  if (provider_is_cuda()) GTEST_SKIP() << "CPU invariants (the CUDA provider is compared below)";
  const Dims d{20, 200, 777};
  const auto a = normal_bf16(d.m * d.k, 31, 1.0);
  const auto b = normal_bf16(d.n * d.k, 32, 0.05);
  const auto one = run(cpu_queue(1), a, b, d);
  EXPECT_EQ(bits(run(cpu_queue(2), a, b, d)), bits(one));
  EXPECT_EQ(bits(run(cpu_queue(0), a, b, d)), bits(one));
  // Row 5 alone (the GEMV path) gives the same bits as row 5 of the 20-row call (the tiled path).
  const std::vector<bf16> row5(a.begin() + 5 * d.k, a.begin() + 6 * d.k);
  const auto single = run(cpu_queue(2), row5, b, {1, d.n, d.k});
  EXPECT_EQ(bits(single), bits(std::vector<bf16>(one.begin() + 5 * d.n, one.begin() + 6 * d.n)));
}

TEST(MatmulBT, CudaAgreesWithTheCpuProvider) {
  if (!provider_is_cuda()) GTEST_SKIP() << "compares the CUDA provider with the CPU one";
  for (const Dims d : {Dims{2, 1024, 4096}, Dims{33, 256, 1024}}) {
    const auto a = normal_bf16(d.m * d.k, 41 + d.m, 1.0);
    const auto b = normal_bf16(d.n * d.k, 42 + d.m, 0.02);
    expect_close_to_reference(run(provider_queue(0), a, b, d), run(cpu_queue(0), a, b, d),
                              "vs CPU provider M=" + std::to_string(d.m));
  }
}

// The optional bias joins the f32 sum before the one rounding (cuda.matmul_bt.cublaslt on CUDA), on a GEMV row
// count and a GEMM one; the reference adds it to the exact f64 dot.
TEST(MatmulBT, BiasJoinsTheSumBeforeTheRounding) {
  for (const Dims d : {Dims{1, 96, 256}, Dims{37, 200, 520}}) {
    const auto a = normal_bf16(d.m * d.k, 51 + d.m, 1.0);
    const auto b = normal_bf16(d.n * d.k, 52 + d.m, 0.05);
    const auto bias = normal_bf16(d.n, 53 + d.m, 1.0);
    std::vector<bf16> ref(static_cast<size_t>(d.m * d.n));
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        double acc = to_f32(bias[size_t(j)]);
        for (int64_t k = 0; k < d.k; ++k) acc += static_cast<double>(to_f32(a[i * d.k + k])) * to_f32(b[j * d.k + k]);
        ref[size_t(i * d.n + j)] = bf16_from_f64(acc);
      }
    const Queue q = provider_queue(0);
    DeviceArray ab(q, DType::BF16, {d.m, d.k}), bb(q, DType::BF16, {d.n, d.k}), cb(q, DType::BF16, {d.n});
    DeviceArray ob(q, DType::BF16, {d.m, d.n});
    ab.upload(a);
    bb.upload(b);
    cb.upload(bias);
    ob.poison();
    ops::matmul_bt(q, ab, bb, ob, cb);
    expect_close_to_reference(ob.download<bf16>(), ref, "bias M=" + std::to_string(d.m));
  }
}

}  // namespace
}  // namespace music3::optest
