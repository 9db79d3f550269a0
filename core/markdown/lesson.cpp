// The lesson parser: front matter, then a line scan that cuts the body at directive
// fences (demo / check); the text between them and every piece of a check is rendered
// with md4c-html. The format is documented in icl/lesson.h.
#include "icl/lesson.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include <md4c-html.h>

#include "icl/format.h"
#include "icl/glossary.h"
#include "icl/lesson_markdown.h"
#include "icl/texts.h"
#include "icl/utf8.h"
#include "lesson_math.h"

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

namespace {

// The most check blocks a lesson may hold (the shipped lessons have 5 to 10); past it the
// parser reports one error and leaves the rest out. Parsing is linear in the lesson's size.
constexpr int kMaxChecks = 200;

// ---- small text helpers -------------------------------------------------------------

bool is_blank(const std::string& s) { return trim(s).empty(); }

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool is_name(const std::string& s, bool allow_dash) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [&](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
               (allow_dash && c == '-');
    });
}

// Names every JavaScript object answers to through its prototype (and any name starting
// with "__"): as a demo instance or check id, a page's lookup by name would find the
// prototype's member instead of the block, so the lint refuses them.
bool is_reserved_name(const std::string& s) {
    static const char* const kReserved[] = {"constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty",
                                            "isPrototypeOf", "propertyIsEnumerable", "prototype"};
    if (starts_with(s, "__")) return true;
    return std::any_of(std::begin(kReserved), std::end(kReserved), [&](const char* r) { return s == r; });
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
    return s;
}

// A number in a lesson source (icl/format.h: read_number, kSourceNumber), finite;
// "inf"/"-inf" (or ∞) only where allow_infinite.
std::optional<double> parse_number(const std::string& text, bool allow_infinite = false) {
    NumberSyntax syntax = kSourceNumber;
    syntax.non_finite = allow_infinite;
    double v = 0;
    if (read_number(text, v, syntax) != NumberRead::ok || std::isnan(v)) return std::nullopt;
    return v;
}

// A `name: value` value as JSON: true/false, an integer, a number, a "quoted" string or
// a bare word.
json yaml_scalar(const std::string& text) {
    const std::string s = trim(text);
    if (s == "true") return true;
    if (s == "false") return false;
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    const bool integer = !s.empty() && s.find_first_not_of("+-0123456789") == std::string::npos &&
                         s.find_first_of("0123456789") != std::string::npos;
    if (integer) {
        char* end = nullptr;
        const long long v = std::strtoll(s.c_str(), &end, 10);
        if (end == s.c_str() + s.size()) return v;
    }
    if (auto v = parse_number(s)) return *v;
    return s;
}

// Strips the single <p>...</p> md4c puts around one line of text (option labels).
// The first link or image target in rendered HTML whose scheme is not http, https or
// mailto ("" if none): a lesson's javascript: or data: link would otherwise render as a
// link (the page's CSP refuses to run it, the desktop app would show it).
std::string unsafe_target(const std::string& html) {
    for (const char* attr : {"href=\"", "src=\""}) {
        for (size_t at = html.find(attr); at != std::string::npos; at = html.find(attr, at + 1)) {
            const size_t begin = at + std::strlen(attr), end = html.find('"', begin);
            if (end == std::string::npos) break;
            const std::string target = html.substr(begin, end - begin);
            const size_t colon = target.find(':');
            if (colon == std::string::npos) continue;  // relative, or an #anchor
            std::string scheme = target.substr(0, colon);
            const bool is_scheme = std::all_of(scheme.begin(), scheme.end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
            });
            if (!is_scheme) continue;  // a colon after a path, query or fragment
            std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](char c) { return (char)std::tolower((unsigned char)c); });
            if (scheme != "http" && scheme != "https" && scheme != "mailto" && scheme != "term") return target;
        }
    }
    return "";
}

