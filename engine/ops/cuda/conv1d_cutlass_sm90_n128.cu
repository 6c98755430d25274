// The sm90 conv1d kernels of the 128 x 128 x 64 tile (conv1d_cutlass_sm90.cuh), in a translation unit of their own.
#include "engine/ops/cuda/conv1d_cutlass_sm90.cuh"

namespace music3::ops {

const Sm90ConvKernels kSm90ConvN128 =
    sm90conv::kernels_for<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>>();

}  // namespace music3::ops
