#include "engine/models/music3/tokenizer/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdexcept>

namespace music3::tokenizer {

struct Regex::Impl {
  pcre2_code* code = nullptr;
  pcre2_match_data* data = nullptr;
  ~Impl() {
    pcre2_match_data_free(data);
    pcre2_code_free(code);
  }
};

Regex::Regex(const std::string& pattern, uint32_t extra_options) : impl_(std::make_unique<Impl>()) {
  int err = 0;
  PCRE2_SIZE err_offset = 0;
  pcre2_compile_context* ctx = pcre2_compile_context_create(nullptr);
  pcre2_set_newline(ctx, PCRE2_NEWLINE_LF);  // Python's `re` and Oniguruma: only \n ends a line for ^ and $
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                              PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK | extra_options, &err, &err_offset, ctx);
  pcre2_compile_context_free(ctx);
  if (!impl_->code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    throw std::logic_error("PCRE2 cannot compile /" + pattern + "/ at offset " + std::to_string(err_offset) + ": " +
                           reinterpret_cast<const char*>(msg));
  }
  pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter where JIT is unavailable
  impl_->data = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

bool Regex::search(std::string_view subject, size_t start, RegexMatch& m, bool anchored) const {
  const int rc = pcre2_match(impl_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), start,
                             PCRE2_NO_UTF_CHECK | (anchored ? PCRE2_ANCHORED : 0u), impl_->data, nullptr);
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc < 0) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(rc, msg, sizeof msg);
    throw std::runtime_error(std::string("PCRE2 match failed: ") + reinterpret_cast<const char*>(msg));
  }
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(impl_->data);
  m.begin = ov[0];
  m.end = ov[1];
  const bool has_group = rc >= 2 && ov[2] != PCRE2_UNSET;
  m.group_begin = has_group ? ov[2] : m.begin;
  m.group_end = has_group ? ov[3] : m.begin;
  return true;
}

}  // namespace music3::tokenizer
