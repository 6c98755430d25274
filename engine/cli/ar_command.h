// `music3 ar`: the AR stage (text ids to frame hiddens) from a pipeline checkpoint.
// Contract: prints a summary (or one JSON object with --json); exit codes of the shared
// table (engine/core/exit_code.h): 0 ok, 1 usage, 5 bad input (the message names the
// problem and, for the stage's refusals, its kind: bad_duration, prompt_length,
// bad_token, zero_frames, draws_exhausted, teacher_exhausted, geometry), 6 device
// refused, 7 non-finite logits seen. On a terminal, a progress line (frames done,
// frames/s) is kept on stderr.
#pragma once
#include <string>
#include <vector>

#include "engine/cli/command.h"

namespace music3::cli {

extern const char* const kArUsage;
int run_ar_command(const std::vector<std::string>& argv);

}  // namespace music3::cli
