#include "mutations/runner/log_cap.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

namespace music3::battery {
namespace {

constexpr size_t kHeadLines = 120, kTailLines = 200, kLinesAfterFailure = 8;
// Evidence kept in all, in order, in bytes (the battery's own notes and the cap's markers are not counted): a gate
// that fails once per element (a mutation can turn a million assertions red) must not make a log of hundreds of MB,
// nor may 2,000 lines of tensor dumps make one of 430 KiB (a count of lines bounded only that). A constant, not a
// share of the cap, so a second cap at another size keeps what the first kept.
constexpr size_t kMaxEvidenceBytes = 48 * 1024;
// A kept line keeps its first kMaxLineBytes bytes (back to a UTF-8 character boundary) and a marker for the rest.
constexpr size_t kMaxLineBytes = 1024;
constexpr const char* kCutMarker = " lines cut by the battery's log cap (";
constexpr const char* kLineCutMarker = " bytes of this line cut by the battery's log cap ...]";

// The battery's own notes and a marker of an earlier cap: always kept, so capping a capped log changes nothing.
bool is_note(const std::string& line) {
  for (const char* mark : {kCutMarker, kLineCutMarker, "### ", "$ (cd "})
    if (line.find(mark) != std::string::npos) return true;
  return false;
}

// The line as written: whole when short or already a note, else its head and the line-cut marker.
std::string kept_form(const std::string& line) {
  if (line.size() <= kMaxLineBytes || is_note(line)) return line;
  size_t cut = kMaxLineBytes;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return line.substr(0, cut) + " [... " + std::to_string(line.size() - cut) + kLineCutMarker;
}

bool is_evidence(const std::string& line) {
  for (const char* mark : {"Failure", "FAILED", "error", "Error", "Expected", "Which is", "Value of", "Actual",
                           "[  PASSED", "Segmentation", "Aborted", "terminate", "Sanitizer"})
    if (line.find(mark) != std::string::npos) return true;
  return false;
}

}  // namespace

void cap_log(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size <= max_bytes) return;
  std::vector<std::string> lines;
  {
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);) lines.push_back(std::move(l));
  }
  std::vector<bool> keep(lines.size(), false);
  size_t evidence_bytes = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i < kHeadLines || i + kTailLines >= lines.size()) keep[i] = true;
    const bool note = is_note(lines[i]);  // a cut failure line is a note the next time: it keeps its lines too
    if (!note) {
      if (!is_evidence(lines[i])) continue;
      evidence_bytes += std::min(lines[i].size(), kMaxLineBytes) + 1;
      if (evidence_bytes > kMaxEvidenceBytes) continue;
    }
    keep[i] = true;
    if (lines[i].find("Failure") != std::string::npos)
      for (size_t j = i + 1; j < lines.size() && j <= i + kLinesAfterFailure; ++j) keep[j] = true;
  }
  const std::string tmp = path + ".cap";
  {
    std::ofstream out(tmp, std::ios::trunc);
    size_t cut = 0;
    for (size_t i = 0; i <= lines.size(); ++i) {
      if (i < lines.size() && !keep[i]) {
        ++cut;
        continue;
      }
      if (cut) out << "[... " << cut << kCutMarker << max_bytes / 1024 << " KiB) ...]\n";
      cut = 0;
      if (i < lines.size()) out << kept_form(lines[i]) << '\n';
    }
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace music3::battery
