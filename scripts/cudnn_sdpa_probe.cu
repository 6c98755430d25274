// cudnn_sdpa_probe: measures cuDNN's fused attention (the frontend's SDPA graph, bf16 in and out, f32 softmax and
// accumulation) against this project's ops::self_attention at the DiT's shape, in one process on one stream, before
// any cuDNN attention provider is written (the brief: measure cuDNN before hand-writing kernels).
// Shape: qkv [S*B, 3 H D] with rows [token][batch] (transformer_ops.h), scale 1/sqrt(D), non-causal; defaults S 690,
// B 2, H 32, D 64 (the release DiT at L = 689 with its time token, both guidance branches).
// Prints one JSON line: each arm's median microseconds over 200 calls (after 20 untimed), TFLOP/s (4 S^2 H D B), and
// the cuDNN output against ours in bf16 ULPs (the largest, the mean, and the share of equal values).
// Build and run: scripts/gpu-sdpa-probe (nvcc with the cudnn-frontend headers, cuDNN, build/lib's ops and core).
// Exit status: 0 measured; 1 cuDNN refused the graph or a CUDA call failed (the message names which).
#include <cudnn.h>
#include <cudnn_frontend.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/device_array.h"
#include "engine/core/queue.h"
#include "engine/ops/transformer_ops.h"

namespace fe = cudnn_frontend;
using music3::bf16;

namespace {

void check(fe::error_t e, const char* what) {
  if (!e.is_good()) throw std::runtime_error(std::string("cudnn frontend: ") + what + ": " + e.get_message());
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class F>
double median_us(F&& call, cudaStream_t s) {
  for (int i = 0; i < 20; ++i) call();
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  std::vector<float> ms;
  for (int i = 0; i < 200; ++i) {
    check(cudaEventRecord(a, s), "record");
    call();
    check(cudaEventRecord(b, s), "record");
    check(cudaEventSynchronize(b), "sync");
    float t = 0;
    check(cudaEventElapsedTime(&t, a, b), "elapsed");
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return 1e3 * ms[ms.size() / 2];
}

int32_t ordered(bf16 v) {  // bf16 bits on a line where adjacent values differ by 1
  const int32_t u = v.bits;
  return (u & 0x8000) ? 0x8000 - (u & 0x7fff) : 0x8000 + u;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t S = argc > 1 ? std::atoll(argv[1]) : 690, B = 2, H = 32, D = 64;
  try {
    const music3::Queue q = music3::cuda_queue(0);
    const auto stream = static_cast<cudaStream_t>(q.stream);
    music3::DeviceArray qkv(q, music3::DType::BF16, {S * B, 3 * H * D}), ours(q, music3::DType::BF16, {S * B, H * D}),
        theirs(q, music3::DType::BF16, {S * B, H * D});
    std::vector<bf16> host(size_t(S * B * 3 * H * D));
    std::mt19937 rng(7);
    std::normal_distribution<float> n(0.f, 1.f);
    for (auto& v : host) v = music3::to_bf16(n(rng));
    qkv.upload(host);
    const float scale = 1.0f / std::sqrt(float(D));

    cudnnHandle_t handle;
    if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS) throw std::runtime_error("cudnnCreate failed");
    cudnnSetStream(handle, stream);
    fe::graph::Graph g;
    g.set_io_data_type(fe::DataType_t::BFLOAT16)
        .set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    // [B, H, S, D] views of the packed rows: token stride B*3HD, batch stride 3HD, head stride D.
    const std::vector<int64_t> dims{B, H, S, D}, in_stride{3 * H * D, D, B * 3 * H * D, 1},
        out_stride{H * D, D, B * H * D, 1};
    auto tensor = [&](const char* name, int64_t uid) {
      return g.tensor(fe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(dims).set_stride(in_stride));
    };
    auto Q = tensor("Q", 1), K = tensor("K", 2), V = tensor("V", 3);
    auto [O, stats] = g.sdpa(Q, K, V,
                             fe::graph::SDPA_attributes().set_name("sdpa").set_generate_stats(false).set_attn_scale(scale));
    O->set_output(true).set_dim(dims).set_stride(out_stride).set_uid(4);
    check(g.validate(), "validate");
    check(g.build_operation_graph(handle), "build_operation_graph");
    check(g.create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
    check(g.check_support(handle), "check_support");
    check(g.build_plans(handle), "build_plans");
    int64_t ws_bytes = 0;
    check(g.get_workspace_size(ws_bytes), "workspace");
    music3::DeviceArray ws(q, size_t(std::max<int64_t>(ws_bytes, 1)));
    auto* base = static_cast<bf16*>(qkv.data());
    std::unordered_map<int64_t, void*> pack{{1, base}, {2, base + H * D}, {3, base + 2 * H * D}, {4, theirs.data()}};

    auto run_cudnn = [&] { check(g.execute(handle, pack, ws.data()), "execute"); };
    auto run_ours = [&] { music3::ops::self_attention(q, qkv, int(H), int(B), scale, ours); };
    const double us_cudnn = median_us(run_cudnn, stream), us_ours = median_us(run_ours, stream);
    q.synchronize();

    const auto a = ours.download<bf16>(), b = theirs.download<bf16>();
    int64_t worst = 0, equal = 0;
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const int64_t d = std::llabs(int64_t(ordered(a[i])) - ordered(b[i]));
      worst = std::max(worst, d);
      sum += double(d);
      equal += d == 0;
    }
    const double flops = 4.0 * double(S) * double(S) * double(H) * double(D) * double(B);
    std::printf(
        "{\"S\": %lld, \"B\": %lld, \"H\": %lld, \"D\": %lld, \"cudnn_version\": %zu, \"workspace_bytes\": %lld, "
        "\"us\": {\"cudnn_sdpa\": %.2f, \"music3_self_attention\": %.2f}, \"tflops\": {\"cudnn_sdpa\": %.1f, "
        "\"music3_self_attention\": %.1f}, \"cudnn_vs_ours_ulp\": {\"max\": %lld, \"mean\": %.4f, \"equal_share\": "
        "%.4f}}\n",
        (long long)S, (long long)B, (long long)H, (long long)D, cudnnGetVersion(), (long long)ws_bytes, us_cudnn, us_ours,
        flops / us_cudnn / 1e6, flops / us_ours / 1e6, (long long)worst, sum / double(a.size()),
        double(equal) / double(a.size()));
    cudnnDestroy(handle);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudnn_sdpa_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
