// libFuzzer target over the engine's file readers (built with clang, -fsanitize=fuzzer,address,undefined; see
// cmake/Music3Fuzz.cmake). The first input byte picks what the rest is, written whole to a private temporary file:
//   even: a .safetensors file: open it (SafetensorsFile validates the header and the data ranges), then view every
//         tensor, scan it for non-finite values and hash the file, so every byte a view may reach is touched;
//   odd:  a component config.json: read it (ComponentConfig), then every getter on every top-level key.
// Contract checked: a refusal is a std::runtime_error (the readers' documented error) and nothing else escapes; an
// accepted file's views stay inside the mapping (ASan sees any read past it).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "engine/core/tensor.h"
#include "engine/io/component_config.h"
#include "engine/io/safetensors.h"

namespace {
using namespace music3;

std::string write_input(const uint8_t* data, size_t size, const char* suffix) {
  const std::string path = "/tmp/music3-io-fuzz-" + std::to_string(getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                std::streamsize(size));
  return path;
}

void safetensors_file(const std::string& path) {
  const io::SafetensorsFile file(path);
  for (const std::string& name : file.names()) {
    const Tensor view = file.tensor(name);
    if (view.numel() > 0 && view.data == nullptr) std::abort();  // an accepted tensor has its bytes
    try {
      file.check_finite(name);  // reads every element of a floating tensor
    } catch (const std::runtime_error&) {
      // a non-finite value, or an integer dtype, named: a refusal
    }
  }
  (void)file.sha256();
}

template <class Get>
void try_get(Get get) {
  try {
    get();
  } catch (const std::runtime_error&) {
    // a missing key or a wrong type, named: a refusal
  }
}

void component_config(const std::string& path) {
  const io::ComponentConfig config(path);
  std::ifstream in(path, std::ios::binary);
  const nlohmann::json keys = nlohmann::json::parse(in, nullptr, false);
  if (!keys.is_object()) std::abort();  // the reader accepted what is not a JSON object
  for (const auto& item : keys.items()) {
    const std::string& key = item.key();
    try_get([&] { (void)config.get_int(key); });
    try_get([&] { (void)config.get_int_or(key, 7); });
    try_get([&] { (void)config.get_float(key); });
    try_get([&] { (void)config.get_float_or(key, 0.5); });
    try_get([&] { (void)config.get_bool(key); });
    try_get([&] { (void)config.get_string(key); });
    try_get([&] { (void)config.get_int_list(key); });
  }
  try_get([&] { (void)config.class_name(); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool tensors = (data[0] & 1) == 0;
  const std::string path = write_input(data + 1, size - 1, tensors ? ".safetensors" : ".json");
  try {
    if (tensors)
      safetensors_file(path);
    else
      component_config(path);
  } catch (const std::runtime_error&) {
    // the reader refused the file by name
  }
  std::remove(path.c_str());
  return 0;
}
