// The distinct geometries of a component's oracle cases (each case type has a `geometry` string), sorted, for
// gates parameterised by geometry; geometry_param_name() names a GoogleTest instance by its geometry.
// Pure functions: thread-safe.
#pragma once
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace music3::gates {

template <class Case>
std::vector<std::string> geometries_of(const std::vector<Case>& cases) {
  std::set<std::string> names;
  for (const Case& c : cases) names.insert(c.geometry);
  return {names.begin(), names.end()};
}

inline std::string geometry_param_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace music3::gates
