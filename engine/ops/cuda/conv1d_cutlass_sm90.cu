// conv1d on CUDA through CUTLASS 3's sm90 implicit-GEMM convolution (TMA im2col loads, wgmma, warp-specialized),
// for channels-last activations ([B, T, C], ActLayout::ChannelsLast) and OutTapIn weights [Cout, K, Cin] (CUTLASS's
// KSC): bf16 operands, f32 accumulation; the padding and the dilation live in the TMA im2col descriptor, so there is
// no padded copy and no im2col buffer. Epilogue (a visitor tree): out = bf16(acc + bias[co]), the contract's single
// rounding of the f32 sum; the bias is a row broadcast (one value per output channel, read once per tile).
// Why beside the SM80 kernels of conv1d_cutlass.cu: those run the vocoder's 96- and 192-channel convs at 77-148
// TFLOP/s (N = 96 on a 64-wide tile wastes a quarter; mma.sync); here the tile's N is the channel count itself.
// supports(): a device of compute capability 9.0 (the kernels are sm_90a SASS only) and takes(): OutTapIn weights,
// channels-last activations, 16-byte aligned tensors and a shape one of the three tiles takes (Cout 96 with
// Cin % 32 == 0; Cout 192 with Cin % 64 == 0; Cout % 128 == 0 with Cin % 64 == 0) that CUTLASS's can_implement()
// accepts (its TMA im2col limits the padding and the dilated filter span). Anything else is left to
// cuda.conv1d.cutlass.
#include <cuda_runtime.h>

#include <cute/tensor.hpp>
#include <cutlass/kernel_hardware_info.hpp>
#include <cutlass/conv/collective/collective_builder.hpp>
#include <cutlass/conv/convnd_problem_shape.hpp>
#include <cutlass/conv/device/conv_universal_adapter.hpp>
#include <cutlass/conv/kernel/conv_universal.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

using cute::_0;
using cute::_1;
using cute::Shape;
using cute::Stride;
namespace fusion = cutlass::epilogue::fusion;
using Bf16 = cutlass::bfloat16_t;
using Nwc = cutlass::layout::TensorNWC;
constexpr auto kRound = cutlass::FloatRoundStyle::round_to_nearest;

using Problem = cutlass::conv::ConvProblemShape<cutlass::conv::Operator::kFprop, 1>;

// One kernel per tile shape (M = output positions, N = output channels, K = input channels per tap).
template <class Tile>
struct Sm90Conv {
  using Cluster = Shape<_1, _1, _1>;
  // out = bf16(acc + bias): bias[co] broadcast along the positions, the sum in f32, one rounding.
  using BiasRow = fusion::Sm90RowBroadcast<0, Tile, Bf16, float, Stride<_0, _1, int64_t>>;
  using BiasAdd = fusion::Sm90EVT<fusion::Sm90Compute<cutlass::plus, Bf16, float, kRound>, fusion::Sm90AccFetch,
                                  BiasRow>;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Tile, Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, Nwc, 8, Bf16, Nwc, 8,
      cutlass::epilogue::TmaWarpSpecialized, BiasAdd>::CollectiveOp;
  using Mainloop = typename cutlass::conv::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::conv::Operator::kFprop, Bf16, Nwc, 8, Bf16, Nwc,
      8, float, Tile, Cluster,
      cutlass::conv::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      cutlass::conv::collective::KernelScheduleAuto>::CollectiveOp;
  using Kernel = cutlass::conv::kernel::ConvUniversal<Problem, Mainloop, Epilogue>;
  using Op = cutlass::conv::device::ConvUniversalAdapter<Kernel>;
};

using cute::_128;
using cute::_192;
using cute::_32;
using cute::_64;
using cute::_96;
using Tile96 = Sm90Conv<Shape<_128, _96, Shape<_32>>>;
using Tile192 = Sm90Conv<Shape<_128, _192, Shape<_64>>>;
using Tile128 = Sm90Conv<Shape<_128, _128, Shape<_64>>>;

struct Dims {
  int batch, t_in, cin, cout, taps, t_out;
};

Dims dims_of(const Conv1dArgs& p) {
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  return {i(p.x.shape[0]), i(p.x.shape[1]), i(p.x.shape[2]), i(p.out.shape[2]),
          i(p.w.shape[conv_weight_axes(p.layout).taps]), i(p.out.shape[1])};
}

// Activation [N, W, C], filter [K, S, C], symmetric padding, stride 1, the call's dilation.
Problem problem(const Conv1dArgs& p) {
  const Dims d = dims_of(p);
  return Problem(cutlass::conv::Mode::kCrossCorrelation, {d.batch, d.t_in, d.cin}, {d.cout, d.taps, d.cin}, {p.pad},
                 {p.pad}, {1}, {p.dilation}, 1);
}

