#include "mutations/runner/outcome.h"

namespace music3::battery {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Killed: return "killed";
    case Outcome::Survived: return "survived";
    case Outcome::Unviable: return "unviable";
    case Outcome::Timeout: return "timeout";
    case Outcome::Crashed: return "crashed";
    case Outcome::Equivalent: return "equivalent";
    case Outcome::InfraError: return "infra_error";
  }
  return "?";
}

const char* stryker_status(Outcome o) {
  switch (o) {
    case Outcome::Killed: return "Killed";
    case Outcome::Survived: return "Survived";
    case Outcome::Unviable: return "CompileError";
    case Outcome::Timeout: return "Timeout";
    case Outcome::Crashed: return "RuntimeError";
    case Outcome::Equivalent: return "Ignored";
    case Outcome::InfraError: return "RuntimeError";
  }
  return "RuntimeError";
}

Outcome classify(const std::vector<GateResult>& gates) {
  auto any = [&](GateVerdict v) {
    for (const auto& g : gates)
      if (g.verdict == v) return true;
    return false;
  };
  if (any(GateVerdict::Failed)) return Outcome::Killed;
  if (any(GateVerdict::Timeout)) return Outcome::Timeout;
  if (any(GateVerdict::Crashed)) return Outcome::Crashed;
  if (any(GateVerdict::Skipped)) return Outcome::InfraError;  // the baseline ran it; a skip now judges nothing
  return Outcome::Survived;
}

void judge_expectation(MutationResult& r) {
  auto miss = [&](const std::string& why) {
    r.as_expected = false;
    r.detail += (r.detail.empty() ? "" : "; ") + why;
  };
  const Mutation& m = r.mutation;
  std::string got = outcome_name(r.outcome);
  r.as_expected = true;
  if (m.expected == Expected::Survived) {
    if (r.outcome != Outcome::Survived) miss("expected survived, got " + got);
    return;
  }
  if (r.outcome != Outcome::Killed) {
    miss("expected killed, got " + got);
    return;
  }
  for (const auto& g : r.gates)
    if (g.verdict != GateVerdict::Failed) miss("gate " + g.gate + " " + verdict_name(g.verdict) + ", expected red");
}

}  // namespace music3::battery
