// The one exit-code table of every program in this repository (`music3`,
// `mutation-battery`, `ab-bench`). A number means the same thing in each; 0-4 and 70
// follow cargo-mutants' numbering, which mutation-testing users already know.
//   0  ok                 done as asked (battery: every mutation as expected)
//   1  usage              a bad command line (unknown flag, missing or malformed value)
//   2  found_problems     the run found what it looks for (battery: an outcome not as expected)
//   3  timeout            something the run waited on timed out and nothing else failed
//   4  baseline_failed    the evidence to start from is not green (battery: the unmutated
//                         baseline; ab-bench: no passing gate record for the timed binaries)
//   5  bad_input          an input file or value is refused, named on stderr (a checkpoint,
//                         inputs, a catalogue, a report folder in use)
//   6  device_refused     no arm for the requested device (named on stderr)
//   7  nonfinite          non-finite values were met (music3: head logits)
//   8  dirty_tree         tracked files differ from HEAD (named on stderr)
//   9  void_run           a verification did not reproduce the baseline (battery)
//  70  software           an internal error (a bug, or the machine failing under the run)
// 128 + N                 killed by signal N (SIGINT 130, SIGTERM 143), after cleaning up.
// Header-only constants: thread-safe.
#pragma once

namespace music3::exit_code {

inline constexpr int kOk = 0;
inline constexpr int kUsage = 1;
inline constexpr int kFoundProblems = 2;
inline constexpr int kTimeout = 3;
inline constexpr int kBaselineFailed = 4;
inline constexpr int kBadInput = 5;
inline constexpr int kDeviceRefused = 6;
inline constexpr int kNonFinite = 7;
inline constexpr int kDirtyTree = 8;
inline constexpr int kVoidRun = 9;
inline constexpr int kSoftware = 70;

// The lines of the table above, for --help texts.
inline constexpr const char* kTable =
    "exit codes: 0 ok, 1 usage, 2 found problems, 3 timeout, 4 baseline failed, 5 bad input,\n"
    "            6 device refused, 7 non-finite values, 8 dirty tree, 9 void run, 70 internal error\n";

}  // namespace music3::exit_code
