// Element types the engine stores, with their names, sizes and resident-dtype bits.
// Contract: dtype_bit() gives one distinct bit per dtype, so a resident-dtype mask
// (OR over every buffer a forward makes resident) says exactly which dtypes were used.
// Thread-safety: pure functions over constant tables: thread-safe.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace music3 {

enum class DType : uint8_t { BF16, F16, F32, F64, I8, U8, I16, I32, I64, Bool, U16, U32, U64 };

std::string_view dtype_name(DType t);                      // "BF16", "F32", ... (safetensors spelling)
std::optional<DType> dtype_from_name(std::string_view n);  // inverse of dtype_name
size_t dtype_size(DType t);
constexpr uint32_t dtype_bit(DType t) { return 1u << static_cast<uint32_t>(t); }
std::string dtype_mask_names(uint32_t mask);               // "BF16|F32"

}  // namespace music3
