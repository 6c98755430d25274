// gqa_attention gate: the provider under test against an independent f64 reference with
// the contract's rounding points (bf16 unnormalised probabilities, bf16 output), per
// chunk of the split the provider uses (the CPU provider: one chunk; CUDA decode steps:
// kGqaChunk positions per chunk, combined with the chunk maxima), on decode steps and
// causal prefills with GQA 4:1 and an odd group of 5; the K/V rows stored at pos .. pos +
// T - 1 and every other cache row untouched (rows past the prefix poisoned with NaN, so
// reading one shows), a decode at a long prefix (144 chunks), and a decode at a head width off the
// 8-value grid; thread-count invariance (CPU); a position past the cache refused (CPU); on CUDA, the
// LM geometry's decode taken by cuda.gqa_attention.fixed where enabled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/core/device_array.h"
#include "engine/ops/lm_ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/provider_use.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t tokens, batch, heads, kv_heads, dim, tmax;
  int pos;
  float scale;
  int64_t row_width() const { return (heads + 2 * kv_heads) * dim; }
  int64_t kv_width() const { return kv_heads * dim; }
};

struct Inputs {
  std::vector<bf16> qkv, k, v;
};

Inputs make_inputs(const Case& c, uint64_t seed) {
  Inputs in{normal_bf16(size_t(c.tokens * c.batch * c.row_width()), seed, 1.0),
            normal_bf16(size_t(c.batch * c.tmax * c.kv_width()), seed + 1, 1.0),
            normal_bf16(size_t(c.batch * c.tmax * c.kv_width()), seed + 2, 1.0)};
  for (int64_t b = 0; b < c.batch; ++b)  // rows at and past pos are written or never read: poison them
    for (int64_t t = c.pos; t < c.tmax; ++t)
      for (int64_t i = 0; i < c.kv_width(); ++i) {
        in.k[size_t((b * c.tmax + t) * c.kv_width() + i)] = bf16{0x7FC0};
        in.v[size_t((b * c.tmax + t) * c.kv_width() + i)] = bf16{0x7FC0};
      }
  return in;
}

// The caches after the store: the k and v of row t*B + b at position pos + t.
void store(const Inputs& in, const Case& c, std::vector<bf16>& k, std::vector<bf16>& v) {
  k = in.k;
  v = in.v;
  for (int64_t r = 0; r < c.tokens * c.batch; ++r) {
    const int64_t b = r % c.batch, at = (b * c.tmax + c.pos + r / c.batch) * c.kv_width();
    const bf16* src = in.qkv.data() + r * c.row_width() + c.heads * c.dim;
    std::copy(src, src + c.kv_width(), k.begin() + at);
    std::copy(src + c.kv_width(), src + 2 * c.kv_width(), v.begin() + at);
  }
}

std::vector<bf16> reference(const Inputs& in, const Case& c, int64_t chunk) {
  std::vector<bf16> k, v;
  store(in, c, k, v);
  const int64_t group = c.heads / c.kv_heads;
  std::vector<bf16> out(size_t(c.tokens * c.batch * c.heads * c.dim));
  for (int64_t r = 0; r < c.tokens * c.batch; ++r)
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t b = r % c.batch, length = c.pos + r / c.batch + 1, kvh = h / group;
      const int64_t size = chunk > 0 ? chunk : length;
      std::vector<double> m, l, acc;
      for (int64_t first = 0; first < length; first += size) {
        const int64_t n = std::min(size, length - first);
        std::vector<double> s(static_cast<size_t>(n), 0.0);
        for (int64_t p = 0; p < n; ++p) {
          double dot = 0;
          for (int64_t d = 0; d < c.dim; ++d)
            dot += double(to_f32(in.qkv[size_t(r * c.row_width() + h * c.dim + d)])) *
                   to_f32(k[size_t((b * c.tmax + first + p) * c.kv_width() + kvh * c.dim + d)]);
          s[size_t(p)] = dot * c.scale;
        }
        const double mc = *std::max_element(s.begin(), s.end());
        double lc = 0;
        std::vector<double> ac(size_t(c.dim), 0.0);
        for (int64_t p = 0; p < n; ++p) {
          const double e = std::exp(s[size_t(p)] - mc);
          lc += e;
          const double pb = to_f32(bf16_from_f64(e));
          for (int64_t d = 0; d < c.dim; ++d)
            ac[size_t(d)] += pb * to_f32(v[size_t((b * c.tmax + first + p) * c.kv_width() + kvh * c.dim + d)]);
        }
        m.push_back(mc);
        l.push_back(lc);
        acc.insert(acc.end(), ac.begin(), ac.end());
      }
      const double mx = *std::max_element(m.begin(), m.end());
      double total = 0;
      for (size_t i = 0; i < m.size(); ++i) total += std::exp(m[i] - mx) * l[i];
      for (int64_t d = 0; d < c.dim; ++d) {
        double sum = 0;
        for (size_t i = 0; i < m.size(); ++i) sum += std::exp(m[i] - mx) * acc[i * size_t(c.dim) + size_t(d)];
        out[size_t(r * c.heads * c.dim + h * c.dim + d)] = bf16_from_f64(sum / total);
      }
    }
  return out;
}

struct Result {
  std::vector<bf16> out, k, v;
};

