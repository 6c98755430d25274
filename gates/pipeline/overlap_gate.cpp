// Gate pipeline.overlap: the overlapped schedule of `music3 generate` (engine/models/music3/pipeline/
// window_schedule.h) against the sequential one.
//   - FinalWindowRule: acoustic_windows.h's frames_until_final(start) = start + 200, checked both ways for every
//     final frame count F <= 2400 and every count E <= F of frames emitted so far: the windows final at E are a
//     prefix of window_starts(F), each 200 frames long (sound), and the next window is not final at E because
//     F = E (an <|audio_end|> next) makes it shorter or absent (tight, so no window waits longer than it must).
//   - SameBitsAsSequential: run_generate on a CPU queue, teacher forced on the pipeline oracle's two-window songs
//     (210 frames: window 0 is handed over at frame 200, while the AR loop runs) and free running (seed 7, 9 s:
//     225 frames), overlapped and sequential: the same frames, tokens, codes, windows, latents and audio bit for
//     bit; the overlapped run handed window 0 over during the AR loop, the sequential run none.
#include <gtest/gtest.h>

#include "engine/core/queue.h"
#include "engine/models/music3/acoustic/acoustic_windows.h"
#include "engine/models/music3/pipeline/generate_run.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/pipeline/pipeline_oracle.h"
#include "gates/pipeline/same_song.h"

namespace music3::gates {
namespace {

constexpr const char* kGate = "pipeline.overlap";

TEST(PipelineOverlap, FinalWindowRule) {
  int64_t unsound = 0, loose = 0;
  for (int64_t F = 1; F <= 2400; ++F) {
    const std::vector<int64_t> starts = acoustic::window_starts(F);
    for (int64_t E = 1; E <= F; ++E) {
      int64_t count = 0;
      for (int64_t s = 0; acoustic::frames_until_final(s) <= E; s += acoustic::kWindowHop, ++count) {
        const bool prefix = count < int64_t(starts.size()) && starts[size_t(count)] == s;
        if (!prefix || acoustic::window_frames(s, F) != acoustic::kWindowFrames) ++unsound;
      }
      const int64_t next = count * acoustic::kWindowHop;  // not final at E: F' = E must change it
      const std::vector<int64_t> at_e = acoustic::window_starts(E);
      const bool present = count < int64_t(at_e.size()) && at_e[size_t(count)] == next;
      if (present && acoustic::window_frames(next, E) == acoustic::kWindowFrames) ++loose;
    }
  }
  record(kGate, "rule", "unsound", double(unsound), 0);
  record(kGate, "rule", "loose", double(loose), 0);
  EXPECT_EQ(unsound, 0) << "(F, E) pairs where a window called final is not window k of F with 200 frames";
  EXPECT_EQ(loose, 0) << "(F, E) pairs where the next window would already be final";
}

void compare(const std::string& name, const pipeline::GenerateResult& over, const pipeline::GenerateResult& seq) {
  EXPECT_TRUE(over.overlapped);
  EXPECT_FALSE(seq.overlapped);
  EXPECT_EQ(seq.windows_during_ar, 0);
  const int64_t early = over.ar.frames >= acoustic::frames_until_final(0)
                            ? (over.ar.frames - acoustic::kWindowFrames) / acoustic::kWindowHop + 1
                            : 0;
  const int64_t expected_early = std::min<int64_t>(early, int64_t(over.acoustic.windows.size()));
  EXPECT_EQ(over.windows_during_ar, expected_early) << "windows handed over while the AR loop ran";
  EXPECT_TRUE(over.first_window_alone) << name << ": the first window ran beside the AR loop, not alone";
  EXPECT_FALSE(seq.first_window_alone);
  record(kGate, name, "windows_during_ar", double(over.windows_during_ar), 0, BoundKind::ReportOnly);
  expect_same_song(kGate, name, over, seq);
}

TEST(PipelineOverlap, SameBitsAsSequential) {
  for (const PipelineCase& pc : pipeline_cases()) {
    const pipeline::PipelineTrace t = pipeline::read_pipeline_trace(pipeline_trace_path(pc));
    if (t.frames <= acoustic::kWindowFrames) continue;  // one window: nothing runs beside the AR loop
    SCOPED_TRACE(pc.name);
    pipeline::PipelineModels models(pipeline_folder(pc.geometry), cpu_queue(), pipeline::StageArms{});
    pipeline::GenerateRequest r{t.prompt, t.lyrics, t.audio_duration, t.steps, 0, &t};
    const pipeline::GenerateResult over = pipeline::run_generate(models, r);
    r.overlap = false;
    const pipeline::GenerateResult seq = pipeline::run_generate(models, r);
    ASSERT_GE(over.windows_during_ar, 1) << "the trace's song has a window final before the AR loop ends";
    compare(pc.name, over, seq);
  }
  pipeline::PipelineModels models(embedded_pipeline_folder(), cpu_queue(), pipeline::StageArms{});
  pipeline::GenerateRequest r{"a bright synth pop song", "[verse]\nla la la", 9.0, 2, 7};
  const pipeline::GenerateResult over = pipeline::run_generate(models, r);
  r.overlap = false;
  const pipeline::GenerateResult seq = pipeline::run_generate(models, r);
  compare("free_seed7", over, seq);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
