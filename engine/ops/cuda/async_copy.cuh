// Asynchronous 16-byte global -> shared copies (cp.async, L1 bypassed, 256-byte L2 fetches), in commit groups;
// wait_groups<N>() returns once at most N of this thread's groups are pending, and the completed copies are then
// visible to this thread (other threads see them after a barrier). copy_async16_zfill(dst, src, false) writes 16
// zero bytes and reads nothing (src need only be a valid address). prefetch_l2_bulk() asks L2 for a range (a hint).
// Device-side helpers: no state.
#pragma once
#include <cstdint>

namespace music3::ops {

__device__ __forceinline__ void copy_async16(uint32_t shared_addr, const void* global) {
  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(shared_addr), "l"(global) : "memory");
}
__device__ __forceinline__ void copy_async16_zfill(uint32_t shared_addr, const void* global, bool read) {
  const int src_bytes = read ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared_addr), "l"(global), "r"(src_bytes)
               : "memory");
}
// Asks L2 to fetch [global, global + bytes) (cp.async.bulk.prefetch, sm_90): a hint that reads nothing into the SM
// and changes no value; global 16-byte aligned, bytes a multiple of 16.
__device__ __forceinline__ void prefetch_l2_bulk(const void* global, uint32_t bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(global), "r"(bytes) : "memory");
}
__device__ __forceinline__ void commit_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_groups() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace music3::ops