Result run(const Queue& q, const Inputs& in, const Case& c) {
  DeviceArray qkv(q, DType::BF16, {c.tokens * c.batch, c.row_width()});
  DeviceArray kb(q, DType::BF16, {c.batch, c.tmax, c.kv_width()}), vb(q, DType::BF16, {c.batch, c.tmax, c.kv_width()});
  DeviceArray pos(q, DType::I32, {1}), ob(q, DType::BF16, {c.tokens * c.batch, c.heads * c.dim});
  DeviceArray scratch(q, DType::F32, {c.batch * c.heads, ops::gqa_chunks(c.tmax), c.dim + 2});
  qkv.upload(in.qkv);
  kb.upload(in.k);
  vb.upload(in.v);
  pos.upload(std::vector<int32_t>{c.pos});
  ob.poison();
  scratch.poison();
  ops::GqaAttentionArgs a;
  a.qkv = qkv;
  a.k_cache = kb;
  a.v_cache = vb;
  a.pos = pos;
  a.out = ob;
  a.scratch = scratch;
  a.heads = int(c.heads);
  a.kv_heads = int(c.kv_heads);
  a.scale = c.scale;
  ops::gqa_attention(q, a);
  return {ob.download<bf16>(), kb.download<bf16>(), vb.download<bf16>()};
}

// The chunk the provider under test uses for this call (0: the whole prefix).
int64_t provider_chunk(const Case& c) { return provider_is_cuda() && c.tokens == 1 ? ops::kGqaChunk : 0; }

// Bounds as attention_decode's (measured on the CPU provider over these cases): every
// conditioned element within 1 ulp, >= 99 % exact.
void expect_close(const Result& got, const Inputs& in, const Case& c, const std::string& what) {
  const gates::UlpStats s = gates::ulp_stats(got.out, reference(in, c, provider_chunk(c)));
  report(provider_name() + " " + what, s);
  SCOPED_TRACE(provider_name() + " " + what + ": " + s.summary());
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.nonzero_refs + s.zero_refs + s.nonfinite, s.compared);
  EXPECT_LE(s.max_conditioned, 1.0);
  EXPECT_GE(double(s.within_one), 0.99 * double(s.nonzero_refs));
  EXPECT_GE(double(s.exact), 0.99 * double(s.nonzero_refs));
  std::vector<bf16> k, v;
  store(in, c, k, v);
  EXPECT_EQ(bits(got.k), bits(k)) << what << ": K cache";
  EXPECT_EQ(bits(got.v), bits(v)) << what << ": V cache";
}

// The LM's head width and group: on CUDA the fixed-geometry provider takes each decode where it is enabled (its twin
// ctest disables it).
TEST(GqaAttention, DecodeStepsAtModelGroup) {
  for (int pos : {0, 1, 31, 32, 37, 299}) {
    const Case c{1, 2, 8, 2, 128, 300, pos, 1.0f / std::sqrt(128.0f)};
    const Inputs in = make_inputs(c, 10 + uint64_t(pos));
    bool fixed = false;
    const uint64_t before = provider_calls("cuda.gqa_attention.fixed", fixed);
    expect_close(run(provider_queue(0), in, c), in, c, "decode pos " + std::to_string(pos));
    if (provider_is_cuda() && fixed) {
      EXPECT_EQ(provider_calls("cuda.gqa_attention.fixed", fixed), before + 1) << "cuda.gqa_attention.fixed";
    }
  }
}

TEST(GqaAttention, CausalPrefillsAndAnOddGroup) {
  const Case prefill{9, 2, 8, 2, 64, 20, 0, 0.125f};
  const Inputs a = make_inputs(prefill, 40);
  expect_close(run(provider_queue(0), a, prefill), a, prefill, "prefill from 0");
  const Case resumed{4, 2, 5, 1, 40, 12, 3, 0.3f};  // 5 query heads on one K/V head, D = 40
  const Inputs b = make_inputs(resumed, 50);
  expect_close(run(provider_queue(0), b, resumed), b, resumed, "prefill from 3, group 5");
  const Case odd_decode{1, 3, 5, 1, 40, 70, 66, 0.9f};  // peaked scores over three chunks
  const Inputs d = make_inputs(odd_decode, 60);
  expect_close(run(provider_queue(0), d, odd_decode), d, odd_decode, "decode group 5");
}

// The LM's geometry at a long prefix (a song's later frames): 144 chunks of 32 positions, more than the fixed
// combine's 128 threads, so its strided loops over the chunks run twice.
TEST(GqaAttention, DecodeAtALongPrefix) {
  const Case c{1, 2, 8, 2, 128, 4640, 4600, 1.0f / std::sqrt(128.0f)};
  const Inputs in = make_inputs(c, 95);
  expect_close(run(provider_queue(0), in, c), in, c, "decode pos 4600");
}

// A head width that is not a multiple of 8: the CUDA decode stages its cached rows element by element (16-byte copies
// otherwise), over two chunks, the newest row in the second.
TEST(GqaAttention, DecodeWithAHeadWidthOffTheVectorGrid) {
  const Case c{1, 2, 8, 2, 36, 50, 44, 0.4f};
  const Inputs in = make_inputs(c, 90);
  expect_close(run(provider_queue(0), in, c), in, c, "decode D 36");
}

TEST(GqaAttention, ThreadsAndPositionsPastTheCache) {
  if (provider_is_cuda()) GTEST_SKIP() << "CPU only (CUDA skips such rows; held to the reference above)";
  const Case c{3, 2, 8, 2, 32, 16, 5, 0.2f};
  const Inputs in = make_inputs(c, 70);
  const Result one = run(cpu_queue(1), in, c), two = run(cpu_queue(2), in, c);
  EXPECT_EQ(bits(one.out), bits(two.out));
  const Case past{3, 2, 8, 2, 32, 16, 14, 0.2f};
  EXPECT_THROW(run(provider_queue(0), make_inputs(past, 80), past), std::out_of_range);
}

}  // namespace
}  // namespace music3::optest
