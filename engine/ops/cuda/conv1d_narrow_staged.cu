// cuda.conv1d.narrow_staged: conv1d for narrow outputs (Cout <= 4: the vocoder's conv_out, 96 -> 1, k 7) with
// channels-last activations and Cin % 8 == 0, on the bodies of narrow_conv_staged.cuh: cuda.conv1d's narrow kernel
// (conv1d_narrow.cu) with its input staged by 16-byte copies in x's own [row][Cin] order (padded rows, so the
// 16-byte reads are conflict-free) instead of 2-byte loads with two divisions each, and the same sum in the same
// order, so the same bits. Why: at ~0.24 ms per window the narrow kernel reads x at ~0.56 TB/s, its staging a
// chain of dependent 2-byte loads per thread. One block per kTile output positions and batch row, kTile threads.
// Gates: op_conv1d_cuda (its narrow cases against the narrow kernel's bits), gate_vocoder_device_cuda (conv_out);
// the host gate op_narrow_conv_host runs its bodies on the CPU.
#include <climits>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/narrow_conv_staged.cuh"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

namespace nc = narrow_conv;

__global__ void __launch_bounds__(nc::kTile)
    narrow_conv_staged_kernel(const bf16* __restrict__ x, const bf16* __restrict__ w, const bf16* __restrict__ bias,
                              bf16* __restrict__ out, const nc::Geometry g) {
  extern __shared__ __align__(16) unsigned char shared[];
  float* staged_w = reinterpret_cast<float*>(shared);
  bf16* staged_x = reinterpret_cast<bf16*>(shared + g.weight_bytes());
  const int64_t b = blockIdx.y;
  const int t0 = blockIdx.x * nc::kTile;
  nc::stage_weights(g, w, threadIdx.x, nc::kTile, staged_w);
  nc::stage_rows(g, x, b, t0, threadIdx.x, nc::kTile, staged_x);
  __syncthreads();
  if (t0 + int(threadIdx.x) < g.t_out) nc::output(g, staged_w, staged_x, bias, out, b, t0, threadIdx.x);
}

nc::Geometry geometry_of(const Conv1dArgs& p) {
  const ConvWeightAxes axes = conv_weight_axes(p.layout);
  return {static_cast<int>(p.x.shape[2]),      static_cast<int>(p.w.shape[axes.out]),
          static_cast<int>(p.w.shape[axes.taps]), p.dilation,
          p.pad,                               static_cast<int>(p.x.shape[1]),
          static_cast<int>(p.out.shape[1]),    p.layout};
}

}  // namespace

bool conv1d_narrow_staged_supports(const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  if (!conv1d_is_plain(p) || p.act != ActLayout::ChannelsLast || !p.x.data || !p.out.data) return false;  // probes
  const ConvWeightAxes axes = conv_weight_axes(p.layout);
  const int64_t cout = p.w.shape[axes.out], cin = p.x.shape[2];
  if (cout < 1 || cout > 4 || cin % nc::kVec != 0 || p.x.shape[1] > INT_MAX / 2 || p.out.shape[1] > INT_MAX / 2 ||
      p.x.shape[0] > 65535 || !aligned16(p.x.data))
    return false;
  return geometry_of(p).shared_bytes() <= size_t(nc::kMaxStagedBytes);
}

void conv1d_narrow_staged_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  const nc::Geometry g = geometry_of(p);
  if (p.x.shape[0] == 0 || g.t_out == 0) return;
  const dim3 grid(static_cast<unsigned>((g.t_out + nc::kTile - 1) / nc::kTile), static_cast<unsigned>(p.x.shape[0]));
  narrow_conv_staged_kernel<<<grid, nc::kTile, g.shared_bytes(), stream_of(q)>>>(
      p.x.as<const bf16>(), p.w.as<const bf16>(), p.bias.as<const bf16>(), p.out.as<bf16>(), g);
  check_launch("conv1d (narrow, staged)");
}

}  // namespace music3::ops
