// Text for the tools' HTML and SVG reports.
// Contract: markup_escape() replaces & < > " by their entities, so any string can stand
// in element text or a double-quoted attribute. Pure function: thread-safe.
#pragma once
#include <string>

namespace music3::tools {

std::string markup_escape(const std::string& s);

}  // namespace music3::tools
