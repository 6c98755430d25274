// conv1d on CUDA through CUTLASS's implicit-GEMM convolution (builds with the CUTLASS headers: MUSIC3_WITH_CUTLASS):
// a conv2d fprop with H = 1 (R = 1, P = 1) on channels-last data, weights OutTapIn [Cout, K, Cin] (CUTLASS's KRSC),
// bf16 operands, f32 accumulation on tensor cores (SM80 mma.sync kernels, which run on sm_90), the padding and the
// dilation in CUTLASS's activation iterator: no padded copy and no im2col. Epilogue: out = bf16(acc + bias), the
// contract's single rounding (f32 sum in CUTLASS's order): the bias enters as the source tensor C with stride 0, so
// every output position reads bias[co], blended with beta = 1 in f32 before the one conversion to bf16.
// Channels-last activations (ActLayout::ChannelsLast, [B, T, C]) are CUTLASS's own: x in, out written, no scratch.
// Channels-first ones [B, C, T]: x is transposed into the xpad scratch as [B, T, Cin] (it holds B Cin (T + 2 pad)
// >= B T Cin values), the conv writes [B, Tout, Cout] bf16 into the acc scratch (B Cout Tout f32 = twice the bytes
// needed), and that is transposed into out. Each transpose is exact (bf16 copies).
// supports(): OutTapIn weights and, for a call (a probe without tensors is judged by its layouts alone), K > 1 for
// channels-first activations (a 1x1 conv there is one cuBLAS GEMM straight into out, with no transposes: cuda.conv1d
// takes it from the same staging; channels-last 1x1 convs run here, the bias in the epilogue), Cin and Cout
// multiples of 8 (CUTLASS's 16-byte accesses) and a problem CUTLASS's can_implement() accepts.
// Tiles: 128x128x64, 3 stages, when Cout is a multiple of 128 and Cin of 64; else 128x64x32, 4 stages.
#include <cutlass/bfloat16.h>
#include <cutlass/conv/conv2d_problem_size.h>
#include <cutlass/conv/device/implicit_gemm_convolution.h>
#include <cutlass/conv/kernel/default_conv2d_fprop.h>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/threadblock/threadblock_swizzle.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

using cutlass::gemm::GemmShape;
using Nwc = cutlass::layout::TensorNHWC;

template <typename Block, typename Warp, int Stages>
using Fprop = cutlass::conv::device::ImplicitGemmConvolution<typename cutlass::conv::kernel::DefaultConv2dFprop<
    cutlass::bfloat16_t, Nwc, cutlass::bfloat16_t, Nwc, cutlass::bfloat16_t, Nwc, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, Block, Warp, GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<cutlass::bfloat16_t, 8, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, Stages, cutlass::arch::OpMultiplyAdd,
    cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel>;
using WideFprop = Fprop<GemmShape<128, 128, 64>, GemmShape<64, 64, 64>, 3>;
using NarrowFprop = Fprop<GemmShape<128, 64, 32>, GemmShape<64, 32, 32>, 4>;

constexpr int kAlign = 8;  // bf16 elements per 16-byte access
constexpr int kTile = 32, kTileRows = 8;

// in [B][rows][cols] -> out [B][cols][rows], through a shared 32x32 tile: one block (32x8 threads) per tile, the
// tiles of a plane numbered along blockIdx.x row by row (tile_cols per row), the batch along blockIdx.z.
__global__ void transpose_kernel(const bf16* __restrict__ in, bf16* __restrict__ out, int64_t rows, int64_t cols,
                                 int64_t tile_cols) {
  __shared__ bf16 tile[kTile][kTile + 1];
  const int64_t plane = rows * cols, r0 = int64_t(blockIdx.x) / tile_cols * kTile;
  const int64_t c0 = int64_t(blockIdx.x) % tile_cols * kTile;
  const bf16* src = in + int64_t(blockIdx.z) * plane;
  bf16* dst = out + int64_t(blockIdx.z) * plane;
  for (int i = threadIdx.y; i < kTile; i += kTileRows) {
    const int64_t r = r0 + i, c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[i][threadIdx.x] = src[r * cols + c];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < kTile; i += kTileRows) {
    const int64_t c = c0 + i, r = r0 + threadIdx.x;
    if (c < cols && r < rows) dst[c * rows + r] = tile[threadIdx.x][i];
  }
}

void transpose(const bf16* in, bf16* out, int64_t batch, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int64_t tile_cols = (cols + kTile - 1) / kTile, tiles = (rows + kTile - 1) / kTile * tile_cols;
  if (tiles > INT32_MAX || batch > 65535)
    throw std::invalid_argument("conv1d (cutlass): a transpose of " + std::to_string(batch) + " x " +
                                std::to_string(rows) + " x " + std::to_string(cols) + " is beyond the grid");
  const dim3 grid(static_cast<unsigned>(tiles), 1, static_cast<unsigned>(batch));
  transpose_kernel<<<grid, dim3(kTile, kTileRows), 0, stream>>>(in, out, rows, cols, tile_cols);
  check_launch("conv1d (cutlass) transpose");
}

