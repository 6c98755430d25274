#include "gates/lib/independent_reader.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
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

// The reader serving this process's requests (independent_reader.py serve), started on first use: the gates ask it
// for 2 to 24 commands each, and python with torch took ~1.5 s to start per command (the acoustic loader gate: 40 s
// of which 24 commands' starts were ~35). Its own stderr goes to a log beside the temporary files, removed at exit.
struct ReaderServer {
  const std::string log = (std::filesystem::temp_directory_path() /
                           ("independent_reader_" + std::to_string(::getpid()) + ".log")).string();
  tools::Coprocess child{{{oracle_python(), reader_script(), "serve"}, "", {}, log, 900}};
  ~ReaderServer() {
    std::error_code ec;
    std::filesystem::remove(log, ec);
  }
};

// Runs the reader command `args`, its output appended to `log`; returns "" when it succeeded, else the command, how
// it ended and its log. A server that died is replaced for the next command.
std::string reader_failure(const std::vector<std::string>& args, const std::string& log) {
  static std::unique_ptr<ReaderServer> server;
  const std::string command = tools::join_command(args);
  std::string reply;
  try {
    if (!server) server = std::make_unique<ReaderServer>();
    nlohmann::json request = args;
    request.push_back(log);
    reply = server->child.request(request.dump());
  } catch (const tools::Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    server.reset();
    return "independent_reader.py " + command + ": " + e.what() + "\n" + read_all(log);
  }
  const nlohmann::json answer = nlohmann::json::parse(reply, nullptr, false);
  if (answer.is_discarded() || !answer.contains("exit"))
    return "independent_reader.py " + command + ": the server answered \"" + reply + "\"\n" + read_all(log);
  const int status = answer["exit"].get<int>();
  return status == 0 ? "" : "independent_reader.py " + command + ": exit " + std::to_string(status) + "\n" + read_all(log);
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
