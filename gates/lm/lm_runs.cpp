#include "gates/lm/lm_runs.h"

#include "engine/models/music3/depth/depth_loader.h"
#include "engine/models/music3/lm/lm_loader.h"

namespace music3::gates {

std::unique_ptr<ar::ArStage> make_stage(const LmCase& c, const Queue& q, runtime::ArmRequest request) {
  const std::string dir = lm_checkpoint_dir(c);
  return std::make_unique<ar::ArStage>(lm::load_lm_checkpoint(dir + "/language_model"),
                                       depth::load_depth_checkpoint(dir + "/rvq_depth_decoder"), q, request);
}

LmRun run_lm_case(const LmCase& c, const LmGolden& g, const Queue& q, const LmRunOptions& o) {
  auto stage = make_stage(c, q, o.request);
  ar::ArOptions opts;
  opts.max_frames = g.max_frames;
  opts.draws.seed = o.seed;
  opts.ignore_eos = o.ignore_eos;
  if (o.replay) {
    opts.draws.lm_replay = g.lm_exp_draws.data();
    opts.draws.lm_rows = g.iterations;
    opts.draws.lm_vocab = g.vocab;
    opts.draws.depth_replay = g.depth_exp_draws.data();
    opts.draws.depth_rows = g.depth_frames;
  }
  const ar::ArTeacher teacher{g.tokens.data(), g.iterations, g.codes.data(), g.depth_frames};
  if (o.teacher) opts.teacher = &teacher;
  LmRun run;
  run.result = stage->run(g.text_ids.data(), int(g.prompt), opts, o.traced ? &run.trace : nullptr);
  run.lm_instruments = stage->lm_instruments();
  run.depth_frames = stage->depth().instruments().frames;
  return run;
}

}  // namespace music3::gates