int64_t taps_of(const Conv1dArgs& p) { return p.w.shape[conv_weight_axes(p.layout).taps]; }

cutlass::conv::Conv2dProblemSize problem(const Conv1dArgs& p) {
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  const ActAxes a = act_axes(p.act);
  return cutlass::conv::Conv2dProblemSize(i(p.x.shape[0]), 1, i(p.x.shape[a.time]), i(p.x.shape[a.channels]),
                                          i(p.out.shape[a.channels]), 1, i(taps_of(p)), 1, i(p.out.shape[a.time]), 0,
                                          p.pad, 1, 1, 1, p.dilation, cutlass::conv::Mode::kCrossCorrelation);
}

// The arguments for x_nwc [B, T, Cin] -> y_nwc [B, Tout, Cout]; the bias as C with stride 0, beta = 1.
template <typename Op>
typename Op::Arguments arguments(const cutlass::conv::Conv2dProblemSize& ps, const bf16* x_nwc, const bf16* w,
                                 const bf16* bias, bf16* y_nwc) {
  const auto cut = [](const bf16* v) { return reinterpret_cast<cutlass::bfloat16_t*>(const_cast<bf16*>(v)); };
  return typename Op::Arguments(ps, {cut(x_nwc), Nwc::packed(ps.activation_extent())},
                                {cut(w), Nwc::packed(ps.filter_extent())}, {cut(bias), Nwc(Nwc::Stride(0))},
                                {cut(y_nwc), Nwc::packed(ps.output_extent())}, {1.0f, 1.0f});
}

int64_t channels_of(const Tensor& t, const Conv1dArgs& p) { return t.shape[act_axes(p.act).channels]; }

bool wide_tiles(const Conv1dArgs& p) { return channels_of(p.out, p) % 128 == 0 && channels_of(p.x, p) % 64 == 0; }

template <typename Op>
bool implementable(const cutlass::conv::Conv2dProblemSize& ps) {
  return Op::can_implement(arguments<Op>(ps, nullptr, nullptr, nullptr, nullptr)) == cutlass::Status::kSuccess;
}

template <typename Op>
void run_fprop(const Conv1dArgs& p, const bf16* x_nwc, bf16* y_nwc, cudaStream_t stream) {
  const auto ps = problem(p);
  const auto args = arguments<Op>(ps, x_nwc, p.w.as<const bf16>(), p.bias.as<const bf16>(), y_nwc);
  const std::string shape = "x " + p.x.describe() + ", w " + p.w.describe() + ", dilation " +
                            std::to_string(p.dilation) + ", pad " + std::to_string(p.pad);
  const auto check = [&](cutlass::Status s, const char* step) {
    if (s != cutlass::Status::kSuccess)
      throw std::runtime_error(std::string("conv1d (cutlass): ") + step + " failed (" + cutlassGetStatusString(s) +
                               ") for " + shape);
  };
  check(Op::can_implement(args), "can_implement");
  if (Op::get_workspace_size(args) != 0) throw std::logic_error("conv1d (cutlass): a workspace is needed for " + shape);
  Op op;
  check(op.initialize(args, nullptr, stream), "initialize");
  check(op.run(stream), "run");
  check_launch("conv1d (cutlass) implicit GEMM");
}

// x_nwc [B, T, Cin] -> y_nwc [B, Tout, Cout] with the tiles wide_tiles() picks.
void fprop(const Conv1dArgs& p, const bf16* x_nwc, bf16* y_nwc, cudaStream_t stream) {
  if (wide_tiles(p))
    run_fprop<WideFprop>(p, x_nwc, y_nwc, stream);
  else
    run_fprop<NarrowFprop>(p, x_nwc, y_nwc, stream);
}

}  // namespace

bool conv1d_cutlass_supports(const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  if (p.layout != ConvWeightLayout::OutTapIn || !conv1d_is_plain(p)) return false;
  if (!p.x.data) return true;  // a layout probe
  if (p.act == ActLayout::ChannelsFirst && taps_of(p) < 2) return false;
  if (channels_of(p.x, p) % kAlign != 0 || channels_of(p.out, p) % kAlign != 0) return false;
  const auto ps = problem(p);
  return wide_tiles(p) ? implementable<WideFprop>(ps) : implementable<NarrowFprop>(ps);
}

void conv1d_cutlass_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  const cudaStream_t stream = stream_of(q);
  if (p.act == ActLayout::ChannelsLast) return fprop(p, p.x.as<const bf16>(), p.out.as<bf16>(), stream);
  const int64_t batch = p.x.shape[0], cin = p.x.shape[1], t_in = p.x.shape[2];
  const int64_t cout = p.out.shape[1], t_out = p.out.shape[2];
  bf16* x_nwc = p.xpad.as<bf16>();
  bf16* y_nwc = static_cast<bf16*>(p.acc.data);
  transpose(p.x.as<const bf16>(), x_nwc, batch, cin, t_in, stream);
  fprop(p, x_nwc, y_nwc, stream);
  transpose(y_nwc, p.out.as<bf16>(), batch, t_out, cout, stream);
}

}  // namespace music3::ops
