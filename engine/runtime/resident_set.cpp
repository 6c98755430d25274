#include "engine/runtime/resident_set.h"

#include <stdexcept>

namespace music3::runtime {

ResidentSet::ResidentSet(const Queue& q, DevicePool& pool, ArmInstruments& instruments)
    : q_(q), pool_(pool), ins_(instruments) {
  if (!q_.backend) throw std::runtime_error("resident set: queue on '" + device_type_name(q_.device) + "' has no backend");
}

Tensor ResidentSet::resident(DType dt, Shape shape, bool forward_buffer) {
  Tensor t{nullptr, dt, shape, q_.device};
  held_.push_back(pool_.acquire(t.bytes()));
  t.data = held_.back().data();
  (forward_buffer ? ins_.resident_dtypes : ins_.aux_dtypes) |= dtype_bit(dt);
  return t;
}

Tensor ResidentSet::stage(const HostTensor& host) { return stage_rows({&host}); }

Tensor ResidentSet::stage_rows(std::initializer_list<const HostTensor*> parts) {
  int64_t rows = 0;
  const int64_t width = (*parts.begin())->shape.rank == 2 ? (*parts.begin())->shape[1] : 0;
  for (const HostTensor* p : parts) {
    if (parts.size() > 1 && (p->shape.rank != 2 || p->shape[1] != width))
      throw std::invalid_argument("stage_rows: parts of differing widths: " + p->shape.str());
    rows += p->shape.rank == 2 ? p->shape[0] : 0;
  }
  const Shape shape = parts.size() == 1 ? (*parts.begin())->shape : Shape{rows, width};
  Tensor t = resident(DType::BF16, shape, true);
  auto* dst = static_cast<char*>(t.data);
  for (const HostTensor* p : parts) {
    q_.backend->copy(dst, p->ptr(), p->bytes(), CopyKind::HostToDevice, q_.stream);
    dst += p->bytes();
  }
  ins_.staged_bytes += t.bytes();
  return t;
}

void ResidentSet::note_pool_stats() { ins_.pool_backend_allocs = pool_.stats().backend_allocs; }

Tensor row_range(const Tensor& t, int64_t first, int64_t count) {
  Tensor v = t;
  const int64_t width = t.shape[1];
  v.data = static_cast<char*>(t.data) + static_cast<size_t>(first * width) * dtype_size(t.dtype);
  v.shape = Shape{count, width};
  return v;
}

}  // namespace music3::runtime
