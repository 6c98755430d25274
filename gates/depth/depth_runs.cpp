#include "gates/depth/depth_runs.h"

namespace music3::gates {

CaseRun run_case(const OracleCase& c, const OracleGolden& g, const Queue& q, const RunOptions& o) {
  depth::DepthEngine engine(load_case_weights(c), q, o.request);
  const auto& cfg = engine.config();
  const size_t S = size_t(cfg.steps()), H = size_t(cfg.hidden), V = size_t(cfg.vocab);
  CaseRun run;
  run.arm = engine.arm_kind();
  for (int64_t f = 0; f < g.frames; ++f) {
    depth::FrameInputs in;
    in.last_hidden = g.last_hidden.data() + size_t(f) * 2 * H;
    in.c0_embedding = g.c0_embedding.data() + size_t(f) * H;
    in.frame = static_cast<uint64_t>(f);
    if (o.replay) {
      in.draws.kind = depth::DrawSource::Kind::Replay;
      in.draws.replay = g.exp_draws.data() + size_t(f) * S * V;
    } else {
      in.draws.seed = o.seed;
    }
    if (o.forced) in.forced_codes = g.codes.data() + size_t(f) * S;
    depth::FrameTrace t;
    auto r = engine.run_frame(in, &t);
    run.codes.insert(run.codes.end(), r.codes.begin(), r.codes.end());
    run.final_hidden.insert(run.final_hidden.end(), t.final_hidden.begin(), t.final_hidden.end());
    run.head_logits.insert(run.head_logits.end(), t.head_logits.begin(), t.head_logits.end());
    run.guided.insert(run.guided.end(), t.guided.begin(), t.guided.end());
  }
  run.instruments = engine.instruments();
  return run;
}

}  // namespace music3::gates
