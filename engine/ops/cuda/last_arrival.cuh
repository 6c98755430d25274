// The last-arriver election of a kernel's tail work (the GEMV's epilogues, qk_norm_rope_tail.cuh and
// add_rms_norm_tail.cuh): work that needs the outputs of several blocks of the
// same grid is done by the block that finishes last among them, instead of by a kernel after a grid-wide boundary.
// arrive_last(count, expected) is block-collective (every thread calls it, and every thread gets the answer): it
// fences the block's earlier global writes (device scope), counts one arrival at *count, and answers whether this
// block is the expected-th. That block resets *count to 0 (so the count is zero between calls and one buffer serves
// every launch on a stream) and fences again before returning, so its reads after it see the other blocks' writes;
// it reads them coherently (pdl.cuh: load_produced*), never through the non-coherent path.
// Precondition: exactly `expected` blocks arrive at *count in the grid, each once.
#pragma once

namespace music3::ops {

__device__ __forceinline__ bool arrive_last(int* count, int expected) {
  __shared__ int last;
  __threadfence();  // this block's writes, before its arrival can be counted
  __syncthreads();  // every thread's writes fenced; and every thread has read `last` of a previous call
  if (threadIdx.x == 0) {
    last = atomicAdd(count, 1) == expected - 1;
    if (last) {
      atomicExch(count, 0);  // every block has arrived: nothing else touches the count in this grid
      __threadfence();       // the arrivals before, then this block's reads of their writes
    }
  }
  __syncthreads();
  return last;
}

}  // namespace music3::ops
