// Host-resident weights of the Qwen3 language model, bf16, read in place from the
// mapped checkpoint (runtime::HostTensor views; F32-stored tensors are rounded into
// owned storage).
// Contract: tensors are row-major [out, in] as transformers stores them. Of lm_head
// only the rows the AR loop can sample are held: head_eos = row 151670 [1, H] and
// head_codes = rows 151675 ... 168058 [16384, H] (lm_ids.h); the other rows are never
// read. expected_tensors() lists every tensor name and shape a checkpoint must hold.
// Thread-safety: const use is thread-safe.
#pragma once
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/models/music3/lm/lm_config.h"
#include "engine/runtime/host_tensor.h"

namespace music3::lm {

using runtime::HostTensor;

struct LmLayerWeights {
  HostTensor input_norm, post_norm;  // [H]
  HostTensor q_norm, k_norm;         // [D]
  HostTensor wq;                     // [heads*D, H]
  HostTensor wk, wv;                 // [kv_heads*D, H]
  HostTensor wo;                     // [H, heads*D]
  HostTensor w_gate, w_up;           // [I, H]
  HostTensor w_down;                 // [H, I]
};

struct LmTensorSpec {
  std::string name;
  Shape shape;
};

struct LmWeights {
  LmConfig cfg;
  HostTensor embed;       // [V, H]
  HostTensor norm;        // [H]
  HostTensor head_eos;    // [1, H]: lm_head row 151670
  HostTensor head_codes;  // [16384, H]: lm_head rows 151675 ...
  std::vector<LmLayerWeights> layers;

  size_t bytes() const;
  static std::vector<LmTensorSpec> expected_tensors(const LmConfig& cfg);
};

}  // namespace music3::lm
