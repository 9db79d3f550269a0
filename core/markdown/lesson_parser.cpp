// The lesson parser: front matter, then a line scan that cuts the body at directive
// fences (demo / check); the text between them is rendered with md4c-html. The format
// is documented in icl/lesson.h; check blocks are read in lesson_checks.cpp.
#include "lesson_parser.h"

#include <algorithm>
#include <cstdio>

#include "icl/glossary.h"
#include "icl/lesson_markdown.h"
#include "icl/texts.h"
#include "icl/utf8.h"
#include "lesson_math.h"
#include "lesson_scan.h"

namespace icl::lesson_parse {

using nlohmann::json;

const std::vector<std::string> kFrontMatterKeys = {"id", "title", "order", "summary"};

Parser::Parser(const std::string& text, const std::string& file) : file_(file) {
    size_t start = 0;
    while (start <= text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines_.push_back(line);
        start = end + 1;
    }
    if (!lines_.empty() && starts_with(lines_[0], "\xEF\xBB\xBF")) lines_[0] = lines_[0].substr(3);
    derive_lang_and_source();
    // Invalid UTF-8 stops here: the JSON writer and md4c both need valid text.
    const size_t bad = utf8_first_invalid(text);
    if (bad != std::string::npos) {
        fail(1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n')),
             "the file is not valid UTF-8 (first bad byte here)");
        utf8_ok_ = false;
    }
    // A control character is never meant: "\approx" written through an escaping
    // layer arrives as BEL + "pprox" and breaks the math silently.
    for (size_t i = 0; i < lines_.size(); ++i)
        for (const char ch : lines_[i])
            if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\t') || ch == 0x7f) {
                char code[8];
                std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(ch)));
                fail(line_no(i), std::string("control character ") + code +
                                     " in the text (a backslash escape such as \\a turned into a character?)");
                break;
            }
}

LessonParse Parser::run() {
    if (!utf8_ok_) return {std::move(lesson_), std::move(problems_), {}};
    const size_t body = parse_front_matter();
    if (body != 0) parse_body(body);
    check_references();
    return {std::move(lesson_), std::move(problems_), std::move(math_problems_)};
}


// `html` rendered from `markdown` (at `line`), with an error for a link or image target
// a lesson may not use, and one for each TeX construct the desktop app cannot show.
std::string Parser::checked(std::string html, const std::string& markdown, int line) {
    const std::string target = unsafe_target(html);
    if (!target.empty())
        fail(line, "link or image target '" + target.substr(0, 60) +
                       "' is not allowed (only http:, https:, mailto:, term: (the glossary), relative paths and #anchors)");
    for (const std::string& id : term_links(html)) lesson_.term_links.push_back({line, id});
    for (const auto& [at, message] : math_problems(markdown, line)) math_problems_.push_back({file_, at, message, false});
    return html;
}

// The markdown with its quoted figures ({{0.76 @demo:scalar ±0.05}}) replaced by their
// values and recorded in lesson_.figures.
std::string Parser::figures_in(const std::string& markdown, int line) {
    std::vector<std::pair<int, std::string>> errors;
    std::string out = expand_figures(markdown, line, lesson_.figures, errors);
    for (const auto& [at, message] : errors) fail(at, message);
    return out;
}

