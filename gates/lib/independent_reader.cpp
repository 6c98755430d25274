#include "gates/lib/independent_reader.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "engine/io/safetensors.h"
#include "gates/lib/oracle_paths.h"
#include "tools/process.h"

namespace music3::gates {
namespace {

std::string oracle_python() {
  const char* v = std::getenv("MUSIC3_ORACLE_PYTHON");
  return v && *v ? v : MUSIC3_DEFAULT_ORACLE_PYTHON;
}

std::string reader_script() { return source_dir() + "/oracle_bridge/loader_check/independent_reader.py"; }

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs the reader with `args` after the script, its output in `log`; returns "" when it succeeded, else the command,
// how it ended and its log.
std::string reader_failure(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> argv{oracle_python(), reader_script()};
  argv.insert(argv.end(), args.begin(), args.end());
  const tools::ProcessResult r = tools::run_process({argv, "", {}, log, 900});
  return r.ok() ? "" : tools::join_command(argv) + ": " + r.describe() + "\n" + read_all(log);
}

void run_reader(const std::vector<std::string>& args, const std::string& log) {
  if (std::string failure = reader_failure(args, log); !failure.empty()) throw std::runtime_error(failure);
}

}  // namespace

std::string compare_resident(const std::string& checkpoint_dir, const std::vector<ResidentTensor>& resident,
                             const std::string& scratch) {
  std::vector<io::SafetensorsEntry> entries;
  for (const ResidentTensor& t : resident)
    entries.push_back({t.name, DType::BF16, t.shape, t.data, size_t(t.shape.numel()) * sizeof(bf16)});
  const std::string dump = scratch + "/resident.safetensors";
  io::write_safetensors(dump, entries, {{"producer", "music3 loader gate"}});
  return reader_failure({"compare", checkpoint_dir, dump}, scratch + "/independent_reader.log");
}

void f32_copy(const std::string& src_dir, const std::string& dst_dir, uint64_t seed) {
  run_reader({"f32-copy", src_dir, dst_dir, std::to_string(seed)}, dst_dir + ".log");
}

void bf16_copy(const std::string& src_dir, const std::string& dst_dir) {
  run_reader({"bf16-copy", src_dir, dst_dir}, dst_dir + ".log");
}

ScratchDir::ScratchDir(const std::string& gate)
    : dir(std::filesystem::temp_directory_path() / (gate + "_" + std::to_string(::getpid()))) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

std::string ScratchDir::path(const std::string& child) const {
  return child.empty() ? dir.string() : (dir / child).string();
}

}  // namespace music3::gates
