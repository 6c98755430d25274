// The command line of mutation-battery.
// Contract: parse_options() throws UsageError naming the bad argument; defaults are
// the repository containing the current directory, <repo>/mutations/catalogue/ (every component's file),
// all labels, every core for --jobs and a verification build every 10 mutations.
#pragma once
#include <stdexcept>
#include <string>

#include "mutations/runner/battery.h"

namespace music3::battery {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

extern const char* const kUsage;

// Returns false when --help was asked for.
bool parse_options(int argc, char** argv, BatteryOptions& o);

}  // namespace music3::battery
