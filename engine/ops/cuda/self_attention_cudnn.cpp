// self_attention on CUDA through cuDNN's fused attention (builds with cuDNN 9 and the cudnn-frontend headers): the
// frontend's SDPA graph over [B, H, S, D] strided views of the packed rows, nothing repacked: Q, K and V at columns
// 0, H D and 2 H D of qkv (token stride B * 3 H D, batch stride 3 H D, head stride D), O likewise into out (token
// stride B * H D, batch stride H D); bf16 IO, f32 intermediates and compute, no softmax stats, attn_scale = scale,
// non-causal. With rotary tables, q and k are first rotated (rope_rows.h: rope_pair, the fused form's bits): with
// QkvAfter::kept into a provider-owned [S*B, 2 H D] copy, Q and K read from it (token stride B * 2 H D); with
// QkvAfter::scratch in place in qkv (only the rotated dims move: half the copy's bytes at the DiT's rotary 32 of
// 64), Q and K read from qkv as without tables.
// Numerics: cuDNN documents neither the rounding of P before P.V nor the order of its sums; its flash-attention
// engine computes the softmax in f32 with a running max; the band against the other providers is the contract.
// Plans: built once per (device, stream, S, B, H, D, copy, scale) under a lock, in relaxed capture mode (building may
// compile and load kernels and allocate, so a first call may come during a graph capture), each with its own
// workspace and rotary copy (cudaMalloc'd once, kept for the process: a captured graph may replay them); every
// later call only enqueues (rotation kernel, cudnn execute on the handle bound to the queue's stream), which a
// stream capture records. A graph cuDNN refuses throws std::runtime_error naming the shape and cuDNN's reason.
// Thread-safety: as ops.h; the plan table and the handle are locked, plans are per stream.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cudnn_frontend.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/cudnn_handle.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/rope_rows.h"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {
namespace {

namespace fe = cudnn_frontend;

constexpr int64_t kUidQ = 1, kUidK = 2, kUidV = 3, kUidO = 4;
constexpr int64_t kMaxHead = 128;  // cuDNN's fused SDPA forward: head widths up to 128, multiples of 8

struct Shape {
  int64_t S, B, H, D;
  bool copy;  // Q and K read from the rotated copy
  std::string describe() const {
    return "S " + std::to_string(S) + ", B " + std::to_string(B) + ", H " + std::to_string(H) + ", D " +
           std::to_string(D) + (copy ? ", rotated copy" : "");
  }
};

// One built graph with the device memory its calls use; never freed (a captured graph may still replay it).
struct Plan {
  std::unique_ptr<fe::graph::Graph> graph;
  void* workspace = nullptr;
  bf16* rotated = nullptr;  // [S*B, 2 H D] for a rotated copy, else null
};

using PlanKey = std::tuple<int, cudaStream_t, int64_t, int64_t, int64_t, int64_t, bool, float>;

std::mutex& plans_mutex() {
  static std::mutex mu;
  return mu;
}
std::map<PlanKey, Plan>& plans() {
  static auto* p = new std::map<PlanKey, Plan>;  // kept for the process: no cuDNN teardown at exit
  return *p;
}

void check_fe(fe::error_t e, const char* step, const Shape& s) {
  if (!e.is_good())
    throw std::runtime_error(std::string("self_attention (cudnn): ") + step + " refused for " + s.describe() + ": " +
                             e.get_message());
}

std::unique_ptr<fe::graph::Graph> build_graph(cudnnHandle_t h, const Shape& s, float scale) {
  auto g = std::make_unique<fe::graph::Graph>();
  g->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const int64_t hd = s.H * s.D, qk_row = s.copy ? 2 * hd : 3 * hd;
  const std::vector<int64_t> dims{s.B, s.H, s.S, s.D};
  auto view = [&](const char* name, int64_t uid, int64_t row) {
    return g->tensor(fe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(dims).set_stride(
        {row, s.D, s.B * row, 1}));
  };
  auto Q = view("Q", kUidQ, qk_row), K = view("K", kUidK, qk_row), V = view("V", kUidV, 3 * hd);
  auto [O, stats] = g->sdpa(
      Q, K, V, fe::graph::SDPA_attributes().set_name("self_attention").set_generate_stats(false).set_attn_scale(scale));
  (void)stats;
  O->set_output(true).set_dim(dims).set_stride({hd, s.D, s.B * hd, 1}).set_uid(kUidO);
  check_fe(g->validate(), "validate", s);
  check_fe(g->build_operation_graph(h), "build_operation_graph", s);
  check_fe(g->create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans", s);
  check_fe(g->check_support(h), "check_support", s);
  check_fe(g->build_plans(h), "build_plans", s);
  return g;
}

void* device_alloc(size_t bytes, const Shape& s) {
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, bytes), ("cudaMalloc (self_attention cudnn, " + s.describe() + ")").c_str());
  return p;
}

