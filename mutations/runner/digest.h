// sha256 of a file, as lowercase hex (OpenSSL EVP), for the battery's binary hashes.
// Contract: throws std::runtime_error naming the path when it cannot be read.
#pragma once
#include <string>

namespace music3::battery {

std::string sha256_of_file(const std::string& path);

}  // namespace music3::battery