std::string inline_html(const std::string& markdown) {
    std::string html = render_markdown(markdown);
    while (!html.empty() && html.back() == '\n') html.pop_back();
    if (starts_with(html, "<p>") && html.size() >= 7 && html.compare(html.size() - 4, 4, "</p>") == 0 &&
        html.find("<p>", 3) == std::string::npos)
        html = html.substr(3, html.size() - 7);
    return html;
}

std::string join_lines(const std::vector<std::string>& lines, size_t begin, size_t end) {
    std::string out;
    for (size_t i = begin; i < end; ++i) out += lines[i] + "\n";
    return out;
}

// Drops leading and trailing blank lines of lines[begin, end).
void trim_blank_lines(const std::vector<std::string>& lines, size_t& begin, size_t& end) {
    while (begin < end && is_blank(lines[begin])) ++begin;
    while (end > begin && is_blank(lines[end - 1])) --end;
}

// ---- info strings -----------------------------------------------------------------

struct InfoWord {
    std::string key;    // empty for a positional word
    std::string value;
};

// Splits `check id=x type=text answer="a b|c"` into words; values may be "quoted".
Expected<std::vector<InfoWord>> split_info(const std::string& info) {
    std::vector<InfoWord> words;
    size_t i = 0;
    while (i < info.size()) {
        if (info[i] == ' ' || info[i] == '\t') { ++i; continue; }
        std::string token;
        bool has_eq = false;
        std::string key;
        while (i < info.size() && info[i] != ' ' && info[i] != '\t') {
            if (info[i] == '=' && !has_eq) {
                has_eq = true;
                key = token;
                token.clear();
                ++i;
                if (i < info.size() && info[i] == '"') {
                    const auto close = info.find('"', i + 1);
                    if (close == std::string::npos) return make_error("unterminated quoted value for '" + key + "='");
                    token = info.substr(i + 1, close - i - 1);
                    i = close + 1;
                    if (i < info.size() && info[i] != ' ' && info[i] != '\t')
                        return make_error("expected a space after the quoted value of '" + key + "='");
                    break;
                }
                continue;
            }
            token += info[i++];
        }
        if (has_eq && key.empty()) return make_error("'=" + token + "' has no key before '='");
        words.push_back(has_eq ? InfoWord{key, token} : InfoWord{"", token});
    }
    return words;
}

// ---- the parser ----------------------------------------------------------------------

const std::vector<std::string> kFrontMatterKeys = {"id", "title", "order", "summary"};

struct Fence {
    char marker = '`';
    size_t length = 0;
    size_t indent = 0;
    std::string info;
};

// A fenced-code opening line (CommonMark: up to 3 spaces, >= 3 backticks or tildes;
// a backtick fence's info string has no backtick).
std::optional<Fence> fence_opening(const std::string& line) {
    Fence f;
    while (f.indent < line.size() && line[f.indent] == ' ') ++f.indent;
    if (f.indent > 3 || f.indent >= line.size() || (line[f.indent] != '`' && line[f.indent] != '~')) return std::nullopt;
    f.marker = line[f.indent];
    size_t i = f.indent;
    while (i < line.size() && line[i] == f.marker) ++i;
    f.length = i - f.indent;
    if (f.length < 3) return std::nullopt;
    f.info = trim(line.substr(i));
    if (f.marker == '`' && f.info.find('`') != std::string::npos) return std::nullopt;
    return f;
}

bool closes(const Fence& open, const std::string& line) {
    size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    if (indent > 3) return false;
    size_t i = indent;
    while (i < line.size() && line[i] == open.marker) ++i;
    return i - indent >= open.length && is_blank(line.substr(i));
}

std::string first_word(const std::string& info) {
    const auto end = info.find_first_of(" \t");
    return info.substr(0, end);
}

