#include "gates/ops/support/test_buffer.h"

namespace music3::optest {

TestBuffer::TestBuffer(DeviceType device, DType dtype, Shape shape) : backend_(backend_for(device)) {
  view_.dtype = dtype;
  view_.shape = shape;
  view_.device = device;
  view_.data = backend_.alloc(view_.bytes());
}

TestBuffer::~TestBuffer() { backend_.free(view_.data); }

void TestBuffer::poison() {
  std::vector<uint8_t> ff(view_.bytes(), 0xFF);
  copy_in(ff.data());
}

void TestBuffer::copy_in(const void* src) {
  backend_.copy(view_.data, src, view_.bytes(), CopyKind::HostToDevice, nullptr);
  backend_.synchronize(nullptr);
}

void TestBuffer::copy_out(void* dst) const {
  backend_.synchronize(nullptr);  // the op under test ran on the default stream
  backend_.copy(dst, view_.data, view_.bytes(), CopyKind::DeviceToHost, nullptr);
}

}  // namespace music3::optest
