// Helpers shared by the io gates: a scratch directory per test, whole-file byte
// access, and EXPECT_ERROR / EXPECT_FILE_ERROR, which fail unless the statement
// throws a std::exception whose message contains every given fragment (and, for
// EXPECT_FILE_ERROR, starts with "PATH: ").
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>

namespace music3::io::testing {

// A fresh directory under the system temp dir, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string leaf = "music3_io_" + std::to_string(getpid()) + "_" + (info ? std::string(info->name()) : "suite");
    dir_ = std::filesystem::temp_directory_path() / leaf;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("test: cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("test: cannot write " + path);
}

template <class Fn>
void expect_error(Fn&& fn, std::string_view prefix, std::initializer_list<std::string_view> fragments,
                  const char* file, int line) {
  try {
    fn();
  } catch (const std::exception& e) {
    const std::string what = e.what();
    if (what.rfind(prefix, 0) != 0) ADD_FAILURE_AT(file, line) << "message does not start with '" << prefix << "': " << what;
    for (std::string_view f : fragments)
      if (what.find(f) == std::string::npos) ADD_FAILURE_AT(file, line) << "message lacks '" << f << "': " << what;
    return;
  }
  ADD_FAILURE_AT(file, line) << "expected an exception, none was thrown";
}

}  // namespace music3::io::testing

#define EXPECT_ERROR(stmt, ...) \
  ::music3::io::testing::expect_error([&] { stmt; }, "", {__VA_ARGS__}, __FILE__, __LINE__)
#define EXPECT_FILE_ERROR(path, stmt, ...) \
  ::music3::io::testing::expect_error([&] { stmt; }, std::string(path) + ": ", {__VA_ARGS__}, __FILE__, __LINE__)