// The plan of `key`, built on first use in relaxed capture mode with the handle on the legacy stream (whatever
// cuDNN enqueues while building stays out of a capture of `stream`, which is non-blocking), then bound to `stream`
// again. Caller holds plans_mutex() and the handle.
Plan& plan_for(const PlanKey& key, cudnnHandle_t h, cudaStream_t stream, const Shape& s, float scale) {
  auto it = plans().find(key);
  if (it != plans().end()) return it->second;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
  Plan p;
  try {
    check_cudnn(cudnnSetStream(h, nullptr), "cudnnSetStream (plan build)");
    p.graph = build_graph(h, s, scale);
    int64_t ws = 0;
    check_fe(p.graph->get_workspace_size(ws), "get_workspace_size", s);
    if (ws > 0) p.workspace = device_alloc(size_t(ws), s);
    if (s.copy) p.rotated = static_cast<bf16*>(device_alloc(size_t(s.S * s.B * 2 * s.H * s.D) * sizeof(bf16), s));
    check_cudnn(cudnnSetStream(h, stream), "cudnnSetStream");
  } catch (...) {
    cudnnSetStream(h, stream);
    cudaFree(p.workspace);
    cudaFree(p.rotated);
    cudaThreadExchangeStreamCaptureMode(&mode);
    throw;
  }
  check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
  return plans().emplace(key, std::move(p)).first->second;
}

}  // namespace

bool self_attention_cudnn_supports(const void* args) {
  const auto& a = *static_cast<const SelfAttentionArgs*>(args);
  const int64_t dim = a.qkv.shape[1] / 3 / a.heads;
  return dim % 8 == 0 && dim <= kMaxHead && aligned16(a.qkv.data) && aligned16(a.out.data);
}

void self_attention_cudnn_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const SelfAttentionArgs*>(args);
  const bool rotary = a.cos.data != nullptr, in_place = rotary && a.qkv_after == QkvAfter::scratch;
  const Shape s{a.qkv.shape[0] / a.batch, a.batch, a.heads, a.qkv.shape[1] / 3 / a.heads, rotary && !in_place};
  if (s.S == 0) return;
  const cudaStream_t stream = stream_of(q);
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice (self_attention cudnn)");
  const PlanKey key{device, stream, s.S, s.B, s.H, s.D, s.copy, a.scale};  // the scale is a graph attribute
  with_cudnn(stream, [&](cudnnHandle_t h) {
    std::lock_guard lock(plans_mutex());
    Plan& p = plan_for(key, h, stream, s, a.scale);
    bf16* qkv = a.qkv.as<bf16>();  // written only in place (scratch); cuDNN's variant pack takes non-const pointers
    bf16* qk = qkv;  // q at column 0, k at H D of rows 3 H D wide, or of the rotated copy's 2 H D
    const int rot = rotary ? int(a.cos.shape[1]) : 0;
    if (in_place) {
      rope_qk_in_place(qkv, s.S * s.B, int(s.B), int(s.H), int(s.D), a.cos.as<const bf16>(), a.sin.as<const bf16>(),
                       rot, stream);
    } else if (s.copy) {
      rope_qk_rows(qkv, p.rotated, s.S * s.B, int(s.B), int(s.H), int(s.D), a.cos.as<const bf16>(),
                   a.sin.as<const bf16>(), rot, stream);
      qk = p.rotated;
    }
    std::unordered_map<int64_t, void*> pack{
        {kUidQ, qk}, {kUidK, qk + s.H * s.D}, {kUidV, qkv + 2 * s.H * s.D}, {kUidO, a.out.as<bf16>()}};
    check_fe(p.graph->execute(h, pack, p.workspace), "execute", s);
  });
}

}  // namespace music3::ops
