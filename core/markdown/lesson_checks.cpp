// The lesson parser's check blocks: the info string's keys, then prompt, options, `---`,
// feedback and per-option feedback, each piece rendered with md4c-html, and the answer
// keys checked against the options (the format is documented in icl/lesson.h).
#include <algorithm>
#include <cmath>

#include "icl/lesson_markdown.h"
#include "icl/texts.h"
#include "icl/utf8.h"
#include "lesson_parser.h"
#include "lesson_scan.h"

namespace icl::lesson_parse {

using nlohmann::json;

// The most check blocks a lesson may hold (the shipped lessons have 5 to 10); past it the
// parser reports one error and leaves the rest out. Parsing is linear in the lesson's size.
constexpr int kMaxChecks = 200;

// ---- check blocks ----
void Parser::parse_check(size_t open, const std::string& info, size_t close) {
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
    lesson_.blocks.emplace_back(std::in_place_type<CheckBlock>, std::move(check));
}

bool Parser::has_options(CheckType t) const {
    return t == CheckType::Choice || t == CheckType::Multi || t == CheckType::Predict;
}

// Prompt, options, `---`, feedback, per-option feedback.
bool Parser::parse_check_body(CheckBlock& check, size_t open, size_t close) {
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
bool Parser::parse_range(CheckOption& option, int line) {
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
bool Parser::parse_grading(CheckBlock& check, std::map<std::string, std::string>& keys) {
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
            for (const std::string& key : split_trimmed(answer, ',')) {
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
            for (const std::string& a : split_trimmed(answer, '|')) {
                if (a.empty()) {
                    fail(at, "text answer has an empty alternative (expected answer=\"word|other word\")");
                    return false;
                }
                accepted.push_back(a);
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

}  // namespace icl::lesson_parse