// ---- figures quoted from a demo -------------------------------------------------------
// `{{0.76 @instance:scalar ±0.05}}` (or `±5%`, or `+-` for ±) in a lesson's text stands
// for the figure 0.76, which the lesson says comes from the named scalar of a demo
// instance on the page; the text keeps only "0.76". A `{{` whose next non-space
// character is a digit, a sign or a point and whose content holds an `@` is a figure;
// any other `{{` (TeX's `x^{{2}}`) is left alone. Returns the markdown with every
// figure replaced by its shown value; problems go to `errors` as (line, message).
// Linear in the text: each search below starts where the last one ended (a position found
// for one `{{` holds for the next while it lies ahead), and the line count is carried on.
std::string expand_figures(const std::string& md, int first_line, std::vector<Figure>& figures,
                           std::vector<std::pair<int, std::string>>& errors) {
    // The first `what` at or after `from`, remembered in `found` while it lies ahead.
    const auto next = [&md](const char* what, size_t from, size_t& found, bool& known) {
        if (!known || (found != std::string::npos && found < from)) {
            found = md.find(what, from);
            known = true;
        }
        return found;
    };
    size_t close_at = 0, at_at = 0, newline_at = 0;
    bool close_known = false, at_known = false, newline_known = false;
    size_t counted = 0;  // md[0, counted) holds `newlines` line ends
    int newlines = 0;
    std::string out;
    size_t pos = 0;
    while (true) {
        const size_t open = md.find("{{", pos);
        if (open == std::string::npos) break;
        const size_t close = next("}}", open + 2, close_at, close_known);
        size_t first = open + 2;
        while (first < md.size() && md[first] == ' ') ++first;
        const bool numeric_start = first < md.size() && (std::isdigit(static_cast<unsigned char>(md[first])) ||
                                                         md[first] == '-' || md[first] == '+' || md[first] == '.');
        if (!numeric_start || close == std::string::npos || next("@", open + 2, at_at, at_known) >= close ||
            next("\n", open + 2, newline_at, newline_known) < close) {
            out.append(md, pos, open + 2 - pos);
            pos = open + 2;
            continue;
        }
        const std::string inner = md.substr(open + 2, close - open - 2);
        newlines += static_cast<int>(std::count(md.begin() + static_cast<long>(counted), md.begin() + static_cast<long>(open), '\n'));
        counted = open;
        const int line = first_line + newlines;
        const auto bad = [&](const std::string& why) {
            errors.push_back({line, "figure '{{" + inner + "}}': " + why +
                                        " (expected {{<value> @<demo instance>:<scalar> ±<tolerance>[%]}})"});
        };
        Figure f;
        f.line = line;
        const size_t at = inner.find('@');
        f.text = trim(inner.substr(0, at));
        std::string rest = inner.substr(at + 1);
        size_t pm = rest.find("\xC2\xB1");  // ±
        size_t pm_len = 2;
        if (pm == std::string::npos) { pm = rest.find("+-"); pm_len = 2; }
        const size_t colon = rest.find(':');
        const auto value = parse_number(f.text);
        std::string tol = pm == std::string::npos ? "" : trim(rest.substr(pm + pm_len));
        f.relative = !tol.empty() && tol.back() == '%';
        if (f.relative) tol = trim(tol.substr(0, tol.size() - 1));
        const auto tolerance = parse_number(tol);
        if (!value) bad("'" + f.text + "' is not a number");
        else if (colon == std::string::npos || (pm != std::string::npos && colon > pm)) bad("no ':' between the instance and the scalar");
        else if (pm == std::string::npos) bad("no tolerance");
        else if (!tolerance || *tolerance < 0) bad("tolerance '" + tol + "' is not a non-negative number");
        else {
            f.value = *value;
            f.tol = *tolerance;
            f.instance = trim(rest.substr(0, colon));
            f.scalar = trim(rest.substr(colon + 1, pm - colon - 1));
            // instance[name=value, ...]: the run's changed parameters, each read as a demo
            // block's value is
            std::string why_params;
            const size_t bracket = f.instance.find('[');
            if (bracket != std::string::npos) {
                const std::string changed = f.instance.back() == ']' ? f.instance.substr(bracket + 1, f.instance.size() - bracket - 2) : "";
                if (f.instance.back() != ']') why_params = "'[' without a closing ']' before the ':'";
                else if (trim(changed).empty()) why_params = "no parameters between '[' and ']'";
                f.instance = trim(f.instance.substr(0, bracket));
                for (size_t p = 0; why_params.empty() && p <= changed.size();) {
                    const size_t comma = std::min(changed.find(',', p), changed.size());
                    const std::string pair = trim(changed.substr(p, comma - p));
                    const size_t eq = pair.find('=');
                    const std::string key = eq == std::string::npos ? "" : trim(pair.substr(0, eq));
                    const std::string val = eq == std::string::npos ? "" : trim(pair.substr(eq + 1));
                    if (!is_name(key, false) || val.empty()) why_params = "parameter '" + pair + "' is not name=value";
                    else if (f.params.contains(key)) why_params = "parameter '" + key + "' is set twice";
                    else f.params[key] = yaml_scalar(val);
                    p = comma + 1;
                }
            }
            if (!is_name(f.instance, true)) bad("instance name '" + f.instance + "' must use only letters, digits, '-' and '_'");
            else if (!why_params.empty()) bad(why_params);
            else if (f.scalar.empty()) bad("no scalar name");
            else figures.push_back(f);
        }
        out.append(md, pos, open - pos);
        out += f.text;
        pos = close + 2;
    }
    return out.append(md, pos, std::string::npos);
}

