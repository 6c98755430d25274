// feedback_embedding on CUDA: one thread per element i of the hidden width (grid-stride), feedback_rule.h's
// element written to both rows. The column and the codes are read from the device (the LM sampler's and the depth
// frame's outputs, so no host round trip sits between them and the next decode); an out-of-range row is clamped
// into the table, never read outside it (such a frame is discarded by the caller). Launched under PDL (pdl.cuh):
// everything after pdl_wait().
#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/feedback_rule.h"
#include "engine/ops/lm_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxSteps = 16;

__global__ void __launch_bounds__(kThreads)
    feedback_embedding_kernel(const bf16* semantic, int64_t rows, const int32_t* column, const bf16* audio,
                              const int32_t* codes, int steps, int64_t audio_vocab, int64_t hidden, float scale,
                              bf16* out) {
  pdl_wait();
  pdl_trigger();
  const int64_t row = min(max(int64_t{column[0]}, int64_t{0}), rows - 1);
  int32_t c[kMaxSteps];
  for (int k = 0; k < steps; ++k)
    c[k] = static_cast<int32_t>(min(max(int64_t{codes[k]}, int64_t{0}), audio_vocab - 1));
  for (int64_t i = blockIdx.x * int64_t{kThreads} + threadIdx.x; i < hidden; i += int64_t{gridDim.x} * kThreads) {
    const bf16 v = feedback_element(semantic[row * hidden + i], audio, c, steps, audio_vocab, hidden, i, scale);
    out[i] = v;
    out[hidden + i] = v;
  }
}

}  // namespace

bool feedback_embedding_cuda_supports(const void* args) {
  return static_cast<const FeedbackEmbeddingArgs*>(args)->codes.shape[0] <= kMaxSteps;
}

void feedback_embedding_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const FeedbackEmbeddingArgs*>(args);
  const int64_t H = p.semantic.shape[1];
  launch_pdl("feedback_embedding", feedback_embedding_kernel, dim3(grid_for(H, kThreads)), dim3(kThreads), 0,
             stream_of(q), p.semantic.as<const bf16>(), p.semantic.shape[0], p.column.as<const int32_t>(),
             p.audio.as<const bf16>(), p.codes.as<const int32_t>(), static_cast<int>(p.codes.shape[0]), p.audio_vocab,
             H, p.scale, p.out.as<bf16>());
}

}  // namespace music3::ops
