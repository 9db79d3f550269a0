// The line-level pieces the lesson parser reads a lesson with: small text helpers, the
// info string of a directive fence, fences themselves and the figures a lesson quotes
// from a demo ({{0.76 @demo:scalar ±0.05}}).
#include "lesson_scan.h"

#include "icl/format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "icl/lesson_markdown.h"
#include "icl/texts.h"
#include "icl/utf8.h"

namespace icl::lesson_parse {

using nlohmann::json;

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
std::optional<double> parse_number(const std::string& text, bool allow_infinite) {
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
                for (const std::string& pair : split_trimmed(changed, ',')) {
                    if (!why_params.empty()) break;
                    const size_t eq = pair.find('=');
                    const std::string key = eq == std::string::npos ? "" : trim(pair.substr(0, eq));
                    const std::string val = eq == std::string::npos ? "" : trim(pair.substr(eq + 1));
                    if (!is_name(key, false) || val.empty()) why_params = "parameter '" + pair + "' is not name=value";
                    else if (f.params.contains(key)) why_params = "parameter '" + key + "' is set twice";
                    else f.params[key] = yaml_scalar(val);
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

}  // namespace icl::lesson_parse