class Parser {
public:
    Parser(const std::string& text, const std::string& file) : file_(file) {
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

    LessonParse run() {
        if (!utf8_ok_) return {std::move(lesson_), std::move(problems_), {}};
        const size_t body = parse_front_matter();
        if (body != 0) parse_body(body);
        check_references();
        return {std::move(lesson_), std::move(problems_), std::move(math_problems_)};
    }

private:
    // ---- bookkeeping ----
    void fail(int line, const std::string& message) { problems_.push_back({file_, line, message, false}); }
    // `html` rendered from `markdown` (at `line`), with an error for a link or image target
    // a lesson may not use, and one for each TeX construct the desktop app cannot show.
    std::string checked(std::string html, const std::string& markdown, int line) {
        const std::string target = unsafe_target(html);
        if (!target.empty())
            fail(line, "link or image target '" + target.substr(0, 60) +
                           "' is not allowed (only http:, https:, mailto:, term: (the glossary), relative paths and #anchors)");
        for (const std::string& id : term_links(html)) lesson_.term_links.push_back({line, id});
        for (const auto& [at, message] : math_problems(markdown, line)) math_problems_.push_back({file_, at, message, false});
        return html;
    }
    int line_no(size_t index) const { return static_cast<int>(index) + 1; }
    // The markdown with its quoted figures ({{0.76 @demo:scalar ±0.05}}) replaced by their
    // values and recorded in lesson_.figures.
    std::string figures_in(const std::string& markdown, int line) {
        std::vector<std::pair<int, std::string>> errors;
        std::string out = expand_figures(markdown, line, lesson_.figures, errors);
        for (const auto& [at, message] : errors) fail(at, message);
        return out;
    }

    void derive_lang_and_source() {
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
    size_t parse_front_matter() {
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
    void parse_body(size_t begin) {
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

    void flush_text(size_t begin, size_t end) {
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
    void parse_box(size_t open, const std::string& info, size_t close) {
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
    void parse_demo(size_t open, const std::string& info, size_t close) {
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
                for (size_t p = 0; p <= word.value.size();) {
                    const size_t comma = std::min(word.value.find(',', p), word.value.size());
                    list.push_back(trim(word.value.substr(p, comma - p)));
                    p = comma + 1;
                }
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

    // ---- check blocks ----
    void parse_check(size_t open, const std::string& info, size_t close) {
        const int at = line_no(open);
        auto words = split_info(info);
        if (!words) return fail(at, "check block: " + words.error().message);
        std::map<std::string, std::string> keys;
        for (size_t w = 1; w < words.value().size(); ++w) {
            const auto& word = words.value()[w];
            if (word.key.empty()) return fail(at, "check block: unexpected word '" + word.value + "' (expected key=value)");
            if (keys.count(word.key)) return fail(at, "check block: '" + word.key + "=' is given twice");
            keys[word.key] = word.value;
        }
        CheckBlock check;
        check.line = at;
        if (keys.count("from")) {
            check.from = keys["from"];
            if (!is_name(check.from, true)) return fail(at, "check from= '" + check.from + "' must be a lesson id (letters, digits, '-' and '_')");
        }
        if (!keys.count("id")) return fail(at, "check block has no id= (expected id=<unique id in the lesson>)");
        check.id = keys["id"];
        if (!is_name(check.id, true)) return fail(at, "check id '" + check.id + "' must use only letters, digits, '-' and '_'");
        if (is_reserved_name(check.id))
            return fail(at, "check id '" + check.id + "' is reserved (a name every JavaScript object has, or one starting with __)");
        if (!keys.count("type")) return fail(at, "check block has no type= (expected type=choice|multi|truefalse|numeric|text|predict)");
        static const std::map<std::string, CheckType> types = {
            {"choice", CheckType::Choice}, {"multi", CheckType::Multi}, {"truefalse", CheckType::TrueFalse},
            {"numeric", CheckType::Numeric}, {"text", CheckType::Text}, {"predict", CheckType::Predict}};
        const auto type = types.find(keys["type"]);
        if (type == types.end())
            return fail(at, "unknown check type '" + keys["type"] + "' (expected choice, multi, truefalse, numeric, text or predict)");
        check.type = type->second;
        // Which keys each type takes.
        std::set<std::string> allowed = {"id", "type", "from"};
        if (check.type == CheckType::Predict) allowed.insert({"demo", "scalar", "run", "hide"});
        else allowed.insert("answer");
        if (check.type == CheckType::Numeric) allowed.insert("tol");
        for (const auto& [key, value] : keys)
            if (!allowed.count(key))
                return fail(at, "check key '" + key + "=' does not apply to a " + keys["type"] + " check");
        if (const auto first = check_lines_.find(check.id); first != check_lines_.end())
            return fail(at, "check id '" + check.id + "' is used twice in this lesson (first at line " +
                                std::to_string(first->second) + ")");
        if (static_cast<int>(check_lines_.size()) >= kMaxChecks) {
            if (static_cast<int>(check_lines_.size()) == kMaxChecks)
                fail(at, "the lesson has more than " + std::to_string(kMaxChecks) + " checks (the most a lesson may hold); this one and any after it are left out");
            check_lines_.emplace(check.id, at);  // counted, so the message above comes once
            return;
        }
        if (!parse_check_body(check, open, close)) return;
        if (!parse_grading(check, keys)) return;
        check_lines_.emplace(check.id, at);
        lesson_.blocks.push_back(std::move(check));
    }

    bool has_options(CheckType t) const {
        return t == CheckType::Choice || t == CheckType::Multi || t == CheckType::Predict;
    }

    // Prompt, options, `---`, feedback, per-option feedback.
    bool parse_check_body(CheckBlock& check, size_t open, size_t close) {
        const int at = line_no(open);
        size_t sep = open + 1;
        while (sep < close && trim(lines_[sep]) != "---") ++sep;
        if (sep == close) {
            fail(at, "check block has no '---' line (expected the prompt, a line '---', then the feedback)");
            return false;
        }
        // Prompt and option lines.
        size_t prompt_end = sep;
        if (has_options(check.type)) {
            for (size_t i = open + 1; i < sep; ++i) {
                const std::string& line = lines_[i];
                const bool option_line = line.size() >= 3 && line[0] >= 'a' && line[0] <= 'z' && line[1] == ')' &&
                                         (line[2] == ' ' || line[2] == '\t');
                if (!option_line) {
                    if (!check.options.empty() && !is_blank(line)) {
                        fail(line_no(i), "text after the options (options must be the last lines before '---'): " + line);
                        return false;
                    }
                    continue;
                }
                if (check.options.empty()) prompt_end = i;
                const std::string key(1, line[0]);
                const std::string expected(1, static_cast<char>('a' + check.options.size()));
                if (key != expected) {
                    fail(line_no(i), "option '" + key + ")' is out of order (expected '" + expected + ")')");
                    return false;
                }
                CheckOption option;
                option.key = key;
                option.markdown = trim(line.substr(3));
                if (check.type == CheckType::Predict && !parse_range(option, line_no(i))) return false;
                if (option.markdown.empty()) {
                    fail(line_no(i), "option '" + key + ")' has no text");
                    return false;
                }
                option.html = checked(inline_html(option.markdown), option.markdown, line_no(i));
                check.options.push_back(std::move(option));
            }
            if (check.options.size() < 2) {
                fail(at, std::string(check_type_name(check.type)) + " check needs at least two options 'a) ...', 'b) ...'");
                return false;
            }
        } else if (check.type == CheckType::TrueFalse) {
            // The two labels in the lesson's language, from the catalogue (app.json); where
            // no catalogue can be read, its keys.
            const auto words = load_catalogue(lesson_.lang, {"app"});
            for (const char* key : {"true", "false"}) {
                const std::string label = words ? words.value()(std::string(key) + "_label") : std::string(key);
                check.options.push_back({key, label, label, "", "", std::nullopt, std::nullopt});
            }
        }
        size_t pb = open + 1, pe = prompt_end;
        trim_blank_lines(lines_, pb, pe);
        if (pb == pe) {
            fail(at, "check block has no prompt before its options and '---'");
            return false;
        }
        check.prompt_markdown = figures_in(join_lines(lines_, pb, pe), line_no(pb));
        check.prompt_html = checked(render_markdown(check.prompt_markdown), check.prompt_markdown, line_no(pb));
        // Feedback, then per-option feedback lines `a: ...`.
        size_t feedback_end = close;
        for (size_t i = sep + 1; i < close; ++i) {
            const std::string& line = lines_[i];
            const auto colon = line.find(':');
            const std::string key = colon == std::string::npos ? "" : line.substr(0, colon);
            const bool option_feedback = !check.options.empty() && colon != std::string::npos &&
                                         colon + 1 < line.size() && (line[colon + 1] == ' ' || line[colon + 1] == '\t') &&
                                         ((key.size() == 1 && key[0] >= 'a' && key[0] <= 'z' && check.type != CheckType::TrueFalse) ||
                                          (check.type == CheckType::TrueFalse && (key == "true" || key == "false")));
            if (!option_feedback) {
                if (feedback_end != close && !is_blank(line)) {
                    fail(line_no(i), "text after the per-option feedback (each line there must be 'key: ...'): " + line);
                    return false;
                }
                continue;
            }
            if (feedback_end == close) feedback_end = i;
            auto option = std::find_if(check.options.begin(), check.options.end(),
                                       [&](const CheckOption& o) { return o.key == key; });
            if (option == check.options.end()) {
                fail(line_no(i), "per-option feedback '" + key + ":' names no option of this check");
                return false;
            }
            if (!option->feedback_markdown.empty()) {
                fail(line_no(i), "option '" + key + "' has two feedback lines");
                return false;
            }
            option->feedback_markdown = figures_in(trim(line.substr(colon + 1)), line_no(i));
            option->feedback_html = checked(render_markdown(option->feedback_markdown), option->feedback_markdown, line_no(i));
        }
        size_t fb = sep + 1, fe = feedback_end;
        trim_blank_lines(lines_, fb, fe);
        if (fb == fe) {
            fail(line_no(sep), "check block has no feedback after '---' (explain the answer there)");
            return false;
        }
        check.feedback_markdown = figures_in(join_lines(lines_, fb, fe), line_no(fb));
        check.feedback_html = checked(render_markdown(check.feedback_markdown), check.feedback_markdown, line_no(fb));
        return true;
    }

    // `[lo, hi] text` at the start of a predict option (read as half-open [lo, hi)).
    bool parse_range(CheckOption& option, int line) {
        const std::string& text = option.markdown;
        const auto close = text.find_first_of("])");
        const auto comma = text.find(',');
        if (text.empty() || text[0] != '[' || close == std::string::npos || comma == std::string::npos || comma > close) {
            fail(line, "predict option '" + option.key + ")' has no range (expected " + option.key + ") [lo, hi] text)");
            return false;
        }
        const auto lo = parse_number(text.substr(1, comma - 1), true);
        const auto hi = parse_number(text.substr(comma + 1, close - comma - 1), true);
        if (!lo || !hi || *lo == INFINITY || *hi == -INFINITY) {
            fail(line, "predict option '" + option.key + ")': range '" + text.substr(0, close + 1) +
                           "' needs two numbers (or -inf / inf)");
            return false;
        }
        if (!(*lo < *hi)) {
            fail(line, "predict option '" + option.key + ")': range '" + text.substr(0, close + 1) + "' is empty (lo must be < hi)");
            return false;
        }
        if (std::isfinite(*lo)) option.range_lo = *lo;
        if (std::isfinite(*hi)) option.range_hi = *hi;
        option.markdown = trim(text.substr(close + 1));
        return true;
    }

    // The answer keys, checked against the options, into check.grading.
    bool parse_grading(CheckBlock& check, std::map<std::string, std::string>& keys) {
        const int at = check.line;
        const auto option_keys = [&] {
            std::string out;
            for (const auto& o : check.options) out += (out.empty() ? "" : "|") + o.key;
            return out;
        };
        const auto is_option = [&](const std::string& key) {
            return std::any_of(check.options.begin(), check.options.end(), [&](const CheckOption& o) { return o.key == key; });
        };
        if (check.type != CheckType::Predict && !keys.count("answer")) {
            const char* hint = check.type == CheckType::Multi       ? "answer=a,c"
                               : check.type == CheckType::TrueFalse ? "answer=true|false"
                               : check.type == CheckType::Numeric   ? "answer=<number> tol=<tolerance>"
                               : check.type == CheckType::Text      ? "answer=\"word|other word\""
                                                                    : nullptr;
            fail(at, "check block has no answer= (expected " + (hint ? std::string(hint) : "answer=" + option_keys()) + ")");
            return false;
        }
        const std::string answer = keys["answer"];
        switch (check.type) {
            case CheckType::Choice:
                if (!is_option(answer)) {
                    fail(at, "answer '" + answer + "' is not among the options (expected answer=" + option_keys() + ")");
                    return false;
                }
                check.grading = {{"answer", answer}};
                return true;
            case CheckType::Multi: {
                json list = json::array();
                size_t start = 0;
                while (start <= answer.size()) {
                    auto end = answer.find(',', start);
                    if (end == std::string::npos) end = answer.size();
                    const std::string key = trim(answer.substr(start, end - start));
                    if (!is_option(key)) {
                        fail(at, "answer key '" + key + "' is not among the options (expected answer=a,c with keys from " +
                                     option_keys() + ")");
                        return false;
                    }
                    if (std::find(list.begin(), list.end(), key) != list.end()) {
                        fail(at, "answer key '" + key + "' is listed twice");
                        return false;
                    }
                    list.push_back(key);
                    start = end + 1;
                }
                check.grading = {{"answer", list}};
                return true;
            }
            case CheckType::TrueFalse:
                if (answer != "true" && answer != "false") {
                    fail(at, "truefalse answer '" + answer + "' must be true or false");
                    return false;
                }
                check.grading = {{"answer", answer == "true"}};
                return true;
            case CheckType::Numeric: {
                const auto value = parse_number(answer);
                if (!value) {
                    fail(at, "numeric answer '" + answer + "' is not a number");
                    return false;
                }
                if (!keys.count("tol")) {
                    fail(at, "numeric check has no tol= (expected an absolute tolerance, e.g. tol=0.01)");
                    return false;
                }
                const auto tol = parse_number(keys["tol"]);
                if (!tol || *tol < 0) {
                    fail(at, "numeric tol '" + keys["tol"] + "' is not a non-negative number");
                    return false;
                }
                check.grading = {{"answer", *value}, {"tol", *tol}};
                return true;
            }
            case CheckType::Text: {
                json accepted = json::array();
                size_t start = 0;
                while (start <= answer.size()) {
                    auto end = answer.find('|', start);
                    if (end == std::string::npos) end = answer.size();
                    const std::string a = trim(answer.substr(start, end - start));
                    if (a.empty()) {
                        fail(at, "text answer has an empty alternative (expected answer=\"word|other word\")");
                        return false;
                    }
                    accepted.push_back(a);
                    start = end + 1;
                }
                check.grading = {{"accepted", accepted}};
                return true;
            }
            case CheckType::Predict: {
                if (!keys.count("demo") || !keys.count("scalar") || keys["demo"].empty() || keys["scalar"].empty()) {
                    fail(at, "predict check needs demo=<instance name> and scalar=\"<scalar name>\"");
                    return false;
                }
                std::vector<const CheckOption*> sorted;
                for (const auto& o : check.options) sorted.push_back(&o);
                std::sort(sorted.begin(), sorted.end(), [](const CheckOption* a, const CheckOption* b) {
                    return a->range_lo.value_or(-INFINITY) < b->range_lo.value_or(-INFINITY);
                });
                for (size_t k = 1; k < sorted.size(); ++k) {
                    if (sorted[k - 1]->range_hi.value_or(INFINITY) > sorted[k]->range_lo.value_or(-INFINITY)) {
                        fail(at, "predict ranges of options '" + sorted[k - 1]->key + "' and '" + sorted[k]->key +
                                     "' overlap (ranges are half-open [lo, hi) and must not overlap)");
                        return false;
                    }
                }
                json ranges = json::object();
                const auto bound = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
                for (const auto& o : check.options) ranges[o.key] = json::array({bound(o.range_lo), bound(o.range_hi)});
                check.grading = {{"demo", keys["demo"]}, {"scalar", keys["scalar"]}, {"ranges", ranges}};
                if (keys.count("run") && keys["run"] != "lesson" && keys["run"] != "own") {
                    fail(at, "predict check: run='" + keys["run"] + "' is neither lesson (the lesson's setup, the default) "
                             "nor own (the learner's current run)");
                    return false;
                }
                if (keys.count("run") && keys["run"] == "own") check.grading["run"] = "own";
                if (keys.count("hide")) {
                    if (keys["hide"] != "result") {
                        fail(at, "predict check: hide='" + keys["hide"] + "' is not known (hide=result: the page holds back the "
                                 "demo's result until this check is answered or the demo is run)");
                        return false;
                    }
                    if (check.grading.contains("run")) {
                        fail(at, "predict check: hide=result needs run=lesson (with run=own the learner's own run is graded, "
                                 "not the result the page shows at load)");
                        return false;
                    }
                    check.hides_result = true;
                }
                return true;
            }
        }
        return false;
    }

    // Predict checks must name a demo instance of this page.
    void check_references() {
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

    std::string file_;
    std::vector<std::string> lines_;
    std::set<std::string> demo_names_;             // the page's demo instances
    std::map<std::string, int> check_lines_;       // check id -> its line (duplicates, the bound)
    bool utf8_ok_ = true;
    Lesson lesson_;
    std::vector<Diagnostic> problems_, math_problems_;
};

}  // namespace

std::string Figure::source() const {
    std::string changed;
    for (const auto& [key, value] : params.items())
        changed += (changed.empty() ? "" : ",") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    return instance + (changed.empty() ? "" : "[" + changed + "]") + ":" + scalar;
}

LessonParse parse_lesson_collect(const std::string& text, const std::string& file_name) {
    return Parser(text, file_name).run();
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
