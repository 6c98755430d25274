"""Host-clock step timing shared by the PyTorch peers (bench/<component>/torch_*_peer.py): sync(device) waits for
the device's queued work (CUDA) and time_steps(fn, steps, warmup, device) runs `warmup` untimed calls, then returns
the milliseconds of each of `steps` calls, each timed with the host clock around the call and a synchronize."""
import time

import torch


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def time_steps(fn, steps, warmup, device):
    for _ in range(warmup):
        fn()
    sync(device)
    ms = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        sync(device)
        ms.append((time.perf_counter() - t0) * 1e3)
    return ms
