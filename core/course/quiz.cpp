#include "icl/quiz.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "icl/utf8.h"
#include "icl/format.h"
#include "icl/texts.h"

namespace icl {

using nlohmann::json;

namespace {

bool is_unicode_space(long cp) {
    return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

// Hyphens, dashes and slashes separate words: "in-context" reads as "in context".
bool is_word_separator(long cp) {
    return cp == '-' || cp == '/' || cp == '_' || (cp >= 0x2010 && cp <= 0x2015) || cp == 0x2212 || cp == 0xFF0F;
}

bool is_ignored_punctuation(long cp) {
    if (cp < 0x80) return std::ispunct(static_cast<int>(cp)) != 0;
    switch (cp) {
        case 0x00A1: case 0x00AB: case 0x00B7: case 0x00BB: case 0x00BF:  // ¡ « · » ¿
        case 0x2018: case 0x2019: case 0x201C: case 0x201D:               // curly quotes
        case 0x2026: case 0x30FB:                                         // … ・
            return true;
        default: break;
    }
    if (cp >= 0x3001 && cp <= 0x3003) return true;   // 、 。 〃
    if (cp >= 0x3008 && cp <= 0x3011) return true;   // 〈 〉 《 》 「 」 『 』 【 】
    if (cp >= 0x3014 && cp <= 0x301F) return true;   // 〔 〕 ... 〟
    // Full-width ASCII punctuation: ！ ＂ ＃ ... ／, ： ... ＠, ［ ... ｀, ｛ ... ～
    if ((cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
        (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65))
        return true;
    return false;
}

// ---- reading the check -------------------------------------------------------------

std::string quoted(const json& v) {
    return v.is_string() ? "'" + v.get<std::string>() + "'" : v.dump();
}

std::string string_field(const json& obj, const char* key) {
    return obj.is_object() && obj.contains(key) && obj.at(key).is_string() ? obj.at(key).get<std::string>() : "";
}

struct OptionView {
    std::string key;
    std::string feedback_html;
};

std::vector<OptionView> options_of(const json& check) {
    std::vector<OptionView> out;
    if (!check.contains("options") || !check.at("options").is_array()) return out;
    for (const auto& o : check.at("options"))
        if (o.is_object()) out.push_back({string_field(o, "key"), string_field(o, "feedback_html")});
    return out;
}

std::string key_list(const std::vector<OptionView>& options) {
    std::string out;
    for (const auto& o : options) out += (out.empty() ? "" : ", ") + o.key;
    return out;
}

// The chosen key must be one of the check's options.
Status require_option(const std::vector<OptionView>& options, const json& answer) {
    if (!answer.is_string())
        return make_error("the answer must be an option key (one of " + key_list(options) + "), got " + answer.dump());
    const auto key = answer.get<std::string>();
    for (const auto& o : options)
        if (o.key == key) return Ok{};
    return make_error("'" + key + "' is not one of the options (" + key_list(options) + ")");
}

std::string option_feedback(const std::vector<OptionView>& options, const std::set<std::string>& chosen) {
    std::string out;
    for (const auto& o : options)
        if (chosen.count(o.key)) out += o.feedback_html;
    return out;
}

Error bad_check(const json& check, const std::string& what) {
    const std::string id = string_field(check, "id");
    return make_error("check" + (id.empty() ? std::string() : " '" + id + "'") + " is malformed: " + what);
}

// ---- one grader per type -----------------------------------------------------------

Expected<Verdict> grade_choice(const json& check, const json& grading, const json& answer) {
    const auto options = options_of(check);
    if (!grading.contains("answer") || !grading.at("answer").is_string()) return bad_check(check, "grading.answer is not a key");
    if (auto ok = require_option(options, answer); !ok) return ok.error();
    const auto key = answer.get<std::string>(), right = grading.at("answer").get<std::string>();
    return Verdict{key == right, string_field(check, "feedback_html") + option_feedback(options, {key}), right};
}

Expected<Verdict> grade_multi(const json& check, const json& grading, const json& answer) {
    const auto options = options_of(check);
    if (!grading.contains("answer") || !grading.at("answer").is_array()) return bad_check(check, "grading.answer is not a list");
    if (!answer.is_array())
        return make_error("the answer must be a list of option keys (from " + key_list(options) + "), got " + answer.dump());
    std::set<std::string> chosen, right;
    for (const auto& a : answer) {
        if (auto ok = require_option(options, a); !ok) return ok.error();
        if (!chosen.insert(a.get<std::string>()).second) return make_error("option '" + a.get<std::string>() + "' is chosen twice");
    }
    std::string right_text;
    for (const auto& r : grading.at("answer")) {
        if (!r.is_string()) return bad_check(check, "grading.answer holds a non-key " + r.dump());
        right.insert(r.get<std::string>());
        right_text += (right_text.empty() ? "" : ", ") + r.get<std::string>();
    }
    return Verdict{chosen == right, string_field(check, "feedback_html") + option_feedback(options, chosen), right_text};
}

Expected<Verdict> grade_truefalse(const json& check, const json& grading, const json& answer) {
    if (!grading.contains("answer") || !grading.at("answer").is_boolean()) return bad_check(check, "grading.answer is not true/false");
    bool given = false;
    if (answer.is_boolean()) given = answer.get<bool>();
    else if (answer == "true" || answer == "false") given = answer == "true";
    else return make_error("the answer must be true or false, got " + answer.dump());
    const bool right = grading.at("answer").get<bool>();
    return Verdict{given == right,
                   string_field(check, "feedback_html") + option_feedback(options_of(check), {given ? "true" : "false"}),
                   right ? "true" : "false"};
}

Expected<Verdict> grade_numeric(const json& check, const json& grading, const json& answer) {
    if (!grading.contains("answer") || !grading.at("answer").is_number() || !grading.contains("tol") ||
        !grading.at("tol").is_number())
        return bad_check(check, "grading needs numbers answer and tol");
    double given = 0;
    if (answer.is_number()) {
        given = answer.get<double>();
        if (!std::isfinite(given)) return make_error("the answer must be a finite number");
    } else if (answer.is_string()) {
        auto parsed = parse_typed_number(answer.get<std::string>());
        if (!parsed) return parsed.error();
        given = parsed.value();
    } else {
        return make_error("the answer must be a number, got " + answer.dump());
    }
    const double right = grading.at("answer").get<double>(), tol = grading.at("tol").get<double>();
    // The tolerance is inclusive; the slack absorbs decimal->binary rounding so that
    // 0.18 counts as within 0.02 of 0.2.
    const double slack = 1e-9 * std::max({std::fabs(right), std::fabs(tol), 1e-300});
    const bool correct = std::fabs(given - right) <= tol + slack;
    return Verdict{correct, string_field(check, "feedback_html"), all_digits(right) + " ± " + all_digits(tol)};
}

Expected<Verdict> grade_text(const json& check, const json& grading, const json& answer) {
    if (!grading.contains("accepted") || !grading.at("accepted").is_array() || grading.at("accepted").empty())
        return bad_check(check, "grading.accepted is not a non-empty list");
    if (!answer.is_string()) return make_error("the answer must be text, got " + answer.dump());
    auto given = normalize_text_answer(answer.get<std::string>());
    if (!given) return given.error();
    if (given.value().empty()) return learner_error("error.answer_empty_text", {});
    bool correct = false;
    for (const auto& a : grading.at("accepted")) {
        if (!a.is_string()) return bad_check(check, "grading.accepted holds a non-string " + a.dump());
        auto accepted = normalize_text_answer(a.get<std::string>());
        if (!accepted) return bad_check(check, accepted.error().message);
        correct = correct || accepted.value() == given.value();
    }
    return Verdict{correct, string_field(check, "feedback_html"), grading.at("accepted").front().get<std::string>()};
}

Expected<Verdict> grade_predict(const json& check, const json& grading, const json& answer, const json& result) {
    const auto options = options_of(check);
    if (!grading.contains("scalar") || !grading.at("scalar").is_string() || !grading.contains("ranges") ||
        !grading.at("ranges").is_object())
        return bad_check(check, "grading needs scalar and ranges");
    if (auto ok = require_option(options, answer); !ok) return ok.error();
    if (!result.is_object())
        return learner_error("error.answer_run_first", {});
    if (result.contains("done") && result.at("done") != true)
        return learner_error("error.answer_still_running", {});
    if (const std::string err = string_field(result, "error"); !err.empty())
        return learner_error("error.answer_demo_failed", {{"error", err}});
    const std::string scalar = grading.at("scalar").get<std::string>();
    auto value = find_result_scalar(result, scalar);
    if (!value) return value.error();
    const double v = value.value();
    std::string right;
    for (const auto& [key, range] : grading.at("ranges").items()) {
        if (!range.is_array() || range.size() != 2 || !(range[0].is_null() || range[0].is_number()) ||
            !(range[1].is_null() || range[1].is_number()))
            return bad_check(check, "range of option '" + key + "' is not [lo, hi]");
        const double lo = range[0].is_null() ? -INFINITY : range[0].get<double>();
        const double hi = range[1].is_null() ? INFINITY : range[1].get<double>();
        if (lo <= v && v < hi) right = key;
    }
    if (right.empty())
        return bad_check(check, "the demo's " + scalar + " = " + all_digits(v) + " lies in none of the options' ranges");
    const auto key = answer.get<std::string>();
    return Verdict{key == right, string_field(check, "feedback_html") + option_feedback(options, {key}), right};
}

}  // namespace

Expected<std::string> normalize_text_answer(const std::string& text) {
    std::string out;
    bool pending_space = false;
    for (size_t i = 0; i < text.size();) {
        const long cp = utf8_next(text, i);
        if (cp < 0) return make_error("the answer is not valid UTF-8 text");
        if (is_unicode_space(cp) || is_word_separator(cp)) { pending_space = !out.empty(); continue; }
        if (is_ignored_punctuation(cp)) continue;
        if (pending_space) { out += ' '; pending_space = false; }
        utf8_append(out, (cp >= 'A' && cp <= 'Z') ? cp - 'A' + 'a' : cp);
    }
    return out;
}

Expected<double> parse_typed_number(const std::string& text) {
    if (utf8_first_invalid(text) != std::string::npos) return make_error("the answer is not a number (not valid UTF-8 text)");
    double v = 0;
    switch (read_number(text, v)) {
        case NumberRead::ok: return v;
        case NumberRead::empty: return learner_error("error.answer_empty_number", {});
        default: return learner_error("error.answer_not_number", {{"text", text}});
    }
}

Expected<double> find_result_scalar(const json& result, const std::string& name) {
    std::string known;
    if (result.is_object() && result.contains("panels") && result.at("panels").is_array()) {
        for (const auto& panel : result.at("panels")) {
            if (string_field(panel, "kind") != "scalars" || !panel.contains("items") || !panel.at("items").is_array()) continue;
            for (const auto& item : panel.at("items")) {
                const std::string item_name = string_field(item, "name");
                if (item_name != name) { known += (known.empty() ? "" : ", ") + item_name; continue; }
                if (!item.contains("value") || !item.at("value").is_number())
                    return learner_error("error.answer_not_finite", {{"name", name}});
                return item.at("value").get<double>();
            }
        }
    }
    return make_error("the demo's result has no scalar '" + name + "' (it has: " + (known.empty() ? "none" : known) + ")");
}

Status validate_answer(const json& check, const json& answer) {
    const std::string type = string_field(check, "type");
    const auto options = options_of(check);
    if (type == "choice" || type == "predict") return require_option(options, answer);
    if (type == "multi") {
        if (!answer.is_array()) return make_error("the answer must be a list of option keys, got " + answer.dump());
        std::set<std::string> chosen;
        for (const auto& a : answer) {
            if (auto ok = require_option(options, a); !ok) return ok.error();
            if (!chosen.insert(a.get<std::string>()).second) return make_error("option '" + a.get<std::string>() + "' is chosen twice");
        }
        return Ok{};
    }
    if (type == "truefalse") {
        if (answer.is_boolean() || answer == "true" || answer == "false") return Ok{};
        return make_error("the answer must be true or false, got " + answer.dump());
    }
    if (type == "numeric") {
        if (answer.is_string() || (answer.is_number() && std::isfinite(answer.get<double>()))) return Ok{};
        return make_error("the answer must be a number, got " + answer.dump());
    }
    if (type == "text") {
        if (!answer.is_string()) return make_error("the answer must be text, got " + answer.dump());
        if (auto n = normalize_text_answer(answer.get<std::string>()); !n) return n.error();
        return Ok{};
    }
    return bad_check(check, "unknown type " + quoted(check.contains("type") ? check.at("type") : json()));
}

Expected<Verdict> grade(const json& check, const json& answer, const json& demo_result) {
    if (!check.is_object() || !check.contains("grading") || !check.at("grading").is_object())
        return bad_check(check, "no grading object");
    const std::string type = string_field(check, "type");
    const json& grading = check.at("grading");
    if (type == "choice") return grade_choice(check, grading, answer);
    if (type == "multi") return grade_multi(check, grading, answer);
    if (type == "truefalse") return grade_truefalse(check, grading, answer);
    if (type == "numeric") return grade_numeric(check, grading, answer);
    if (type == "text") return grade_text(check, grading, answer);
    if (type == "predict") return grade_predict(check, grading, answer, demo_result);
    return bad_check(check, "unknown type " + quoted(check.contains("type") ? check.at("type") : json()));
}

}  // namespace icl
