// sha256_hex / sha256_file against the FIPS 180-2 test vectors, agreement between
// the buffer and file forms across the file reader's chunk size, and a named error.
#include <gtest/gtest.h>

#include <string>

#include "engine/io/sha256.h"
#include "gates/io/io_test_support.h"

namespace music3::io {
namespace {

using namespace music3::io::testing;

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, FileAndBufferAgree) {
  ScratchDir dir;
  const std::string path = dir.file("blob.bin");
  std::string blob;
  for (size_t i = 0; i < (3u << 20) + 17; ++i) blob += static_cast<char>((i * 131) >> 3);  // crosses chunk edges
  write_bytes(path, blob);
  EXPECT_EQ(sha256_file(path), sha256_hex(blob));
  EXPECT_EQ(sha256_file(path), sha256_hex(blob.data(), blob.size()));
  write_bytes(path, "abc");
  EXPECT_EQ(sha256_file(path), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, MissingFileIsNamed) {
  ScratchDir dir;
  const std::string absent = dir.file("absent.bin");
  EXPECT_FILE_ERROR(absent, sha256_file(absent), "cannot open for sha256", "No such file");
}

}  // namespace
}  // namespace music3::io
