// AddressSanitizer support for read-only file mappings. ASan knows the bounds of heap, stack and global objects but
// not where a mapped file ends: a read past the file's last byte that stays inside its last page reads the page's
// zero fill unseen. poison_mapping_tail() marks those bytes (from the file's end to the end of its last page)
// unaddressable, so such a read is an ASan report; unpoison_mapping_tail() clears them and must run before the
// mapping is released (an address range reused by a later mapping must start clean). A file whose size is a multiple
// of the page size has no tail to poison. Without ASan (the release build) both are empty inline functions.
// Thread-safety: call only on a mapping the caller owns, before sharing it and after the last use.
#pragma once
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#if defined(__SANITIZE_ADDRESS__)
#define MUSIC3_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MUSIC3_ASAN 1
#endif
#endif
#ifdef MUSIC3_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace music3::io {

// How many bytes lie between the end of a `size`-byte mapping and the end of its last page.
inline size_t mapping_tail_bytes(uint64_t size) {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return static_cast<size_t>((page - size % page) % page);
}

inline void poison_mapping_tail([[maybe_unused]] const unsigned char* map, [[maybe_unused]] uint64_t size) {
#ifdef MUSIC3_ASAN
  ASAN_POISON_MEMORY_REGION(map + size, mapping_tail_bytes(size));
#endif
}

inline void unpoison_mapping_tail([[maybe_unused]] const unsigned char* map, [[maybe_unused]] uint64_t size) {
#ifdef MUSIC3_ASAN
  ASAN_UNPOISON_MEMORY_REGION(map + size, mapping_tail_bytes(size));
#endif
}

}  // namespace music3::io
