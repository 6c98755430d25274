// Entry-point gate: every op refuses a wrong dtype, shape, device, overlap or
// scalar with std::invalid_argument whose message names the op and the argument,
// before any provider runs; a well-formed call on a device with no provider
// (a fabricated ROCm queue) throws MissingProvider naming the op and the device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/ops.h"
#include "engine/ops/flow_ops.h"
#include "engine/ops/lm_ops.h"
#include "engine/ops/transformer_ops.h"
#include "engine/ops/vocoder_ops.h"
#include "engine/ops/registry.h"

namespace music3::ops {
namespace {

// Host memory carved into distinct tensors; tagged with any device type (for the
// fabricated queue nothing is ever read).
class Arena {
 public:
  Tensor make(DType dt, Shape shape, DeviceType dev = DeviceType::CPU) {
    Tensor t;
    t.dtype = dt;
    t.shape = shape;
    t.device = dev;
    t.data = mem_.data() + used_;
    used_ += (t.bytes() + 63) / 64 * 64;
    if (used_ > mem_.size()) throw std::length_error("test arena exhausted");
    return t;
  }

 private:
  std::vector<unsigned char> mem_ = std::vector<unsigned char>(size_t{64} << 20);
  size_t used_ = 0;
};

void expect_refused(const std::function<void()>& call, const std::string& op, const std::string& arg) {
  try {
    call();
    ADD_FAILURE() << op << ": no refusal for argument '" << arg << "'";
  } catch (const std::invalid_argument& e) {
    const std::string want = op + ": argument '" + arg + "'";
    EXPECT_EQ(std::string(e.what()).rfind(want, 0), 0u) << "want prefix \"" << want << "\", got: " << e.what();
  }
}

const Queue kCpu = cpu_queue(1);

TEST(EntryChecks, RmsNorm) {
  Arena m;
  const Tensor x = m.make(DType::BF16, {2, 64}), w = m.make(DType::BF16, {64}), out = m.make(DType::BF16, {2, 64});
  EXPECT_NO_THROW(rms_norm(kCpu, x, w, 1e-6f, out));
  EXPECT_NO_THROW(rms_norm(kCpu, x, w, 1e-6f, x));  // in place
  expect_refused([&] { rms_norm(kCpu, m.make(DType::F32, {2, 64}), w, 1e-6f, out); }, "rms_norm", "x");
  expect_refused([&] { rms_norm(kCpu, m.make(DType::BF16, {2, 64}, DeviceType::CUDA), w, 1e-6f, out); }, "rms_norm", "x");
  expect_refused([&] { rms_norm(kCpu, m.make(DType::BF16, {0, 64}), w, 1e-6f, out); }, "rms_norm", "x");
  expect_refused([&] { rms_norm(kCpu, x, m.make(DType::BF16, {63}), 1e-6f, out); }, "rms_norm", "w");
  expect_refused([&] { rms_norm(kCpu, x, w, 1e-6f, m.make(DType::BF16, {3, 64})); }, "rms_norm", "out");
  expect_refused([&] { rms_norm(kCpu, x, w, NAN, out); }, "rms_norm", "eps");
  Tensor shifted = x;  // overlaps x without being the same view
  shifted.data = x.as<bf16>() + 1;
  expect_refused([&] { rms_norm(kCpu, x, w, 1e-6f, shifted); }, "rms_norm", "out");
  Tensor null_x = x;
  null_x.data = nullptr;
  expect_refused([&] { rms_norm(kCpu, null_x, w, 1e-6f, out); }, "rms_norm", "x");
}

TEST(EntryChecks, MatmulBT) {
  Arena m;
  const Tensor a = m.make(DType::BF16, {2, 32}), b = m.make(DType::BF16, {8, 32}), out = m.make(DType::BF16, {2, 8});
  EXPECT_NO_THROW(matmul_bt(kCpu, a, b, out));
  expect_refused([&] { matmul_bt(kCpu, m.make(DType::BF16, {2, 32, 1}), b, out); }, "matmul_bt", "a");
  expect_refused([&] { matmul_bt(kCpu, a, m.make(DType::BF16, {8, 31}), out); }, "matmul_bt", "b");
  expect_refused([&] { matmul_bt(kCpu, a, b, m.make(DType::BF16, {2, 9})); }, "matmul_bt", "out");
  expect_refused([&] { matmul_bt(kCpu, a, b, m.make(DType::F32, {2, 8})); }, "matmul_bt", "out");
  Tensor over_a = a;
  over_a.shape = {2, 8};
  expect_refused([&] { matmul_bt(kCpu, a, b, over_a); }, "matmul_bt", "out");
}

TEST(EntryChecks, AttentionDecode) {
  Arena m;
  const Tensor q = m.make(DType::BF16, {2, 64}), k = m.make(DType::BF16, {2, 8, 64}),
               v = m.make(DType::BF16, {2, 8, 64}), out = m.make(DType::BF16, {2, 64});
  EXPECT_NO_THROW(attention_decode(kCpu, q, k, v, 8, 4, 0.25f, out));
  expect_refused([&] { attention_decode(kCpu, m.make(DType::F32, {2, 64}), k, v, 8, 4, 0.25f, out); },
                 "attention_decode", "query");
  expect_refused([&] { attention_decode(kCpu, q, m.make(DType::BF16, {2, 8, 32}), v, 8, 4, 0.25f, out); },
                 "attention_decode", "k_cache");
  expect_refused([&] { attention_decode(kCpu, q, k, m.make(DType::BF16, {2, 7, 64}), 7, 4, 0.25f, out); },
                 "attention_decode", "v_cache");
  expect_refused([&] { attention_decode(kCpu, q, k, v, 8, 4, 0.25f, m.make(DType::BF16, {1, 64})); },
                 "attention_decode", "out");
  expect_refused([&] { attention_decode(kCpu, q, k, v, 8, 5, 0.25f, out); }, "attention_decode", "heads");
  expect_refused([&] { attention_decode(kCpu, q, k, v, 0, 4, 0.25f, out); }, "attention_decode", "length");
  expect_refused([&] { attention_decode(kCpu, q, k, v, 9, 4, 0.25f, out); }, "attention_decode", "length");
  expect_refused([&] { attention_decode(kCpu, q, k, v, 8, 4, INFINITY, out); }, "attention_decode", "scale");
}

TEST(EntryChecks, SiluAndMul) {
  Arena m;
  const Tensor in = m.make(DType::BF16, {2, 64}), out = m.make(DType::BF16, {2, 32});
  EXPECT_NO_THROW(silu_and_mul(kCpu, in, out));
  expect_refused([&] { silu_and_mul(kCpu, m.make(DType::BF16, {2, 63}), out); }, "silu_and_mul", "gate_up");
  expect_refused([&] { silu_and_mul(kCpu, in, m.make(DType::BF16, {2, 64})); }, "silu_and_mul", "out");
  Tensor over = in;
  over.shape = {2, 32};
  expect_refused([&] { silu_and_mul(kCpu, in, over); }, "silu_and_mul", "out");
}

TEST(EntryChecks, MatmulBtSilu) {
  Arena m;
  const Tensor a = m.make(DType::BF16, {2, 32}), b = m.make(DType::BF16, {16, 32});
  const Tensor gu = m.make(DType::BF16, {2, 16}), out = m.make(DType::BF16, {2, 8});
  EXPECT_NO_THROW(matmul_bt_silu(kCpu, a, b, gu, out));
  expect_refused([&] { matmul_bt_silu(kCpu, a, m.make(DType::BF16, {15, 32}), m.make(DType::BF16, {2, 15}), out); },
                 "matmul_bt_silu", "b");
  expect_refused([&] { matmul_bt_silu(kCpu, a, m.make(DType::BF16, {16, 31}), gu, out); }, "matmul_bt_silu", "b");
  expect_refused([&] { matmul_bt_silu(kCpu, a, b, m.make(DType::BF16, {2, 8}), out); }, "matmul_bt_silu", "gate_up");
  expect_refused([&] { matmul_bt_silu(kCpu, a, b, gu, m.make(DType::BF16, {2, 16})); }, "matmul_bt_silu", "out");
  expect_refused([&] { matmul_bt_silu(kCpu, a, b, gu, m.make(DType::BF16, {1, 8})); }, "matmul_bt_silu", "out");
  Tensor over = gu;
  over.shape = {2, 8};
  expect_refused([&] { matmul_bt_silu(kCpu, a, b, gu, over); }, "matmul_bt_silu", "out");
}

TEST(EntryChecks, AddRmsNormMatmulBt) {
  Arena m;
  const Tensor x = m.make(DType::BF16, {2, 32}), r = m.make(DType::BF16, {2, 32}), w = m.make(DType::BF16, {32});
  const Tensor h = m.make(DType::BF16, {2, 32}), a = m.make(DType::BF16, {2, 32}), b = m.make(DType::BF16, {16, 32});
  const Tensor out = m.make(DType::BF16, {2, 16}), gu = m.make(DType::BF16, {2, 16}), act = m.make(DType::BF16, {2, 8});
  const AddRmsNormMatmulArgs plain{.x = x, .r = r, .w = w, .h_out = h, .a_out = a, .eps = 1e-6f, .b = b, .out = out};
  const AddRmsNormMatmulArgs silu{.x = x, .r = r, .w = w, .h_out = h, .a_out = a, .eps = 1e-6f, .b = b, .out = act,
                                  .gate_up = gu};
  EXPECT_NO_THROW(add_rms_norm_matmul_bt(kCpu, plain));
  EXPECT_NO_THROW(add_rms_norm_matmul_bt(kCpu, silu));
  const char* op = "add_rms_norm_matmul_bt";
  auto with = [](AddRmsNormMatmulArgs p, auto edit) {
    edit(p);
    return p;
  };
  // In place is add_rms_norm's form, not this op's: a fusing provider writes h_out while its blocks read x and r.
  expect_refused([&] { add_rms_norm_matmul_bt(kCpu, with(plain, [&](auto& p) { p.h_out = x; })); }, op, "h_out");
  expect_refused([&] { add_rms_norm_matmul_bt(kCpu, with(plain, [&](auto& p) { p.h_out = r; })); }, op, "h_out");
  expect_refused([&] { add_rms_norm_matmul_bt(kCpu, with(plain, [&](auto& p) { p.eps = -1.0f; })); }, op, "eps");
  expect_refused(
      [&] { add_rms_norm_matmul_bt(kCpu, with(plain, [&](auto& p) { p.b = m.make(DType::BF16, {16, 31}); })); }, op,
      "b");
  expect_refused(
      [&] { add_rms_norm_matmul_bt(kCpu, with(plain, [&](auto& p) { p.out = m.make(DType::BF16, {2, 15}); })); }, op,
      "out");
  expect_refused(
      [&] { add_rms_norm_matmul_bt(kCpu, with(silu, [&](auto& p) { p.out = m.make(DType::BF16, {2, 16}); })); }, op,
      "out");
  expect_refused(
      [&] { add_rms_norm_matmul_bt(kCpu, with(silu, [&](auto& p) { p.gate_up = m.make(DType::BF16, {2, 8}); })); },
      op, "gate_up");
  Tensor over_x = out;  // out's bytes inside x's
  over_x.data = x.data;
  expect_refused([&] { add_rms_norm_matmul_bt(kCpu, with(plain, [&](auto& p) { p.out = over_x; })); }, op, "out");
}

TEST(EntryChecks, Add) {
  Arena m;
  const Tensor a = m.make(DType::BF16, {3, 16}), b = m.make(DType::BF16, {3, 16}), row = m.make(DType::BF16, {1, 16});
  const Tensor out = m.make(DType::BF16, {3, 16});
  EXPECT_NO_THROW(add(kCpu, a, b, out));
  EXPECT_NO_THROW(add(kCpu, a, row, a));
  EXPECT_NO_THROW(add(kCpu, row, b, b));
  expect_refused([&] { add(kCpu, a, m.make(DType::BF16, {2, 16}), out); }, "add", "b");
  expect_refused([&] { add(kCpu, m.make(DType::BF16, {3, 15}), b, out); }, "add", "a");
  EXPECT_NO_THROW(add(kCpu, row, row, out));  // both operands broadcast over out's rows
  expect_refused([&] { add(kCpu, a, b, m.make(DType::BF16, {2, 16})); }, "add", "a");  // 3 rows vs out's 2
  expect_refused([&] { add(kCpu, a, b, m.make(DType::BF16, {3, 17})); }, "add", "a");
  expect_refused([&] { add(kCpu, a, m.make(DType::I32, {3, 16}), out); }, "add", "b");
  Tensor partial = a;  // overlaps a, but is not the same view
  partial.data = a.as<bf16>() + 16;
  expect_refused([&] { add(kCpu, a, b, partial); }, "add", "out");
}

TEST(EntryChecks, EmbeddingGather) {
  Arena m;
  const Tensor table = m.make(DType::BF16, {100, 8}), ids = m.make(DType::I32, {3}), out = m.make(DType::BF16, {3, 8});
  EXPECT_NO_THROW(embedding_gather(kCpu, table, ids, 0, out));
  expect_refused([&] { embedding_gather(kCpu, table, m.make(DType::I64, {3}), 0, out); }, "embedding_gather", "ids");
  expect_refused([&] { embedding_gather(kCpu, table, ids, 0, m.make(DType::BF16, {3, 9})); }, "embedding_gather",
                 "out");
  expect_refused([&] { embedding_gather(kCpu, table, ids, 100, out); }, "embedding_gather", "offset");
  expect_refused([&] { embedding_gather(kCpu, table, ids, -1, out); }, "embedding_gather", "offset");
}

TEST(EntryChecks, KvAppend) {
  Arena m;
  const Tensor qkv = m.make(DType::BF16, {2, 48}), q = m.make(DType::BF16, {2, 16}),
               k = m.make(DType::BF16, {2, 4, 16}), v = m.make(DType::BF16, {2, 4, 16});
  EXPECT_NO_THROW(kv_append(kCpu, qkv, q, k, v, 3));
  expect_refused([&] { kv_append(kCpu, m.make(DType::BF16, {2, 47}), q, k, v, 0); }, "kv_append", "qkv");
  expect_refused([&] { kv_append(kCpu, qkv, m.make(DType::BF16, {2, 15}), k, v, 0); }, "kv_append", "q_out");
  expect_refused([&] { kv_append(kCpu, qkv, q, k, m.make(DType::BF16, {2, 5, 16}), 0); }, "kv_append", "v_cache");
  expect_refused([&] { kv_append(kCpu, qkv, q, k, v, 4); }, "kv_append", "pos");
  expect_refused([&] { kv_append(kCpu, qkv, q, k, k, 0); }, "kv_append", "k_cache");
}

TEST(EntryChecks, CfgTopkSample) {
  Arena m;
  const CfgTopkSampleArgs ok{m.make(DType::BF16, {2, 64}), m.make(DType::F32, {64}), m.make(DType::F32, {64}),
                             m.make(DType::I32, {1}), m.make(DType::I32, {1}), 1.5f, 50};
  EXPECT_NO_THROW(cfg_topk_sample(kCpu, ok));
  auto with = [&](auto change) {
    CfgTopkSampleArgs a = ok;
    change(a);
    return [a] { cfg_topk_sample(kCpu, a); };
  };
  const char* op = "cfg_topk_sample";
  expect_refused(with([&](auto& a) { a.logits = m.make(DType::BF16, {3, 64}); }), op, "logits");
  expect_refused(with([&](auto& a) { a.exp_draws = m.make(DType::F32, {63}); }), op, "exp_draws");
  expect_refused(with([&](auto& a) { a.guided_out = m.make(DType::BF16, {64}); }), op, "guided_out");
  expect_refused(with([&](auto& a) { a.code_out = m.make(DType::F32, {1}); }), op, "code_out");
  expect_refused(with([&](auto& a) { a.nonfinite = m.make(DType::I32, {2}); }), op, "nonfinite");
  expect_refused(with([&](auto& a) { a.top_k = 0; }), op, "top_k");
  expect_refused(with([&](auto& a) { a.cfg_scale = NAN; }), op, "cfg_scale");
  expect_refused(with([&](auto& a) { a.guided_out = a.exp_draws; }), op, "guided_out");
}

TEST(EntryChecks, ExpDraws) {
  Arena m;
  EXPECT_NO_THROW(exp_draws(kCpu, 1, 2, 3, m.make(DType::F32, {64})));
  expect_refused([&] { exp_draws(kCpu, 1, 2, 3, m.make(DType::BF16, {64})); }, "exp_draws", "out");
  EXPECT_NO_THROW(exp_draws(kCpu, 1, 2, 3, m.make(DType::F32, {2, 32})));  // [S, V]: row s keyed by step 3 + s
  expect_refused([&] { exp_draws(kCpu, 1, 2, 3, m.make(DType::F32, {2, 2, 16})); }, "exp_draws", "out");
  expect_refused([&] { exp_draws(kCpu, 1, 2, UINT32_MAX, m.make(DType::F32, {2, 32})); }, "exp_draws", "step");
}

TEST(EntryChecks, SelfAttentionRotaryTables) {
  Arena m;
  const Tensor qkv = m.make(DType::BF16, {4, 96}), out = m.make(DType::BF16, {4, 32});  // S 2, B 2, H 2, D 16
  const Tensor cos = m.make(DType::BF16, {2, 8}), sin = m.make(DType::BF16, {2, 8});
  EXPECT_NO_THROW(self_attention(kCpu, qkv, 2, 2, 0.25f, out, cos, sin));
  auto call = [&](const Tensor& c, const Tensor& s, const Tensor& o) { self_attention(kCpu, qkv, 2, 2, 0.25f, o, c, s); };
  expect_refused([&] { call(m.make(DType::BF16, {2, 7}), m.make(DType::BF16, {2, 7}), out); }, "self_attention", "cos");
  expect_refused([&] { call(m.make(DType::BF16, {2, 18}), m.make(DType::BF16, {2, 18}), out); }, "self_attention", "cos");
  expect_refused([&] { call(m.make(DType::BF16, {1, 8}), m.make(DType::BF16, {1, 8}), out); }, "self_attention", "cos");
  expect_refused([&] { call(m.make(DType::F32, {2, 8}), sin, out); }, "self_attention", "cos");
  expect_refused([&] { call(cos, m.make(DType::BF16, {2, 6}), out); }, "self_attention", "sin");
  expect_refused([&] { call(cos, Tensor{}, out); }, "self_attention", "sin");
  Tensor over_cos = cos;
  over_cos.shape = Shape{4, 32};
  expect_refused([&] { call(cos, sin, over_cos); }, "self_attention", "out");
}

// Every entry point, well formed, on a queue of a device type with no provider.
TEST(EntryChecks, MissingProviderNamesOpAndDevice) {
  const DeviceType dev = DeviceType::ROCm;
  const Queue q = fabricated_queue(dev);
  Arena m;
  auto t = [&](DType dt, Shape s) { return m.make(dt, s, dev); };
  const Tensor x = t(DType::BF16, {2, 64});
  const std::vector<std::pair<std::string, std::function<void()>>> calls = {
      {"rms_norm", [&] { rms_norm(q, x, t(DType::BF16, {64}), 1e-6f, t(DType::BF16, {2, 64})); }},
      {"matmul_bt", [&] { matmul_bt(q, x, t(DType::BF16, {8, 64}), t(DType::BF16, {2, 8})); }},
      {"attention_decode",
       [&] {
         attention_decode(q, x, t(DType::BF16, {2, 4, 64}), t(DType::BF16, {2, 4, 64}), 4, 4, 0.25f,
                          t(DType::BF16, {2, 64}));
       }},
      {"silu_and_mul", [&] { silu_and_mul(q, x, t(DType::BF16, {2, 32})); }},
      // matmul_bt_silu with no provider enabled issues matmul_bt first, which names itself.
      {"matmul_bt",
       [&] { matmul_bt_silu(q, x, t(DType::BF16, {16, 64}), t(DType::BF16, {2, 16}), t(DType::BF16, {2, 8})); }},
      {"add", [&] { add(q, x, t(DType::BF16, {1, 64}), t(DType::BF16, {2, 64})); }},
      {"embedding_gather", [&] { embedding_gather(q, t(DType::BF16, {10, 64}), t(DType::I32, {2}), 0, t(DType::BF16, {2, 64})); }},
      {"kv_append",
       [&] { kv_append(q, t(DType::BF16, {2, 48}), t(DType::BF16, {2, 16}), t(DType::BF16, {2, 4, 16}), t(DType::BF16, {2, 4, 16}), 0); }},
      {"cfg_topk_sample",
       [&] {
         cfg_topk_sample(q, {t(DType::BF16, {2, 64}), t(DType::F32, {64}), t(DType::F32, {64}), t(DType::I32, {1}),
                             t(DType::I32, {1}), 1.5f, 50});
       }},
      {"exp_draws", [&] { exp_draws(q, 1, 2, 3, t(DType::F32, {64})); }},
      {"add_rms_norm",
       [&] {
         add_rms_norm(q, x, t(DType::BF16, {1, 64}), t(DType::BF16, {64}), 1e-6f, t(DType::BF16, {2, 64}),
                      t(DType::BF16, {2, 64}));
       }},
      // add_rms_norm_matmul_bt with no provider enabled issues add_rms_norm first, which names itself.
      {"add_rms_norm",
       [&] {
         add_rms_norm_matmul_bt(q, {.x = x, .r = t(DType::BF16, {2, 64}), .w = t(DType::BF16, {64}),
                                    .h_out = t(DType::BF16, {2, 64}), .a_out = t(DType::BF16, {2, 64}), .eps = 1e-6f,
                                    .b = t(DType::BF16, {8, 64}), .out = t(DType::BF16, {2, 8})});
       }},
      {"kv_append_attention",
       [&] {
         kv_append_attention(q, t(DType::BF16, {2, 48}), t(DType::BF16, {2, 4, 16}), t(DType::BF16, {2, 4, 16}), 0, 2,
                             0.25f, t(DType::BF16, {2, 16}));
       }},
      {"conv1d",
       [&] {
         conv1d(q, {t(DType::BF16, {2, 4, 10}), t(DType::BF16, {7, 3, 4}), t(DType::BF16, {3}),
                    t(DType::BF16, {2, 4, 16}), t(DType::F32, {2, 3, 10}), t(DType::BF16, {2, 3, 10}), 1, 3});
       }},
      {"conv_transpose1d",
       [&] {
         conv_transpose1d(q, {t(DType::BF16, {2, 4, 10}), t(DType::BF16, {4, 3, 8}), t(DType::BF16, {3}),
                              t(DType::BF16, {2, 24, 10}), t(DType::BF16, {2, 3, 40}), 4, 2});
       }},
      {"snake", [&] { snake(q, t(DType::BF16, {2, 4, 10}), t(DType::BF16, {4}), t(DType::BF16, {2, 4, 10})); }},
      {"tanh", [&] { tanh(q, t(DType::BF16, {2, 4, 10}), t(DType::BF16, {2, 4, 10})); }},
      {"gqa_attention",
       [&] {
         gqa_attention(q, {t(DType::BF16, {2, 64}), t(DType::BF16, {2, 4, 16}), t(DType::BF16, {2, 4, 16}),
                           t(DType::I32, {1}), t(DType::BF16, {2, 32}), t(DType::F32, {4, 1, 18}), 2, 1, 0.25f});
       }},
      {"layer_norm",
       [&] { layer_norm(q, x, t(DType::BF16, {64}), t(DType::BF16, {64}), 1e-5f, t(DType::BF16, {2, 64})); }},
      {"self_attention", [&] { self_attention(q, t(DType::BF16, {4, 96}), 2, 2, 0.25f, t(DType::BF16, {4, 32})); }},
      {"place_rows", [&] { place_rows(q, t(DType::BF16, {2, 8}), t(DType::BF16, {4, 64}), 0, 2, 8); }},
      {"qk_norm_rope",
       [&] {
         qk_norm_rope(q, {t(DType::BF16, {2, 64}), t(DType::BF16, {16}), t(DType::BF16, {16}), t(DType::BF16, {8, 16}),
                          t(DType::BF16, {8, 16}), t(DType::I32, {1}), 2, 1, 2, 1e-6f});
       }},
      {"guided_euler", [&] { guided_euler(q, t(DType::BF16, {4, 64}), x, 1.7f, -0.03f); }},
      {"lm_sample",
       [&] {
         LmSampleArgs a;
         a.logits = t(DType::BF16, {2, 64});
         a.column_out = t(DType::I32, {1});
         a.nonfinite = t(DType::I32, {1});
         a.cfg_top_k = a.top_k = 50;
         lm_sample(q, a);
       }},
      {"feedback_embedding",
       [&] {
         feedback_embedding(q, {t(DType::BF16, {8, 64}), t(DType::I32, {1}), t(DType::BF16, {14, 64}),
                                t(DType::I32, {7}), t(DType::BF16, {2, 64}), 2, 0.35f});
       }}};
  ASSERT_EQ(calls.size(), static_cast<size_t>(OpId::kCount));
  for (const auto& [op, call] : calls) {
    try {
      call();
      ADD_FAILURE() << op << " ran on a device with no provider";
    } catch (const MissingProvider& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("'" + op + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("'" + device_type_name(dev) + "'"), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace music3::ops
