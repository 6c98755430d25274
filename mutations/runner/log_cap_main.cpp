// battery-log-cap FILE...: applies the battery's log cap (log_cap.h, 96 KiB) to each file in place, as the battery
// does to every log it writes, so reports committed before the cap existed can be brought to the same size
// (scripts/cap-battery-logs). A file at or under the cap is left byte for byte. Exit 0, or 1 naming a missing file.
#include <filesystem>
#include <iostream>

#include "mutations/runner/log_cap.h"

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::cerr << "usage: battery-log-cap FILE...  (caps each battery log in place at "
              << music3::battery::kLogCapBytes / 1024 << " KiB, keeping head, tail and evidence lines)\n";
    return argc < 2 ? 1 : 0;
  }
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::filesystem::is_regular_file(argv[i])) {
      std::cerr << "battery-log-cap: " << argv[i] << ": not a regular file\n";
      status = 1;
      continue;
    }
    music3::battery::cap_log(argv[i]);
  }
  return status;
}
