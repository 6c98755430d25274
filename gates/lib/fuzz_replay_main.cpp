// The gtest replay of a libFuzzer target's committed corpus: links the target's LLVMFuzzerTestOneInput, built with
// the project's compiler and no sanitizer, and feeds it every file of the corpus folder given as the first argument
// (relative to MUSIC3_SOURCE_DIR). Contract checked: no exception escapes the entry point (the targets catch the
// readers' named refusals themselves); a std::abort() in the target (a refusal that names the wrong file) ends the
// process. A gate the mutation battery can run: the bounded libFuzzer runs (label fuzz) find new inputs, this one
// proves every committed input still passes, on machines without clang too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string g_corpus;

TEST(FuzzCorpusReplay, EveryCommittedInputPasses) {
  const char* src = std::getenv("MUSIC3_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "MUSIC3_SOURCE_DIR is set by ctest and the battery";
  const std::filesystem::path dir = std::filesystem::path(src) / g_corpus;
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no seed in " << dir;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    try {
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      ADD_FAILURE() << f.filename() << ": an exception escaped the readers: " << e.what();
    }
  }
  std::printf("[replay] %zu inputs from %s\n", files.size(), g_corpus.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR (relative to MUSIC3_SOURCE_DIR) [gtest flags]\n", argv[0]);
    return 1;
  }
  g_corpus = argv[1];
  return RUN_ALL_TESTS();
}
