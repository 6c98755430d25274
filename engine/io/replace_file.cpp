#include "engine/io/replace_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace music3::io {
namespace {

// Creates an empty, previously absent file next to `path` and returns its name.
std::string create_temp_sibling(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return temp;
    }
    if (errno != EEXIST) throw std::runtime_error(path + ": cannot create temporary file '" + temp + "': " + std::strerror(errno));
  }
  throw std::runtime_error(path + ": cannot find a free temporary file name");
}

}  // namespace

void replace_file(const std::string& path, const std::function<void(const std::string& temp_path)>& write) {
  const std::string temp = create_temp_sibling(path);
  try {
    write(temp);
    if (std::rename(temp.c_str(), path.c_str()) != 0)
      throw std::runtime_error(path + ": cannot rename temporary file '" + temp + "' into place: " + std::strerror(errno));
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
}

}  // namespace music3::io
