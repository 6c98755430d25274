// SHA-256 digests as lowercase hex, via OpenSSL EVP.
// Contract: sha256_hex() of a buffer and sha256_file() of a file holding the same
// bytes give the same 64-character string. sha256_file() streams the file (any size)
// and throws std::runtime_error naming the path when it cannot be opened or read.
// Thread-safety: pure functions: thread-safe.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace music3::io {

std::string sha256_hex(const void* data, size_t bytes);
std::string sha256_hex(std::string_view bytes);
std::string sha256_file(const std::string& path);

}  // namespace music3::io
