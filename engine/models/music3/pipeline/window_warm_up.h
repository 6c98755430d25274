// A warm-up of the window stages before the first song: the condition encoder on 200 zero frames, one guided DiT
// call (both branches) on zero latents and a zero condition at that window's latent length, and the vocoder's
// decode of as many zero latents, each on its selected arm (the pipeline's side queue) when that is the device arm
// (a host arm has nothing to warm, and at full geometry one call would cost seconds). On CUDA a window's first call
// pays for what later ones reuse: the DiT's buffers and the capture of its step graph at that length, cuDNN's
// attention plan, cuBLAS(Lt)'s handles and heuristics per stream, the device pool's first allocations. Paid here,
// at load, they no longer delay the first window's audio (`music3 generate` warms up on CUDA unless --no-warm-up).
// Contract: warm_up_windows() returns its wall seconds and changes no later result: the arms keep nothing from it
// that feeds a later output (every input is uploaded per call; the DiT's cached condition is compared per call),
// so a run after it gives the same bits as one without it (gate pipeline.warm_up). The arms' call counters
// (forwards()) include its calls. Thread-safety: before any generation, on the thread that owns the models.
#pragma once
#include "engine/models/music3/pipeline/pipeline_models.h"

namespace music3::pipeline {

double warm_up_windows(PipelineModels& m);

}  // namespace music3::pipeline
