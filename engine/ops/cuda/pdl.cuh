// Programmatic dependent launch (PDL, sm_90) for the CUDA providers that take part in
// it. launch_pdl() launches a kernel that may start while the previous kernel on the
// stream is still running (also inside a captured graph, where the edge becomes a
// programmatic one). Contract for every kernel launched this way:
//   - before pdl_wait() it writes nothing and reads only memory that the kernel directly before it does not write
//     and whose writers completed before that kernel could pass its own pdl_wait() (the rule below makes every
//     kernel but the one directly before complete by then): the weights, or data of earlier steps such as the
//     decode attention's cached K/V rows;
//   - every block calls pdl_wait() (it returns once every earlier kernel on the
//     stream has completed and its writes are visible), so completion stays
//     transitive along the stream;
//   - it calls pdl_trigger() only after pdl_wait(), so at most two kernels of a
//     chain overlap: the one running and the next one waiting at its start;
//   - after pdl_wait() it reads what earlier work wrote through coherent loads only: never the non-coherent
//     read-only path (ld.global.nc: __ldg, or a `const T* __restrict__` parameter the compiler may route there),
//     whose contract is data that stays unchanged for the kernel's whole life, which a kernel started under PDL
//     does not have (the kernel before it writes while it waits). load_produced16() is the 16-byte form.
//     Measured on the H200 (session 16): with the GEMV's activations read through __ldg, two processes of one seed
//     parted from the first captured LM decode step at full geometry (MUSIC3_DISABLE_PDL=1 repeated); with
//     coherent loads two processes wrote identical dumps (reports/bench/pipeline/2026-12-03-7230eb9-h200-fix).
// A kernel launched without the attribute sees both calls as no-ops.
// With the switch off (pdl_switch.h: MUSIC3_DISABLE_PDL=1) launch_pdl() launches in plain stream order. PDL
// changes when a kernel starts, never what it computes, so the switch is an A/B of the overlap and a bisection
// step for anything that differs between runs (the same bits either way, by the contract above).
// Thread-safety: device code and stateless host helpers: thread-safe.
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "engine/core/cuda/cuda_backend.h"
#include "engine/ops/pdl_switch.h"

namespace music3::ops {

__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void pdl_trigger() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
// 16 bytes that earlier work on the stream wrote, read at L2 (ld.global.cg: coherent, L1 bypassed).
__device__ __forceinline__ uint4 load_produced16(const void* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

template <class... Params, class... Args>
void launch_pdl(const char* op, void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes,
                cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = shared_bytes;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = pdl_allowed() ? 1 : 0;
  check_cuda(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...),
             (std::string(op) + " (cuda) kernel launch").c_str());
}

}  // namespace music3::ops
