// `music3 ar`: the AR stage (text ids to frame hiddens) from a pipeline checkpoint.
// Contract: prints a summary (or one JSON object with --json) and returns 0; 2 on bad
// arguments or input (the message names the problem and, for the stage's refusals, its
// kind: bad_duration, prompt_length, bad_token, zero_frames, draws_exhausted,
// teacher_exhausted, geometry), 3 when the device refuses an arm, 4 when non-finite
// logits were seen. On a terminal, a progress line (frames done, frames/s) is kept on
// stderr.
#pragma once
#include <string>
#include <vector>

namespace music3::cli {

extern const char* const kArUsage;
int run_ar_command(const std::vector<std::string>& argv);

}  // namespace music3::cli
