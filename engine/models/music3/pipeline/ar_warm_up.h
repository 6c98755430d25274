// A warm-up of the AR stage before the first song, beside the window stages' (window_warm_up.h): one short run of
// the AR loop on its selected arms (the prompt ids of a fixed text, one emitted frame: a prefill of both rows, two
// decode steps, the LM sampler and one depth frame) when the LM's or the depth stage's arm is the device arm. On
// CUDA a first song's first iterations pay for what later ones reuse: the depth frame's graph capture (kept across
// songs), cuBLAS's set-up for the prefill's GEMMs on the AR loop's stream, the first launch of each kernel the loop
// runs (the runtime loads modules lazily), the device pool's first blocks. The LM's step graph is captured over each
// song's own buffers, so a song's first decode still pays for one capture.
// Contract: warm_up_ar() returns its wall seconds (0 and no call when both arms are host arms) and changes no later
// result: every song starts with its own prefill, which resets the LM's sequence state, the depth stage uploads its
// inputs per frame, and draws are keyed by (seed, position), never streamed; so a song after it gives the same bits
// as one without it (gate pipeline.warm_up). The arms' call counters include its calls.
// Thread-safety: before any generation, on the thread that owns the models.
#pragma once
#include "engine/models/music3/pipeline/pipeline_models.h"

namespace music3::pipeline {

double warm_up_ar(PipelineModels& m);

}  // namespace music3::pipeline
