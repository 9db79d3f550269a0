// The lesson API: parsing a lesson (the Parser itself is in lesson_parser.cpp and
// lesson_checks.cpp, its line-level pieces in lesson_scan.cpp), rendering Markdown with
// md4c-html, and a lesson as JSON. The format is documented in icl/lesson.h.
#include "icl/lesson.h"

#include <md4c-html.h>

#include "icl/glossary.h"
#include "icl/lesson_markdown.h"
#include "lesson_parser.h"

namespace icl {

using nlohmann::json;

std::string to_string(const Diagnostic& d) {
    // Line 0: about the file as a whole (it cannot be read): "file: message".
    return d.file + (d.line > 0 ? ":" + std::to_string(d.line) : "") + ": " + (d.warning ? "warning: " : "") + d.message;
}

const char* check_type_name(CheckType t) {
    switch (t) {
        case CheckType::Choice: return "choice";
        case CheckType::Multi: return "multi";
        case CheckType::TrueFalse: return "truefalse";
        case CheckType::Numeric: return "numeric";
        case CheckType::Text: return "text";
        default: return "predict";
    }
}

std::string render_markdown(const std::string& markdown) {
    std::string html;
    md_html(markdown.data(), static_cast<MD_SIZE>(markdown.size()),
            [](const MD_CHAR* text, MD_SIZE size, void* out) { static_cast<std::string*>(out)->append(text, size); },
            &html, kLessonMarkdownFlags, 0);
    return html;
}

std::string Figure::source() const {
    std::string changed;
    for (const auto& [key, value] : params.items())
        changed += (changed.empty() ? "" : ",") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    return instance + (changed.empty() ? "" : "[" + changed + "]") + ":" + scalar;
}

LessonParse parse_lesson_collect(const std::string& text, const std::string& file_name) {
    return lesson_parse::Parser(text, file_name).run();
}

Expected<Lesson> parse_lesson(const std::string& text, const std::string& file_name) {
    LessonParse parsed = parse_lesson_collect(text, file_name);
    if (!parsed.problems.empty()) return make_error(to_string(parsed.problems.front()));
    if (!parsed.math_problems.empty()) return make_error(to_string(parsed.math_problems.front()));
    return std::move(parsed.lesson);
}

json to_json(const CheckBlock& check) {
    json options = json::array();
    for (const auto& o : check.options)
        options.push_back({{"key", o.key}, {"html", o.html}, {"feedback_html", o.feedback_html}});
    json out = {{"kind", "check"}, {"id", check.id}, {"type", check_type_name(check.type)}, {"line", check.line},
                {"prompt_html", check.prompt_html}, {"options", options}, {"feedback_html", check.feedback_html},
                {"grading", check.grading}, {"hides_result", check.hides_result}};
    if (!check.from.empty()) out["from"] = check.from;
    return out;
}

namespace {
struct BlockToJson {
    json operator()(const HtmlBlock& b) const {
        json out = {{"kind", "html"}, {"html", b.html}, {"markdown", b.markdown}};
        if (!b.box.empty()) out["box"] = b.box;
        return out;
    }
    json operator()(const DemoBlock& b) const {
        json out = {{"kind", "demo"}, {"demo", b.demo}, {"name", b.name}, {"params", b.params}, {"line", b.line}};
        if (!b.show.empty()) out["show"] = b.show;
        if (!b.hide.empty()) out["hide"] = b.hide;
        return out;
    }
    json operator()(const CheckBlock& b) const { return to_json(b); }
};
}  // namespace

json to_json(const Lesson& lesson) {
    json blocks = json::array();
    for (const auto& b : lesson.blocks) blocks.push_back(std::visit(BlockToJson{}, b));
    const int words = reading_words(lesson);
    return {{"id", lesson.id}, {"lang", lesson.lang}, {"title", lesson.title}, {"order", lesson.order}, {"number", lesson.number()},
            {"summary", lesson.summary}, {"source", lesson.source}, {"words", words}, {"minutes", reading_minutes(words)},
            {"blocks", blocks}};
}

}  // namespace icl
