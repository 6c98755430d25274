#include "gates/lib/independent_reader.h"

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

}  // namespace

std::string compare_resident(const std::string& checkpoint_dir, const std::vector<ResidentTensor>& resident,
                             const std::string& scratch) {
  std::vector<io::SafetensorsEntry> entries;
  for (const ResidentTensor& t : resident)
    entries.push_back({t.name, DType::BF16, t.shape, t.data, size_t(t.shape.numel()) * sizeof(bf16)});
  const std::string dump = scratch + "/resident.safetensors", log = scratch + "/independent_reader.log";
  io::write_safetensors(dump, entries, {{"producer", "music3 loader gate"}});
  const std::vector<std::string> argv{oracle_python(), reader_script(), "compare", checkpoint_dir, dump};
  const tools::ProcessResult r = tools::run_process({argv, "", {}, log, 900});
  if (r.ok()) return "";
  return tools::join_command(argv) + ": " + r.describe() + "\n" + read_all(log);
}

void f32_copy(const std::string& src_dir, const std::string& dst_dir, uint64_t seed) {
  const std::vector<std::string> argv{oracle_python(), reader_script(), "f32-copy", src_dir, dst_dir,
                                      std::to_string(seed)};
  const std::string log = dst_dir + ".log";
  const tools::ProcessResult r = tools::run_process({argv, "", {}, log, 900});
  if (!r.ok()) throw std::runtime_error(tools::join_command(argv) + ": " + r.describe() + "\n" + read_all(log));
}

}  // namespace music3::gates
