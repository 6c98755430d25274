// One cuBLAS handle per CUDA device and stream, created on first use and kept for the process (a workspace
// must never serve two streams at once: a GEMM on one stream would overwrite another's scratch).
// Contract: with_cublas(stream, fn) runs fn(handle) with the current device's handle of
// `stream`, bound to it, under a lock (binding and enqueueing are one step). The handle's math mode
// forbids reduced-precision reductions, so bf16 GEMMs accumulate in f32 throughout,
// and it owns a fixed workspace, so a GEMM issued during CUDA graph capture never
// allocates (the first call on a device creates the handle, in relaxed capture mode when
// it happens during a capture).
// with_cublaslt(stream, fn) runs fn(handle, workspace, bytes) with the current device's cuBLASLt handle and the
// fixed workspace of `stream` (made the same way, under the same lock); the caller passes `stream` to each
// cublasLtMatmul call.
// check_cublas() throws naming the call site and the cuBLAS status.
#pragma once
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <functional>

namespace music3::ops {

void check_cublas(cublasStatus_t status, const char* what);
void with_cublas(cudaStream_t stream, const std::function<void(cublasHandle_t)>& fn);
void with_cublaslt(cudaStream_t stream, const std::function<void(cublasLtHandle_t, void* workspace, size_t bytes)>& fn);

}  // namespace music3::ops
