// Internal to the lesson parser (lesson_parser.cpp, lesson_checks.cpp): the line-level
// pieces it reads a lesson with (lesson_scan.cpp).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/expected.h"
#include "icl/lesson.h"

namespace icl::lesson_parse {

// ---- small text helpers
bool is_blank(const std::string& s);
bool starts_with(const std::string& s, const std::string& prefix);
bool is_name(const std::string& s, bool allow_dash);
// Names every JavaScript object answers to through its prototype (and any name starting
// with "__"): the lint refuses them as a demo instance or check id.
bool is_reserved_name(const std::string& s);
std::string lower(std::string s);
// A number in a lesson source: what strtod reads (C locale) over the whole string,
// finite; "inf"/"-inf" only where allow_infinite.
std::optional<double> parse_number(const std::string& text, bool allow_infinite = false);
// A `name: value` value as JSON: true/false, an integer, a number, a "quoted" string or
// a bare word.
nlohmann::json yaml_scalar(const std::string& text);
// The first link or image target in rendered HTML whose scheme is not http, https,
// mailto or term ("" if none).
std::string unsafe_target(const std::string& html);
// One line of Markdown as HTML without md4c's <p>...</p> around it (option labels).
std::string inline_html(const std::string& markdown);
std::string join_lines(const std::vector<std::string>& lines, size_t begin, size_t end);
// Drops leading and trailing blank lines of lines[begin, end).
void trim_blank_lines(const std::vector<std::string>& lines, size_t& begin, size_t& end);

// ---- info strings
struct InfoWord {
    std::string key;    // empty for a positional word
    std::string value;
};
// Splits `check id=x type=text answer="a b|c"` into words; values may be "quoted".
Expected<std::vector<InfoWord>> split_info(const std::string& info);

// ---- fences
struct Fence {
    char marker = '`';
    size_t length = 0;
    size_t indent = 0;
    std::string info;
};
// A fenced-code opening line (CommonMark: up to 3 spaces, >= 3 backticks or tildes;
// a backtick fence's info string has no backtick).
std::optional<Fence> fence_opening(const std::string& line);
bool closes(const Fence& open, const std::string& line);
std::string first_word(const std::string& info);

// ---- figures quoted from a demo
// The markdown (starting at line first_line) with every quoted figure replaced by its
// shown value, each recorded in `figures`; problems go to `errors` as (line, message).
std::string expand_figures(const std::string& md, int first_line, std::vector<Figure>& figures,
                           std::vector<std::pair<int, std::string>>& errors);

}  // namespace icl::lesson_parse
