#include "engine/core/device_array.h"

#include <cstdint>
#include <string>

namespace music3 {

DeviceArray::DeviceArray(const Queue& q, size_t bytes) : q_(q), bytes_(bytes) {
  if (!q_.backend) throw std::runtime_error("device array: queue on '" + device_type_name(q_.device) + "' has no backend");
  whole_ = Tensor{q_.backend->alloc(bytes), DType::U8, Shape{static_cast<int64_t>(bytes)}, q_.device};
}

DeviceArray::DeviceArray(const Queue& q, DType dtype, Shape shape)
    : DeviceArray(q, Tensor{nullptr, dtype, shape, q.device}.bytes()) {
  whole_.dtype = dtype;
  whole_.shape = shape;
}

DeviceArray::~DeviceArray() {
  if (whole_.data) q_.backend->free(whole_.data);
}

DeviceArray::DeviceArray(DeviceArray&& o) noexcept : q_(o.q_), bytes_(o.bytes_), whole_(o.whole_) {
  o.whole_.data = nullptr;
}

Tensor DeviceArray::view(DType dt, Shape shape, size_t offset_bytes) const {
  Tensor t{static_cast<char*>(whole_.data) + offset_bytes, dt, shape, q_.device};
  if (offset_bytes + t.bytes() > bytes_)
    throw std::out_of_range("device array: view " + t.describe() + " at offset " + std::to_string(offset_bytes) +
                            " overruns a " + std::to_string(bytes_) + "-byte buffer");
  return t;
}

void DeviceArray::upload(const void* host, size_t bytes, size_t offset) {
  if (offset + bytes > bytes_)
    throw std::out_of_range("device array: upload of " + std::to_string(bytes) + " bytes at offset " +
                            std::to_string(offset) + " overruns a " + std::to_string(bytes_) + "-byte buffer");
  q_.backend->copy(static_cast<char*>(whole_.data) + offset, host, bytes, CopyKind::HostToDevice, q_.stream);
}

void DeviceArray::poison() {
  std::vector<uint8_t> ff(bytes_, 0xFF);
  upload(ff.data(), bytes_);
  q_.synchronize();
}

void DeviceArray::copy_out(void* dst) const {
  q_.synchronize();
  q_.backend->copy(dst, whole_.data, bytes_, CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
}

}  // namespace music3
