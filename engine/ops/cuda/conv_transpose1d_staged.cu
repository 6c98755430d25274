// cuda.conv_transpose1d.staged: conv_transpose1d for channels-last activations with K = 2 stride and Cout % 8 == 0
// (every up-block of the vocoder): the same cuBLAS GEMM as cuda.conv_transpose1d (conv_transpose1d_columns), then
// the staged col2im of staged_col2im.cuh, one block per (sample block, channel block, batch row), 256 threads.
// Why: cuda.conv_transpose1d's col2im reads one 2-byte column element per output element with a stride of K
// elements between neighbouring threads, and divides per element; this reads and writes every byte 16 at a time.
// Gates: op_conv_transpose1d_cuda, gate_vocoder_{device,stages}_cuda (the device gate: the gather's bits on all four
// up-blocks); the host gate op_staged_col2im_host runs the kernel's bodies on the CPU.
#include "engine/core/bf16.h"
#include "engine/ops/cuda/conv_transpose1d_columns.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/staged_col2im.cuh"
#include "engine/ops/cuda/staged_col2im_launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) staged_col2im_kernel(const staged_col2im::Args a) {
  extern __shared__ __align__(16) unsigned char staged_bytes[];
  bf16* staged = reinterpret_cast<bf16*>(staged_bytes);
  const staged_col2im::Block blk{blockIdx.x, static_cast<int>(blockIdx.y), blockIdx.z};
  staged_col2im::stage_columns(a, blk, threadIdx.x, kThreads, staged);
  __syncthreads();
  staged_col2im::gather_outputs(a, blk, threadIdx.x, kThreads, staged);
}

}  // namespace

bool conv_transpose1d_staged_supports(const void* args) {
  const auto& p = *static_cast<const ConvTranspose1dArgs*>(args);
  if (p.act != ActLayout::ChannelsLast) return false;
  const int64_t cout = p.w.shape[1], taps = p.w.shape[2];
  return taps == 2 * int64_t(p.stride) && cout % staged_col2im::kVec == 0 && p.x.shape[0] <= 65535 &&
         staged_col2im::plan_for(cout, taps).shared_bytes <= size_t(staged_col2im::kMaxStagedBytes) &&
         aligned16(p.cols.data) && aligned16(p.bias.data) && aligned16(p.out.data);
}

void staged_col2im_cuda(const Queue& q, const StagedCol2imCall& c) {
  const staged_col2im::Plan plan = staged_col2im::plan_for(c.cout, 2 * int64_t(c.stride));
  const staged_col2im::Args a{c.cols, c.bias, c.out, c.len, c.l_out, static_cast<int>(c.cout), c.stride, c.pad,
                              plan.channel_block, plan.samples};
  const dim3 grid(static_cast<unsigned>(staged_col2im::sample_blocks(c.len, plan)),
                  static_cast<unsigned>(c.cout / plan.channel_block), static_cast<unsigned>(c.batch));
  staged_col2im_kernel<<<grid, kThreads, plan.shared_bytes, stream_of(q)>>>(a);
  check_launch("conv_transpose1d staged col2im");
}

void conv_transpose1d_staged_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const ConvTranspose1dArgs*>(args);
  conv_transpose1d_columns(q, p);
  staged_col2im_cuda(q, {p.cols.as<const bf16>(), p.bias.as<const bf16>(), p.out.as<bf16>(), p.x.shape[0],
                         p.x.shape[1], p.out.shape[1], p.w.shape[1], p.stride, p.pad});
}

}  // namespace music3::ops
