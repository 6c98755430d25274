#include "engine/core/tensor.h"

#include <stdexcept>

namespace music3 {

Shape::Shape(std::initializer_list<int64_t> d) {
  if (d.size() > dim.size()) throw std::invalid_argument("Shape: rank above 4");
  for (int64_t v : d) dim[static_cast<size_t>(rank++)] = v;
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= dim[static_cast<size_t>(i)];
  return n;
}

bool Shape::operator==(const Shape& o) const {
  if (rank != o.rank) return false;
  for (int i = 0; i < rank; ++i)
    if (dim[static_cast<size_t>(i)] != o.dim[static_cast<size_t>(i)]) return false;
  return true;
}

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < rank; ++i) {
    if (i) s += ',';
    s += std::to_string(dim[static_cast<size_t>(i)]);
  }
  return s + "]";
}

std::string Tensor::describe() const {
  return std::string(dtype_name(dtype)) + shape.str() + "@" + device_type_name(device);
}

}  // namespace music3
