// conv1d on CUDA through CUTLASS 3's sm90 implicit-GEMM convolution (TMA im2col loads, wgmma, warp-specialized),
// for channels-last activations ([B, T, C], ActLayout::ChannelsLast) and OutTapIn weights [Cout, K, Cin] (CUTLASS's
// KSC): bf16 operands, f32 accumulation; the padding and the dilation live in the TMA im2col descriptor, so there is
// no padded copy and no im2col buffer. The kernels and their epilogues: conv1d_cutlass_sm90.cuh.
// Why beside the SM80 kernels of conv1d_cutlass.cu: those run the vocoder's 96- and 192-channel convs at 77-148
// TFLOP/s (N = 96 on a 64-wide tile wastes a quarter; mma.sync); here the tile's N is the channel count itself.
// Two providers share the kernels:
//  - cuda.conv1d.cutlass_sm90 takes plain calls (conv1d_is_plain);
//  - cuda.conv1d.cutlass_sm90.fused takes calls with a residual and adds it in the kernel's epilogue (taking it out
//    of selection leaves the entry's conv-then-add path: the one-binary A/B).
// supports(): a device of compute capability 9.0 (the kernels are sm_90a SASS only) and takes(): OutTapIn weights,
// channels-last activations, 16-byte aligned tensors and a shape one of the three tiles takes (Cout 96 with
// Cin % 32 == 0; Cout 192 with Cin % 64 == 0; Cout % 128 == 0 with Cin % 64 == 0) that CUTLASS's can_implement()
// accepts (its TMA im2col limits the padding and the dilated filter span). Anything else is left to
// cuda.conv1d.cutlass.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/ops/cuda/conv1d_cutlass_sm90_kernels.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

// The tile's kernels for this shape, or null when none fits.
const Sm90ConvKernels* tile_for(const Conv1dArgs& p) {
  const int64_t cin = p.x.shape[2], cout = p.out.shape[2];
  if (cout == 96 && cin % 32 == 0) return &kSm90ConvN96;
  if (cout == 192 && cin % 64 == 0) return &kSm90ConvN192;
  if (cout % 128 == 0 && cin % 64 == 0) return &kSm90ConvN128;
  return nullptr;
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

}  // namespace

bool conv1d_cutlass_sm90_takes(const Conv1dArgs& p) {
  if (p.layout != ConvWeightLayout::OutTapIn || p.act != ActLayout::ChannelsLast) return false;
  if (!p.x.data) return true;  // a layout probe
  // TMA and the 16-byte row loads need 16-byte aligned bases (a weight view into a packed blob may not be).
  for (const Tensor* t : {&p.x, &p.w, &p.bias, &p.out, &p.residual})
    if (t->data && !aligned16(*t)) return false;
  const Sm90ConvKernels* tile = tile_for(p);
  return tile && tile->can_implement(p);
}

bool conv1d_cutlass_sm90_supports(const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  return conv1d_is_plain(p) && is_sm90_device() && conv1d_cutlass_sm90_takes(p);
}

bool conv1d_cutlass_sm90_fused_supports(const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  return !conv1d_is_plain(p) && is_sm90_device() && conv1d_cutlass_sm90_takes(p);
}

void conv1d_cutlass_sm90_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  const Sm90ConvKernels* tile = tile_for(p);
  if (!tile)
    throw std::logic_error("conv1d (cutlass sm90): no tile for x " + p.x.describe() + ", w " + p.w.describe() +
                           " (supports() declines it)");
  tile->run(p, stream_of(q), multiprocessors());
}

}  // namespace music3::ops
