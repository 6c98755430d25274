#include "gates/lib/gate_env.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace music3::gates {
namespace {
DeviceType g_device = DeviceType::CPU;
std::string g_disabled;  // --disable-providers, as given
std::string g_enabled;   // --enable-providers (opt-in providers), as given

std::string name_part(const std::string& names) {
  std::string out;
  for (char c : names) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}
}

DeviceType gate_device() { return g_device; }
std::string gate_device_name() { return device_type_name(g_device); }

Queue gate_queue(int threads) { return queue_for(g_device, threads); }

std::string gate_variant() {
  std::string out;
  if (!g_enabled.empty()) out += "_with_" + name_part(g_enabled);
  if (!g_disabled.empty()) out += "_without_" + name_part(g_disabled);
  return out;
}

int gate_main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      auto t = device_type_from_name(argv[++i]);
      if (!t || (*t != DeviceType::CPU && *t != DeviceType::CUDA)) {
        std::fprintf(stderr, "gate: --device must be cpu or cuda, got '%s'\n", argv[i]);
        return 2;
      }
      g_device = *t;
    } else if (std::strcmp(argv[i], "--disable-providers") == 0 && i + 1 < argc) {
      g_disabled = argv[++i];
      setenv("MUSIC3_DISABLE_PROVIDERS", g_disabled.c_str(), 1);  // before the registry's first use
    } else if (std::strcmp(argv[i], "--enable-providers") == 0 && i + 1 < argc) {
      g_enabled = argv[++i];
      setenv("MUSIC3_ENABLE_PROVIDERS", g_enabled.c_str(), 1);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (g_device == DeviceType::CUDA && !cuda_device_available()) {
    std::fprintf(stderr, "gate: SKIPPED, no CUDA device on this machine (exit 77)\n");
    return 77;
  }
  int n = static_cast<int>(rest.size());
  ::testing::InitGoogleTest(&n, rest.data());
  return RUN_ALL_TESTS();
}

}  // namespace music3::gates
