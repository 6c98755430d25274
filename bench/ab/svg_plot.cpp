#include "bench/ab/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "tools/markup.h"

namespace music3::bench {
namespace {

constexpr double kWidth = 900, kHeight = 420, kLeft = 70, kRight = 20, kTop = 40, kBottom = 50;


std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string tick_label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 100 ? "%.0f" : std::fabs(v) >= 10 ? "%.1f" : "%.3g", v);
  return buf;
}

}  // namespace

std::string samples_svg(const std::string& title, const std::vector<PlotSeries>& series) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  size_t points = 1;
  for (const auto& s : series) {
    size_t n = 0;
    for (const auto& rep : s.frame_ms)
      for (double v : rep) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        ++n;
      }
    points = std::max(points, n);
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  // Arms far apart (a peer 8x slower) share a log axis; otherwise a linear one.
  const bool log_axis = lo > 0 && hi / lo > 8;
  auto axis = [&](double v) { return log_axis ? std::log(v) : v; };
  auto value = [&](double a) { return log_axis ? std::exp(a) : a; };
  double a_lo = axis(lo), a_hi = axis(hi);
  const double pad = std::max((a_hi - a_lo) * 0.05, std::max(std::fabs(a_hi), 1e-9) * 1e-3);
  a_lo = log_axis ? a_lo - pad : std::max(0.0, a_lo - pad);
  a_hi += pad;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto X = [&](double i) { return kLeft + plot_w * (points > 1 ? i / double(points - 1) : 0.5); };
  auto Y = [&](double v) { return kTop + plot_h * (1 - (axis(v) - a_lo) / (a_hi - a_lo)); };

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
    << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << kLeft << "\" y=\"22\" font-size=\"14\">" << tools::markup_escape(title) << "</text>\n";
  for (int t = 0; t <= 5; ++t) {  // y grid and labels, evenly spaced on the axis
    const double v = value(a_lo + (a_hi - a_lo) * t / 5.0);
    o << "<line x1=\"" << kLeft << "\" x2=\"" << kWidth - kRight << "\" y1=\"" << num(Y(v)) << "\" y2=\"" << num(Y(v))
      << "\" stroke=\"#ddd\"/>\n";
    o << "<text x=\"" << kLeft - 6 << "\" y=\"" << num(Y(v) + 4) << "\" text-anchor=\"end\">" << tick_label(v)
      << "</text>\n";
  }
  o << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_w << "\" height=\"" << plot_h
    << "\" fill=\"none\" stroke=\"#888\"/>\n";
  o << "<text x=\"" << kLeft + plot_w / 2 << "\" y=\"" << kHeight - 12
    << "\" text-anchor=\"middle\">timed frame, in run order (repetition x frames + frame)</text>\n";
  o << "<text transform=\"translate(16 " << kTop + plot_h / 2 << ") rotate(-90)\" text-anchor=\"middle\">ms per frame"
    << (log_axis ? " (log scale)" : "") << "</text>\n";

  double legend_x = kLeft + 8;
  for (const auto& s : series) {
    if (s.frame_ms.empty()) continue;
    const std::string color = tools::markup_escape(s.color);
    size_t i = 0;
    std::ostringstream line;
    for (size_t r = 0; r < s.frame_ms.size(); ++r) {
      const size_t first = i;
      for (double v : s.frame_ms[r])
        o << "<circle cx=\"" << num(X(double(i++))) << "\" cy=\"" << num(Y(v)) << "\" r=\"1.5\" fill=\"" << color
          << "\" fill-opacity=\"0.35\"/>\n";
      if (r < s.rep_ms.size() && i > first) {
        const double mid = (double(first) + double(i - 1)) / 2;
        line << (r ? " " : "") << num(X(mid)) << "," << num(Y(s.rep_ms[r]));
        o << "<circle cx=\"" << num(X(mid)) << "\" cy=\"" << num(Y(s.rep_ms[r])) << "\" r=\"4\" fill=\"" << color
          << "\"/>\n";
      }
    }
    o << "<polyline points=\"" << line.str() << "\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.5\"/>\n";
    o << "<rect x=\"" << num(legend_x) << "\" y=\"" << kTop + 8 << "\" width=\"10\" height=\"10\" fill=\"" << color
      << "\"/>\n";
    o << "<text x=\"" << num(legend_x + 14) << "\" y=\"" << kTop + 17 << "\">" << tools::markup_escape(s.label) << "</text>\n";
    legend_x += 24 + 7.0 * double(s.label.size());
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace music3::bench
