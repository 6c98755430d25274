// The sm90 conv1d kernels (CUTLASS 3 implicit-GEMM fprop: TMA im2col loads, wgmma, warp-specialized) for one tile
// shape, and the two epilogues each tile has (a visitor tree over the f32 accumulator):
//  - Bias:     out = bf16(acc + bias[co]), the conv contract's single rounding (bias a row broadcast: one value per
//              output channel, read once per tile);
//  - Residual: out = bf16(bf16(acc + bias[co]) + residual), the residual read as CUTLASS's source tensor C: the
//              same bits as the add kernel run after the conv.
// On the H200 the residual epilogue takes a residual unit at 192 channels from 0.972 to 0.946 ms (the window 11.8 ->
// 11.6 ms). A Snake epilogue, snake(bf16(acc + bias), alpha) in the same tree, gave the snake kernel's bits but made a
// residual unit 2.8x slower: sinf and a division per element in the epilogue warps of a one-CTA-per-SM kernel, not
// overlapped with the main loop; it is not kept (reports/bench/vocoder/2026-12-03-7aae561-h200-snake-residual-epilogue).
// Included only by the per-tile translation units (conv1d_cutlass_sm90_n*.cu); the provider sees Sm90ConvKernels.
#pragma once
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
#include <type_traits>

#include "engine/ops/cuda/conv1d_cutlass_sm90_kernels.h"
#include "engine/ops/cuda/launch.h"

namespace music3::ops::sm90conv {

using cute::_0;
using cute::_1;
using cute::Shape;
using cute::Stride;
namespace fusion = cutlass::epilogue::fusion;
using Bf16 = cutlass::bfloat16_t;
using Nwc = cutlass::layout::TensorNWC;
constexpr auto kRound = cutlass::FloatRoundStyle::round_to_nearest;

using Problem = cutlass::conv::ConvProblemShape<cutlass::conv::Operator::kFprop, 1>;

enum class Epi { Bias, Residual };
inline Epi epi_of(const Conv1dArgs& p) {
  return p.residual.data ? Epi::Residual : Epi::Bias;
}

template <class Tile, Epi kEpi>
struct Sm90Conv {
  using Cluster = Shape<_1, _1, _1>;
  // The bias: one value per output channel, broadcast along the positions.
  using ChannelRow = fusion::Sm90RowBroadcast<0, Tile, Bf16, float, Stride<_0, _1, int64_t>>;
  using BiasAdd = fusion::Sm90EVT<fusion::Sm90Compute<cutlass::plus, Bf16, float, kRound>, fusion::Sm90AccFetch,
                                  ChannelRow>;
  using ResidualTree = fusion::Sm90EVT<fusion::Sm90Compute<cutlass::plus, Bf16, float, kRound>,
                                       fusion::Sm90SrcFetch<Bf16>, BiasAdd>;
  using Tree = std::conditional_t<kEpi == Epi::Residual, ResidualTree, BiasAdd>;
  using ElementC = std::conditional_t<kEpi == Epi::Residual, Bf16, void>;  // C is read only for the residual
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Tile, Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, ElementC, Nwc, 8, Bf16, Nwc, 8,
      cutlass::epilogue::TmaWarpSpecialized, Tree>::CollectiveOp;
  using Mainloop = typename cutlass::conv::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::conv::Operator::kFprop, Bf16, Nwc, 8, Bf16, Nwc,
      8, float, Tile, Cluster,
      cutlass::conv::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      cutlass::conv::collective::KernelScheduleAuto>::CollectiveOp;
  using Kernel = cutlass::conv::kernel::ConvUniversal<Problem, Mainloop, Epilogue>;
  using Op = cutlass::conv::device::ConvUniversalAdapter<Kernel>;
};

struct Dims {
  int batch, t_in, cin, cout, taps, t_out;
};

inline Dims dims_of(const Conv1dArgs& p) {
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  return {i(p.x.shape[0]), i(p.x.shape[1]), i(p.x.shape[2]), i(p.out.shape[2]),
          i(p.w.shape[conv_weight_axes(p.layout).taps]), i(p.out.shape[1])};
}

// Activation [N, W, C], filter [K, S, C], symmetric padding, stride 1, the call's dilation.
inline Problem problem(const Conv1dArgs& p) {
  const Dims d = dims_of(p);
  return Problem(cutlass::conv::Mode::kCrossCorrelation, {d.batch, d.t_in, d.cin}, {d.cout, d.taps, d.cin}, {p.pad},
                 {p.pad}, {1}, {p.dilation}, 1);
}

inline const Bf16* cut(const Tensor& t) { return reinterpret_cast<const Bf16*>(t.data); }

// sm_count 0 (can_implement() on the host) leaves CUTLASS's hardware info unset: it is read only to launch.
template <class Conv, Epi kEpi>
typename Conv::Op::Arguments arguments(const Conv1dArgs& p, int sm_count) {
  const Dims d = dims_of(p);
  typename Conv::Op::Arguments args{};
  args.problem_shape = problem(p);
  args.mainloop = {cut(p.x), cut(p.w)};
  // D (and C) is [B, Tout, Cout] as ((positions, batch), channels): strides Cout and Tout Cout, channels contiguous.
  typename Conv::Kernel::StrideD stride_d{};
  cute::get<0, 0>(stride_d) = d.cout;
  cute::get<0, 1>(stride_d) = int64_t(d.t_out) * d.cout;
  args.epilogue.ptr_D = reinterpret_cast<Bf16*>(p.out.data);
  args.epilogue.dD = stride_d;
  const typename Conv::BiasAdd::Arguments bias_add{{}, {cut(p.bias), Bf16(0), {}}, {}};  // {acc, bias, plus}
  if constexpr (kEpi == Epi::Residual) {
    args.epilogue.ptr_C = cut(p.residual);
    args.epilogue.dC = stride_d;
    args.epilogue.thread = {{}, bias_add, {}};  // {residual, conv, plus}
  } else {
    args.epilogue.ptr_C = nullptr;
    args.epilogue.thread = bias_add;
  }
  args.hw_info.sm_count = sm_count;
  return args;
}

template <class Tile, class Fn>
auto with_epi(const Conv1dArgs& p, Fn fn) {
  if (epi_of(p) == Epi::Residual) return fn.template operator()<Sm90Conv<Tile, Epi::Residual>, Epi::Residual>();
  return fn.template operator()<Sm90Conv<Tile, Epi::Bias>, Epi::Bias>();
}

// The kernels of one tile, for conv1d_cutlass_sm90_kernels.h's table.
template <class Tile>
constexpr Sm90ConvKernels kernels_for() {
  return {[](const Conv1dArgs& p) {
            return with_epi<Tile>(p, [&]<class Conv, Epi kEpi>() {
              return Conv::Op::can_implement(arguments<Conv, kEpi>(p, 0)) == cutlass::Status::kSuccess;
            });
          },
          [](const Conv1dArgs& p, cudaStream_t stream, int sm_count) {
            with_epi<Tile>(p, [&]<class Conv, Epi kEpi>() {
              const std::string shape = "x " + p.x.describe() + ", w " + p.w.describe() + ", dilation " +
                                        std::to_string(p.dilation) + ", pad " + std::to_string(p.pad);
              const auto a = arguments<Conv, kEpi>(p, sm_count);
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
            });
          }};
}

}  // namespace music3::ops::sm90conv
