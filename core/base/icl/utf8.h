// UTF-8 decoding and encoding for the text the lessons and their answers carry.
#pragma once
#include <cstddef>
#include <string>

namespace icl {

// Decodes the code point starting at s[i] and advances i past it. Returns -1 (and
// leaves i) on invalid UTF-8: a stray continuation byte, a truncated sequence, an
// overlong form, a surrogate or a value past U+10FFFF.
long utf8_next(const std::string& s, size_t& i);

// Appends the UTF-8 encoding of a code point (0..0x10FFFF, not a surrogate).
void utf8_append(std::string& out, long code_point);

// The byte offset of the first invalid sequence, or std::string::npos if s is valid.
size_t utf8_first_invalid(const std::string& s);

}  // namespace icl