void Parser::derive_lang_and_source() {
    std::string path = file_;
    std::replace(path.begin(), path.end(), '\\', '/');
    const auto slash = path.rfind('/');
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
    const std::string parent = dir.substr(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/') + 1);
    if (parent == "en" || parent == "ko") {
        lesson_.lang = parent;
        lesson_.source = "lessons/" + parent + "/" + base;
    } else {
        lesson_.source = file_;
    }
}

// ---- front matter ----
// Returns the index of the first body line, or 0 if the front matter is unusable.
size_t Parser::parse_front_matter() {
    if (lines_.empty() || trim(lines_[0]) != "---") {
        fail(1, "expected front matter: the file must start with a line '---', then id, title, order, summary");
        return 0;
    }
    size_t close = 1;
    while (close < lines_.size() && trim(lines_[close]) != "---") ++close;
    if (close == lines_.size()) {
        fail(1, "front matter is not closed (expected a line '---' after its last key)");
        return 0;
    }
    std::map<std::string, std::string> values;
    std::set<std::string> bad_keys;
    for (size_t i = 1; i < close; ++i) {
        const std::string& line = lines_[i];
        if (is_blank(line)) continue;
        const auto colon = line.find(':');
        const std::string key = colon == std::string::npos ? "" : trim(line.substr(0, colon));
        if (!is_name(key, false)) {
            fail(line_no(i), "malformed front matter line (expected 'key: value'): " + line);
            continue;
        }
        if (std::find(kFrontMatterKeys.begin(), kFrontMatterKeys.end(), key) == kFrontMatterKeys.end()) {
            fail(line_no(i), "unknown front matter key '" + key + "' (expected id, title, order, summary)");
            continue;
        }
        if (values.count(key)) {
            fail(line_no(i), "front matter key '" + key + "' appears twice");
            continue;
        }
        std::string value = trim(line.substr(colon + 1));
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
        if (value.empty()) {
            fail(line_no(i), "front matter '" + key + "' is empty");
            bad_keys.insert(key);
            continue;
        }
        if (key == "id" && !is_name(value, true)) {
            fail(line_no(i), "front matter id '" + value + "' must use only letters, digits, '-' and '_'");
            bad_keys.insert(key);
            continue;
        }
        // The id names the page, <lang>/<id>.html; a file system that ignores case
        // makes "Review" the review page's file.
        std::string lower = value;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (key == "id" && lower == "review") {
            fail(line_no(i), "front matter id '" + value + "' is taken: <lang>/review.html is the review page (ids are compared "
                             "without case, as some file systems compare file names)");
            bad_keys.insert(key);
            continue;
        }
        if (key == "order") {
            // Digits, optionally one lowercase letter after them (3b: a lesson split off
            // lesson 3, sorted after it without renumbering the ones that follow).
            const bool lettered = !value.empty() && value.back() >= 'a' && value.back() <= 'z';
            const std::string digits = lettered ? value.substr(0, value.size() - 1) : value;
            const bool ok = !digits.empty() && digits.size() <= 6 && digits.find_first_not_of("0123456789") == std::string::npos;
            if (!ok) {
                fail(line_no(i), "front matter order '" + value + "' is not a non-negative integer (optionally followed by one letter a-z, as in 3b)");
                bad_keys.insert(key);
                continue;
            }
            lesson_.order = std::atoi(digits.c_str());
            lesson_.part = lettered ? value.substr(value.size() - 1) : std::string();
        }
        values[key] = value;
    }
    for (const auto& key : kFrontMatterKeys) {
        if (values.count(key)) continue;
        // A key that was present but bad already has its own message.
        if (!bad_keys.count(key)) fail(line_no(close), "front matter has no '" + key + ":' (required: id, title, order, summary)");
    }
    lesson_.id = values["id"];
    lesson_.title = values["title"];
    lesson_.summary = values["summary"];
    return close + 1;
}

// ---- body: cut at directive fences ----
void Parser::parse_body(size_t begin) {
    size_t run_begin = begin;
    size_t i = begin;
    while (i < lines_.size()) {
        const auto fence = fence_opening(lines_[i]);
        if (!fence) { ++i; continue; }
        const std::string word = first_word(fence->info);
        const bool directive_word = word == "demo" || word == "check" || word == "reproduce" || word == "box";
        size_t close = i + 1;
        while (close < lines_.size() && !closes(*fence, lines_[close])) ++close;
        if (directive_word && fence->indent == 0) {
            flush_text(run_begin, i);
            if (close == lines_.size()) {
                fail(line_no(i), word + " block is not closed (expected a closing " +
                                     std::string(fence->length, fence->marker) + " line)");
                return;
            }
            if (word == "demo") parse_demo(i, fence->info, close);
            else if (word == "check") parse_check(i, fence->info, close);
            else parse_box(i, fence->info, close);  // ```box <kind>, or ```reproduce
            run_begin = close + 1;
        } else if (directive_word) {
            fail(line_no(i), word + " fence is indented: directives must start at column 0 (this would show as code)");
        } else if (!word.empty()) {
            for (const char* directive : {"demo", "check", "reproduce", "box"}) {
                if (lower(word) == directive || edit_distance(word, directive) == 1)
                    fail(line_no(i), "unknown directive '" + word + "' (did you mean " + directive +
                                         "? other fences must not look like a directive)");
            }
        }
        i = close + 1;  // a code fence runs to its closing line or to the end
    }
    flush_text(run_begin, lines_.size());
}

void Parser::flush_text(size_t begin, size_t end) {
    trim_blank_lines(lines_, begin, end);
    if (begin == end) return;
    HtmlBlock block;
    block.line = line_no(begin);
    block.markdown = figures_in(join_lines(lines_, begin, end), block.line);
    block.html = checked(render_markdown(block.markdown), block.markdown, block.line);
    lesson_.blocks.push_back(std::move(block));
}

// ---- boxes (in short, you need, take away; reproduce) ----
// ```box <kind>; ```reproduce is ```box reproduce.
void Parser::parse_box(size_t open, const std::string& info, size_t close) {
    const int at = line_no(open);
    auto words = split_info(info);
    if (!words) return fail(at, "box: " + words.error().message);
    const bool alias = words.value()[0].value == kReproduceBox;
    const auto& kinds = box_kinds();
    std::string kind = alias ? kReproduceBox : "";
    if (alias && words.value().size() > 1)
        return fail(at, "reproduce block: unexpected '" + trim(info.substr(info.find(kReproduceBox) + 9)) +
                            "' (expected a line ```reproduce and nothing after it)");
    if (!alias && words.value().size() == 2 && words.value()[1].key.empty()) kind = words.value()[1].value;
    if (kind != kReproduceBox && std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
        return fail(at, "box: expected ```box in-short, ```box you-need, ```box take-away or ```box reproduce");
    for (const auto& b : lesson_.blocks)
        if (const auto* h = std::get_if<HtmlBlock>(&b); h && h->box == kind && kind != kReproduceBox)
            return fail(at, "a second '" + kind + "' box (the first is at line " + std::to_string(h->line) + ")");
    size_t begin = open + 1, end = close;
    trim_blank_lines(lines_, begin, end);
    if (begin == end) return fail(at, alias ? "reproduce block is empty" : "the '" + kind + "' box is empty");
    HtmlBlock block;
    block.line = at;
    block.box = kind;
    block.markdown = figures_in(join_lines(lines_, begin, end), line_no(begin));
    block.html = checked(render_markdown(block.markdown), block.markdown, line_no(begin));
    lesson_.blocks.push_back(std::move(block));
}

// ---- demo blocks ----
void Parser::parse_demo(size_t open, const std::string& info, size_t close) {
    const int at = line_no(open);
    auto words = split_info(info);
    if (!words) return fail(at, "demo block: " + words.error().message);
    DemoBlock demo;
    demo.line = at;
    bool ok = true;
    for (size_t w = 1; w < words.value().size(); ++w) {
        const auto& word = words.value()[w];
        if (word.key.empty() && demo.demo.empty()) demo.demo = word.value;
        else if (word.key == "name" && is_name(word.value, true)) demo.name = word.value;
        else if (word.key == "name") { fail(at, "demo instance name '" + word.value + "' must use only letters, digits, '-' and '_'"); ok = false; }
        else if ((word.key == "show" || word.key == "hide") && demo.show.empty() && demo.hide.empty()) {
            auto& list = word.key == "show" ? demo.show : demo.hide;
            list = split_trimmed(word.value, ',');
            for (const std::string& p : list)
                if (!is_name(p, false)) { fail(at, "demo block: " + word.key + "= takes parameter names separated by commas, not '" + word.value + "'"); ok = false; break; }
        }
        else if (word.key == "show" || word.key == "hide") { fail(at, "demo block: one show= or hide= list, not two"); ok = false; }
        else { fail(at, "demo block: unexpected '" + (word.key.empty() ? word.value : word.key + "=") + "' (expected ```demo <id> [name=<instance>] [show=<params> | hide=<params>])"); ok = false; }
    }
    if (demo.demo.empty()) { fail(at, "demo block has no demo id (expected ```demo <id>)"); ok = false; }
    if (demo.name.empty()) demo.name = demo.demo;
    if (!demo.name.empty() && is_reserved_name(demo.name)) {
        fail(at, "demo instance name '" + demo.name + "' is reserved (a name every JavaScript object has, or one starting with __); choose another with name=<instance>");
        ok = false;
    }
    for (size_t i = open + 1; i < close; ++i) {
        const std::string line = trim(lines_[i]);
        if (line.empty() || line[0] == '#') continue;
        const auto colon = line.find(':');
        const std::string key = colon == std::string::npos ? "" : trim(line.substr(0, colon));
        const std::string value = colon == std::string::npos ? "" : trim(line.substr(colon + 1));
        if (!is_name(key, false) || value.empty()) {
            fail(line_no(i), "malformed demo parameter line '" + line + "' (expected name: value)");
            ok = false;
        } else if (demo.params.contains(key)) {
            fail(line_no(i), "demo parameter '" + key + "' is set twice");
            ok = false;
        } else {
            demo.params[key] = yaml_scalar(value);
        }
    }
    if (!demo.name.empty() && demo_names_.count(demo.name)) {
        fail(at, "a second demo instance named '" + demo.name + "' on this page (add name=<other> to one of them)");
        ok = false;
    }
    if (ok) {
        demo_names_.insert(demo.name);
        lesson_.blocks.push_back(std::move(demo));
    }
}


// Predict checks must name a demo instance of this page.
void Parser::check_references() {
    std::string names;
    for (const auto& block : lesson_.blocks)
        if (const auto* d = std::get_if<DemoBlock>(&block)) names += (names.empty() ? "" : ", ") + d->name;
    for (const auto& block : lesson_.blocks) {
        const auto* c = std::get_if<CheckBlock>(&block);
        if (!c || c->type != CheckType::Predict) continue;
        const std::string wanted = c->grading["demo"];
        if (!demo_names_.count(wanted))
            fail(c->line, "predict check names demo instance '" + wanted + "', which is not on this page (instances: " +
                              (names.empty() ? "none" : names) + ")");
    }
}

}  // namespace icl::lesson_parse
