// The A/B report's plot: every timed frame of each arm in run order (small dots), each
// repetition's median (a line through larger dots), on an ms axis: linear, or
// logarithmic when the largest sample is more than 8x the smallest.
// Contract: a self-contained SVG 1.1 document (no scripts, no external references); the
// x axis is the frame's position in the run (repetition r, frame i -> r * frames + i),
// the y axis spans the samples with 5% padding (of the axis); series with no samples
// are skipped.
#pragma once
#include <string>
#include <vector>

namespace music3::bench {

struct PlotSeries {
  std::string label;
  std::string color;  // any SVG color
  std::vector<std::vector<double>> frame_ms;  // by repetition
  std::vector<double> rep_ms;
};

std::string samples_svg(const std::string& title, const std::vector<PlotSeries>& series);

}  // namespace music3::bench
