// The sm90 conv1d kernels of the 128 x 96 x 32 tile (conv1d_cutlass_sm90.cuh), in a translation unit of their own.
#include "engine/ops/cuda/conv1d_cutlass_sm90.cuh"

namespace music3::ops {

const Sm90ConvKernels kSm90ConvN96 =
    sm90conv::kernels_for<cute::Shape<cute::_128, cute::_96, cute::Shape<cute::_32>>>();

}  // namespace music3::ops
