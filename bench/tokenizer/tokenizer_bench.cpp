// bench-tokenizer: tokens per second of the C++ Qwen2 tokenizer on the oracle corpus
// (oracle_bridge/tokenizer: >= 5000 strings in many scripts), one thread, for the tiny
// trained tokenizer and the real Qwen base vocabulary. One iteration encodes the whole
// corpus; the first (untimed) pass fills the per-piece cache, as HF's BPE cache is warm
// in its peer (hf_tokenizers_peer.py). Counters: tokens/s (items) and bytes/s.
// The oracle folder is $MUSIC3_TOKENIZER_ORACLE_DIR or the build tree's tokenizer_oracle/.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "engine/models/music3/tokenizer/qwen2_tokenizer.h"

namespace {
using music3::tokenizer::Qwen2Tokenizer;

std::filesystem::path oracle_dir() {
  if (const char* env = std::getenv("MUSIC3_TOKENIZER_ORACLE_DIR")) return env;
  return MUSIC3_DEFAULT_TOKENIZER_ORACLE_DIR;
}

const std::vector<std::string>& corpus() {
  static const std::vector<std::string> texts = [] {
    std::ifstream in(oracle_dir() / "corpus.json");
    if (!in) throw std::runtime_error("no corpus.json in " + oracle_dir().string() + " (run ctest -R tokenizer_oracle_setup)");
    std::stringstream ss;
    ss << in.rdbuf();
    return nlohmann::json::parse(ss.str()).get<std::vector<std::string>>();
  }();
  return texts;
}

void BM_EncodeCorpus(benchmark::State& state, const char* name) {
  Qwen2Tokenizer tok = Qwen2Tokenizer::from_folder(oracle_dir() / name);
  size_t tokens = 0, bytes = 0;
  for (const auto& t : corpus()) {
    tokens += tok.encode(t).size();
    bytes += t.size();
  }
  for (auto _ : state) {
    for (const auto& t : corpus()) benchmark::DoNotOptimize(tok.encode(t));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * tokens));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["tokens_per_pass"] = static_cast<double>(tokens);
  state.counters["strings_per_pass"] = static_cast<double>(corpus().size());
}

BENCHMARK_CAPTURE(BM_EncodeCorpus, tiny, "tiny")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EncodeCorpus, qwen, "qwen")->Unit(benchmark::kMillisecond)->UseRealTime();
}  // namespace

BENCHMARK_MAIN();