// sm_count 0 (can_implement() on the host) leaves CUTLASS's hardware info unset: it is read only to launch.
template <class Conv>
typename Conv::Op::Arguments arguments(const Conv1dArgs& p, const Bf16* x, const Bf16* w, const Bf16* bias,
                                       Bf16* out, int sm_count = 0) {
  const Dims d = dims_of(p);
  typename Conv::Op::Arguments args{};
  args.problem_shape = problem(p);
  args.mainloop = {x, w};
  // D is [B, Tout, Cout] as ((positions, batch), channels): strides Cout and Tout Cout, channels contiguous.
  typename Conv::Kernel::StrideD stride_d{};
  cute::get<0, 0>(stride_d) = d.cout;
  cute::get<0, 1>(stride_d) = int64_t(d.t_out) * d.cout;
  args.epilogue.ptr_C = nullptr;
  args.epilogue.ptr_D = out;
  args.epilogue.dD = stride_d;
  args.epilogue.thread = {{}, {bias, Bf16(0), {}}, {}};  // {acc fetch, bias row, plus}
  args.hw_info.sm_count = sm_count;
  return args;
}

// The tile for this shape; Visit(tag) runs with the chosen Sm90Conv type, or returns fallback when none fits.
template <class Visit, class R>
R with_tile(const Conv1dArgs& p, Visit visit, R fallback) {
  const Dims d = dims_of(p);
  if (d.cout == 96 && d.cin % 32 == 0) return visit(Tile96{});
  if (d.cout == 192 && d.cin % 64 == 0) return visit(Tile192{});
  if (d.cout % 128 == 0 && d.cin % 64 == 0) return visit(Tile128{});
  return fallback;
}

int sm_count() {
  static const int count = [] {
    int dev = 0;
    cudaGetDevice(&dev);
    return cutlass::KernelHardwareInfo::query_device_multiprocessor_count(dev);
  }();
  return count;
}

bool aligned16(const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data) % 16 == 0; }

bool is_sm90_device() {
  static const bool yes = [] {
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return false;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    return major == 9 && minor == 0;
  }();
  return yes;
}

const Bf16* cut(const Tensor& t) { return reinterpret_cast<const Bf16*>(t.data); }

}  // namespace

bool conv1d_cutlass_sm90_takes(const Conv1dArgs& p) {
  if (p.layout != ConvWeightLayout::OutTapIn || p.act != ActLayout::ChannelsLast) return false;
  if (!p.x.data) return true;  // a layout probe
  // TMA and the 16-byte bias loads need 16-byte aligned bases (a weight view into a packed blob may not be).
  if (!aligned16(p.x) || !aligned16(p.w) || !aligned16(p.bias) || !aligned16(p.out)) return false;
  return with_tile(
      p,
      [&](auto tile) {
        using Conv = decltype(tile);
        return Conv::Op::can_implement(arguments<Conv>(p, cut(p.x), cut(p.w), cut(p.bias), nullptr)) ==
               cutlass::Status::kSuccess;
      },
      false);
}

bool conv1d_cutlass_sm90_supports(const void* args) {
  return is_sm90_device() && conv1d_cutlass_sm90_takes(*static_cast<const Conv1dArgs*>(args));
}

void conv1d_cutlass_sm90_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  const cudaStream_t stream = stream_of(q);
  const std::string shape = "x " + p.x.describe() + ", w " + p.w.describe() + ", dilation " +
                            std::to_string(p.dilation) + ", pad " + std::to_string(p.pad);
  const bool ran = with_tile(
      p,
      [&](auto tile) {
        using Conv = decltype(tile);
        const auto a = arguments<Conv>(p, cut(p.x), cut(p.w), cut(p.bias), reinterpret_cast<Bf16*>(p.out.data),
                                      sm_count());
        const auto check = [&](cutlass::Status s, const char* step) {
          if (s != cutlass::Status::kSuccess)
            throw std::runtime_error(std::string("conv1d (cutlass sm90): ") + step + " failed (" +
                                     cutlassGetStatusString(s) + ") for " + shape);
        };
        check(Conv::Op::can_implement(a), "can_implement");
        if (Conv::Op::get_workspace_size(a) != 0)
          throw std::logic_error("conv1d (cutlass sm90): a workspace is needed for " + shape);
        typename Conv::Op op;
        check(op.initialize(a, nullptr, stream), "initialize");
        check(op.run(stream), "run");
        check_launch("conv1d (cutlass sm90) implicit GEMM");
        return true;
      },
      false);
  if (!ran) throw std::logic_error("conv1d (cutlass sm90): no tile for " + shape + " (supports() declines it)");
}

}  // namespace music3::ops
