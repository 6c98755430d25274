#include "engine/models/music3/tokenizer/prompt_rules.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <vector>

#include "engine/models/music3/tokenizer/python_text.h"
#include "engine/models/music3/tokenizer/regex.h"

namespace music3::tokenizer {

namespace {
// `pattern` with every "\s" replaced by Python's whitespace class.
std::string python_pattern(std::string_view pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\' && i + 1 < pattern.size() && pattern[i + 1] == 's') {
      out += "[" + python_space_class() + "]";
      ++i;
    } else {
      out += pattern[i];
      if (pattern[i] == '\\' && i + 1 < pattern.size()) out += pattern[++i];
    }
  }
  return out;
}

struct CaptionRules {
  Regex special_tag{R"(<\|([^|]*)\|>)"};
  Regex heading{python_pattern(R"(^\s{0,3}#{1,6}\s+)")};
  Regex bullet{python_pattern(R"(^\s*[*+-]\s+)")};
  Regex star_bullet{python_pattern(R"(^\s*\*\s+)")};
  Regex bold{R"(\*\*([^*]+)\*\*)"};
  Regex italic{R"((?<!\*)\*([^*\n]+)\*(?!\*))"};
  Regex rule_line{python_pattern(R"(^\s*[-*_]{3,}\s*$)"), PCRE2_MULTILINE | PCRE2_ALT_CIRCUMFLEX};
  Regex blank_lines{R"(\n{2,})"};
};

struct LyricsRules {
  Regex leading_tags{R"(^[ \t]*((?:\[[^\]]+\][ \t]*)+))"};
  Regex tag{R"(\[([^\]]+)\])"};
};

std::string group(std::string_view s, const RegexMatch& m) { return std::string(s.substr(m.group_begin, m.group_end - m.group_begin)); }

std::string replace_literal(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = s.find(from, pos)) != std::string_view::npos; pos = hit + from.size()) {
    out.append(s.substr(pos, hit - pos));
    out.append(to);
  }
  out.append(s.substr(pos));
  return out;
}

std::string remove(const Regex& re, std::string_view s) {
  return re.replace_all(s, [](std::string_view, const RegexMatch&) { return std::string(); });
}

std::string keep_group(const Regex& re, std::string_view s) {
  return re.replace_all(s, [](std::string_view subject, const RegexMatch& m) { return group(subject, m); });
}
}  // namespace

std::string clean_caption(std::string_view caption) {
  static thread_local const CaptionRules r;
  const std::string text = r.special_tag.replace_all(caption, [](std::string_view s, const RegexMatch& m) {
    const std::string inner(python_strip(group(s, m)));
    const auto parts = python_split_first(inner);
    return parts.size() == 2 ? std::string(parts[0]) + " is " + std::string(parts[1]) : inner;
  });
  std::string joined;
  bool first = true;
  for (std::string_view raw : python_splitlines(text)) {
    std::string line = remove(r.star_bullet, remove(r.bullet, remove(r.heading, raw)));
    while (line.find("**") != std::string::npos) {
      std::string updated = keep_group(r.bold, line);
      if (updated == line) break;
      line = std::move(updated);
    }
    line = keep_group(r.italic, line);
    if (!first) joined += '\n';
    joined += python_rstrip(line);
    first = false;
  }
  std::string out = remove(r.rule_line, joined);
  out = replace_literal(replace_literal(out, "\xE2\x80\xA2 ", ""), "    ", "");
  return r.blank_lines.replace_all(out, [](std::string_view, const RegexMatch&) { return std::string("\n"); });
}

std::string normalize_lyrics(std::string_view lyrics) {
  static thread_local const LyricsRules r;
  std::string text;
  size_t start = 0;
  while (true) {
    const size_t nl = lyrics.find('\n', start);
    const std::string_view line = lyrics.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    RegexMatch m;
    if (r.leading_tags.search(line, 0, m, /*anchored=*/true)) {
      text += python_strip(line.substr(m.group_begin, m.group_end - m.group_begin));
    } else {
      text += line;
    }
    if (nl == std::string_view::npos) break;
    text += '\n';
    start = nl + 1;
  }
  text = replace_literal(text, "] ", "]\n");
  text = replace_literal(text, " [", "\n[");
  text = replace_literal(text, " ^ ", "\n");
  text = r.tag.replace_all(text, [](std::string_view s, const RegexMatch& m) {
    std::string tag = python_lower(group(s, m));
    tag.insert(tag.begin(), '[');
    tag.push_back(']');
    return tag;
  });
  return "[start]\n" + text;
}

}  // namespace music3::tokenizer
