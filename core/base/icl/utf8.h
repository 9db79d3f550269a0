// UTF-8 decoding and encoding for the text the lessons and their answers carry.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace icl {

// Decodes the code point starting at s[i] and advances i past it. Returns -1 (and
// leaves i) on invalid UTF-8: a stray continuation byte, a truncated sequence, an
// overlong form, a surrogate or a value past U+10FFFF.
long utf8_next(const std::string& s, size_t& i);

// Appends the UTF-8 encoding of a code point (0..0x10FFFF, not a surrogate).
void utf8_append(std::string& out, long code_point);

// The byte offset of the first invalid sequence, or std::string::npos if s is valid.
size_t utf8_first_invalid(const std::string& s);

// s's code points, up to its first invalid sequence.
std::vector<long> code_points(const std::string& s);

// s without the spaces, tabs, carriage returns and newlines at either end.
std::string trim(const std::string& s);

// s cut at every `sep`, each part trimmed; empty parts kept ("a, ,b," -> a, "", b, "").
std::vector<std::string> split_trimmed(const std::string& s, char sep);

// The Levenshtein distance between a and b over code points, ASCII case ignored: how far
// a learner's or an author's word is from a known one ("did you mean").
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace icl
