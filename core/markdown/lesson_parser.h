// Internal to the lesson parser: the Parser that reads one lesson file into a Lesson
// and its problems. Its members live in two files: lesson_parser.cpp (the file's lines,
// front matter, the body cut at directive fences, boxes, demo blocks, references) and
// lesson_checks.cpp (check blocks: prompt, options, feedback and answer keys).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "icl/lesson.h"

namespace icl::lesson_parse {

class Parser {
public:
    Parser(const std::string& text, const std::string& file);
    LessonParse run();

private:
    // ---- bookkeeping ----
    void fail(int line, const std::string& message) { problems_.push_back({file_, line, message, false}); }
    // `html` rendered from `markdown` (at `line`), with an error for a link or image target
    // a lesson may not use, and one for each TeX construct the desktop app cannot show.
    std::string checked(std::string html, const std::string& markdown, int line);
    int line_no(size_t index) const { return static_cast<int>(index) + 1; }
    // The markdown with its quoted figures ({{0.76 @demo:scalar ±0.05}}) replaced by their
    // values and recorded in lesson_.figures.
    std::string figures_in(const std::string& markdown, int line);
    void derive_lang_and_source();

    // ---- front matter, body, boxes, demo blocks (lesson_parser.cpp) ----
    // Returns the index of the first body line, or 0 if the front matter is unusable.
    size_t parse_front_matter();
    void parse_body(size_t begin);
    void flush_text(size_t begin, size_t end);
    void parse_box(size_t open, const std::string& info, size_t close);
    void parse_demo(size_t open, const std::string& info, size_t close);
    // Predict checks must name a demo instance of this page.
    void check_references();

    // ---- check blocks (lesson_checks.cpp) ----
    void parse_check(size_t open, const std::string& info, size_t close);
    bool has_options(CheckType t) const;
    // Prompt, options, `---`, feedback, per-option feedback.
    bool parse_check_body(CheckBlock& check, size_t open, size_t close);
    // `[lo, hi] text` at the start of a predict option (read as half-open [lo, hi)).
    bool parse_range(CheckOption& option, int line);
    // The answer keys, checked against the options, into check.grading.
    bool parse_grading(CheckBlock& check, std::map<std::string, std::string>& keys);

    std::string file_;
    std::vector<std::string> lines_;
    std::set<std::string> demo_names_;             // the page's demo instances
    std::map<std::string, int> check_lines_;       // check id -> its line (duplicates, the bound)
    bool utf8_ok_ = true;
    Lesson lesson_;
    std::vector<Diagnostic> problems_, math_problems_;
};

}  // namespace icl::lesson_parse
