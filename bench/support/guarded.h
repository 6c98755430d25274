// Runs a bench body; an exception marks the bench as errored (SkipWithError with the
// exception's message) instead of ending the process.
#pragma once
#include <benchmark/benchmark.h>

#include <exception>

namespace music3::bench {

template <class Body>
void guarded(benchmark::State& state, Body body) {
  try {
    body();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace music3::bench
