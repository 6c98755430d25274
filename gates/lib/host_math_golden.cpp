#include "gates/lib/host_math_golden.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

#include "gates/lib/oracle_paths.h"
#include "gates/lib/ulp_stats.h"

namespace music3::gates {
namespace {
template <class T>
std::vector<T> copy_out(const io::SafetensorsFile& f, const std::string& name, DType dtype) {
  const Tensor t = f.tensor(name);
  if (t.dtype != dtype) throw std::runtime_error(f.path() + ": tensor '" + name + "' is " + t.describe());
  std::vector<T> v(size_t(t.numel()));
  std::memcpy(v.data(), t.data, t.bytes());
  return v;
}
}  // namespace

io::SafetensorsFile host_math_golden(const std::string& component) {
  return io::SafetensorsFile(goldens_dir("host_math") + "/" + component + ".safetensors");
}

std::vector<bf16> golden_bf16(const io::SafetensorsFile& f, const std::string& name) {
  return copy_out<bf16>(f, name, DType::BF16);
}

std::vector<float> golden_f32(const io::SafetensorsFile& f, const std::string& name) {
  return copy_out<float>(f, name, DType::F32);
}

void expect_matches(const std::string& what, const std::vector<bf16>& candidate, const std::vector<bf16>& reference,
                    double max_ulp, double max_zero) {
  ASSERT_EQ(candidate.size(), reference.size()) << what;
  const UlpStats s = ulp_stats(candidate, reference);
  std::printf("%s: %s\n", what.c_str(), s.summary().c_str());
  EXPECT_EQ(s.nonfinite, 0u) << what;
  EXPECT_LE(s.worst, max_ulp) << what << ": " << s.summary();
  EXPECT_LE(s.zero_max, max_zero) << what << ": " << s.summary();
}

}  // namespace music3::gates
