// What every harness record says about when and where it ran (the battery's summary,
// the A/B report, the gate evidence).
// Contract: utc_now() formats the current UTC time with strftime; cpu_model() is
// /proc/cpuinfo's first "model name" ("unknown CPU" when there is none);
// logical_cores() the cores the process may use. None of them throws. Thread-safe.
#pragma once
#include <string>

namespace music3::tools {

std::string utc_now(const char* strftime_format);
inline std::string utc_now_iso8601() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }
inline std::string utc_date() { return utc_now("%Y-%m-%d"); }
std::string cpu_model();
unsigned logical_cores();

}  // namespace music3::tools
