#include "engine/core/dtype.h"

#include <array>
#include <string>

namespace music3 {
namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  size_t size;
};
constexpr std::array<DTypeInfo, 13> kInfo{{{DType::BF16, "BF16", 2},
                                           {DType::F16, "F16", 2},
                                           {DType::F32, "F32", 4},
                                           {DType::F64, "F64", 8},
                                           {DType::I8, "I8", 1},
                                           {DType::U8, "U8", 1},
                                           {DType::I16, "I16", 2},
                                           {DType::I32, "I32", 4},
                                           {DType::I64, "I64", 8},
                                           {DType::Bool, "BOOL", 1},
                                           {DType::U16, "U16", 2},
                                           {DType::U32, "U32", 4},
                                           {DType::U64, "U64", 8}}};
}  // namespace

std::string_view dtype_name(DType t) { return kInfo[static_cast<size_t>(t)].name; }
size_t dtype_size(DType t) { return kInfo[static_cast<size_t>(t)].size; }

std::optional<DType> dtype_from_name(std::string_view n) {
  for (const auto& i : kInfo)
    if (i.name == n) return i.type;
  return std::nullopt;
}

std::string dtype_mask_names(uint32_t mask) {
  std::string out;
  for (const auto& i : kInfo) {
    if (!(mask & dtype_bit(i.type))) continue;
    if (!out.empty()) out += '|';
    out += i.name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace music3
