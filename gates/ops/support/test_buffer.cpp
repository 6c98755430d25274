#include "gates/ops/support/test_buffer.h"

namespace music3::optest {

TestBuffer::TestBuffer(const Queue& q, DType dtype, Shape shape) : backend_(backend_for(q.device)), stream_(q.stream) {
  view_.dtype = dtype;
  view_.shape = shape;
  view_.device = q.device;
  view_.data = backend_.alloc(view_.bytes());
}

TestBuffer::~TestBuffer() { backend_.free(view_.data); }

void TestBuffer::poison() {
  std::vector<uint8_t> ff(view_.bytes(), 0xFF);
  copy_in(ff.data());
}

void TestBuffer::copy_in(const void* src) {
  backend_.copy(view_.data, src, view_.bytes(), CopyKind::HostToDevice, stream_);
  backend_.synchronize(stream_);
}

void TestBuffer::copy_out(void* dst) const {
  backend_.synchronize(stream_);
  backend_.copy(dst, view_.data, view_.bytes(), CopyKind::DeviceToHost, stream_);
}

}  // namespace music3::optest
