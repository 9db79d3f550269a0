// ParamSpec: its factories, its JSON form, and the checks of the values a learner,
// a URL or the CLI gives for it (tokenize_text, validate_params, parse_param_strings).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "icl/demo.h"
#include "icl/format.h"
#include "icl/texts.h"
#include "icl/utf8.h"

namespace icl {

using nlohmann::json;

// ---- parameters ----------------------------------------------------------------

namespace {

// A parameter typed as text: a person's number, "inf" and "nan" too (validate_params
// names them as not finite).
constexpr NumberSyntax kParamNumber{true, true, true};

const char* type_name(ParamType t) {
    switch (t) {
        case ParamType::Int: return "int";
        case ParamType::Float: return "float";
        case ParamType::Bool: return "bool";
        case ParamType::Points: return "points";
        case ParamType::Text: return "text";
        default: return "choice";
    }
}

std::string range_text(const ParamSpec& s) {
    switch (s.type) {
        case ParamType::Bool: return "true or false";
        case ParamType::Text:
            return "a text of at most " + std::to_string(s.max_length) + " characters" +
                   (s.vocabulary.empty() ? "" : " in words of its vocabulary");
        case ParamType::Choice: {
            std::string out = "one of";
            for (const auto& c : s.choices) out += " " + c;
            return out;
        }
        case ParamType::Int: return "an integer in [" + all_digits(s.min) + ", " + all_digits(s.max) + "]";
        case ParamType::Points:
            return std::to_string(s.min_count) + " to " + std::to_string(s.max_count) + " points x,y with x in [" +
                   all_digits(s.min) + ", " + all_digits(s.max) + "] and y in [" + all_digits(s.y_min) + ", " +
                   all_digits(s.y_max) + "], written \"x,y; x,y\"";
        default: return "a number in [" + all_digits(s.min) + ", " + all_digits(s.max) + "]";
    }
}

// A malformed value (JSON of the wrong shape: a front end's or a script's mistake, not a
// learner's): named in English with what was expected.
Error bad_param(const ParamSpec& s, const std::string& what) {
    return make_error("parameter '" + s.name + "' " + what + ": expected " + range_text(s));
}

// A value a learner can type that does not fit: one whole catalogue text per case
// (common.json's "error.*"), so that each language words it; numbers with their range.
Error bad_number(const ParamSpec& s, const char* what, const std::string& value) {
    const bool integer = s.type == ParamType::Int;
    return learner_error(std::string("error.param_") + what + (integer ? "_int" : ""),
                         {{"name", s.name}, {"value", value}, {"min", all_digits(s.min)}, {"max", all_digits(s.max)}});
}
Error bad_point(const ParamSpec& s, const char* what, std::vector<std::pair<std::string, std::string>> args) {
    args.insert(args.end(), {{"name", s.name}, {"min_count", std::to_string(s.min_count)},
                             {"max_count", std::to_string(s.max_count)}, {"x_min", all_digits(s.min)},
                             {"x_max", all_digits(s.max)}, {"y_min", all_digits(s.y_min)}, {"y_max", all_digits(s.y_max)}});
    return learner_error(std::string("error.points_") + what, std::move(args));
}

// A points value: an array of [x, y] pairs, each finite and inside the spec's ranges.
Expected<std::vector<Point2>> validate_points(const ParamSpec& s, const json& v) {
    if (!v.is_array()) return bad_param(s, "is not a list of points");
    const int n = static_cast<int>(v.size());
    if (n > s.max_count) return bad_point(s, "too_many", {{"count", std::to_string(n)}});
    if (n < s.min_count) return bad_point(s, "too_few", {{"count", std::to_string(n)}});
    std::vector<Point2> out;
    for (int k = 0; k < n; ++k) {
        const json& p = v[static_cast<size_t>(k)];
        const std::string which = "point " + std::to_string(k + 1);
        if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number())
            return bad_param(s, which + " is not a pair of numbers [x, y]");
        const double x = p[0].get<double>(), y = p[1].get<double>();
        const std::string index = std::to_string(k + 1), xs = all_digits(x), ys = all_digits(y);
        if (!std::isfinite(x) || !std::isfinite(y)) return bad_point(s, "not_finite", {{"index", index}, {"x", xs}, {"y", ys}});
        if (x < s.min || x > s.max)
            return bad_point(s, "x_outside", {{"index", index}, {"x", xs}, {"y", ys}});
        if (y < s.y_min || y > s.y_max)
            return bad_point(s, "y_outside", {{"index", index}, {"x", xs}, {"y", ys}});
        out.push_back({x, y});
    }
    return out;
}

bool is_space(long c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xA0 || c == 0x3000; }

// One code point that is punctuation or a symbol (ASCII punctuation, U+2000..U+2BFF:
// general punctuation, arrows, mathematical and technical symbols; CJK punctuation).
bool is_symbol(long c) {
    if (c < 0x80) return c > ' ' && c < 0x7F && !std::isalnum(static_cast<int>(c));
    return (c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3001 && c <= 0x303F);
}

// "x,y; x,y" -> [[x, y], ...] (ranges are validate_points' job). Empty items between
// semicolons are skipped, so "1,2;" and "" read as one and no points.
Expected<json> parse_points_text(const ParamSpec& s, const std::string& text) {
    json out = json::array();
    size_t start = 0;
    int k = 0;
    while (start <= text.size()) {
        const size_t semi = std::min(text.find(';', start), text.size());
        const std::string item = trim(text.substr(start, semi - start));
        start = semi + 1;
        if (item.empty()) continue;
        ++k;
        if (k > s.max_count + 1) break;  // enough to name the count; the rest is not read
        const auto comma = item.find(',');
        const std::string index = std::to_string(k);
        if (comma == std::string::npos || item.find(',', comma + 1) != std::string::npos)
            return bad_point(s, "form", {{"index", index}, {"item", item}});
        double xy[2];
        const std::string parts[2] = {trim(item.substr(0, comma)), trim(item.substr(comma + 1))};
        for (int c = 0; c < 2; ++c) {
            if (read_number(parts[c], xy[c], kParamNumber) != NumberRead::ok)
                return bad_point(s, c == 0 ? "x_not_number" : "y_not_number", {{"index", index}, {"item", item}, {"text", parts[c]}});
        }
        out.push_back({xy[0], xy[1]});
    }
    return out;
}

long ascii_lower(long c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

bool equal_ignoring_case(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(static_cast<unsigned char>(a[i])) != ascii_lower(static_cast<unsigned char>(b[i]))) return false;
    return true;
}

}  // namespace

Expected<std::vector<std::string>> tokenize_text(const ParamSpec& spec, const std::string& raw) {
    if (const size_t bad = utf8_first_invalid(raw); bad != std::string::npos)
        return learner_error("error.text_utf8", {{"name", spec.name}, {"byte", std::to_string(bad + 1)}});
    std::string text;  // "->" read as "→"
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '-' && i + 1 < raw.size() && raw[i + 1] == '>') { text += "\xE2\x86\x92"; ++i; }
        else text += raw[i];
    }
    const std::vector<long> cps = code_points(text);
    if (cps.size() > static_cast<size_t>(spec.max_length))
        return learner_error("error.text_too_long", {{"name", spec.name}, {"length", std::to_string(cps.size())},
                                                     {"max", std::to_string(spec.max_length)}});
    std::vector<long> symbols;  // one-code-point vocabulary words that split off
    for (const auto& w : spec.vocabulary) {
        const auto c = code_points(w);
        if (c.size() == 1 && is_symbol(c[0])) symbols.push_back(c[0]);
    }
    std::vector<std::string> tokens;
    std::string word;
    auto flush = [&] { if (!word.empty()) tokens.push_back(word), word.clear(); };
    for (size_t k = 0; k < cps.size(); ++k) {
        const long c = cps[k];
        if (is_space(c)) { flush(); continue; }
        if ((c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0)))
            return learner_error("error.text_control", {{"name", spec.name},
                                 {"code", [&] { char b[16]; std::snprintf(b, sizeof b, "%04lX", c); return std::string(b); }()},
                                 {"index", std::to_string(k + 1)}});
        if (std::find(symbols.begin(), symbols.end(), c) != symbols.end()) {
            flush();
            utf8_append(word, c);
            flush();
            continue;
        }
        utf8_append(word, c);
    }
    flush();
    if (spec.vocabulary.empty()) return tokens;
    for (size_t t = 0; t < tokens.size(); ++t) {
        const std::string& tok = tokens[t];
        if (std::find(spec.vocabulary.begin(), spec.vocabulary.end(), tok) != spec.vocabulary.end()) continue;
        const std::string* match = nullptr;
        int matches = 0;
        for (const auto& w : spec.vocabulary)
            if (equal_ignoring_case(w, tok)) match = &w, ++matches;
        if (matches == 1) { tokens[t] = *match; continue; }
        std::vector<std::pair<size_t, size_t>> by_distance;  // (distance, vocabulary index)
        for (size_t v = 0; v < spec.vocabulary.size(); ++v)
            by_distance.emplace_back(edit_distance(tok, spec.vocabulary[v]), v);
        std::stable_sort(by_distance.begin(), by_distance.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::string nearest;
        for (size_t n = 0; n < std::min<size_t>(3, by_distance.size()); ++n)
            nearest += (n ? ", " : "") + spec.vocabulary[by_distance[n].second];
        return learner_error("error.text_unknown_word", {{"name", spec.name}, {"word", tok},
                                                         {"index", std::to_string(t + 1)}, {"nearest", nearest}});
    }
    return tokens;
}

int Params::i(const std::string& name) const { return static_cast<int>(numbers.at(name)); }
float Params::f(const std::string& name) const { return static_cast<float>(numbers.at(name)); }
double Params::d(const std::string& name) const { return numbers.at(name); }
bool Params::b(const std::string& name) const { return numbers.at(name) != 0.0; }
const std::string& Params::s(const std::string& name) const { return choices.at(name); }
const std::vector<Point2>& Params::pts(const std::string& name) const { return points.at(name); }
const std::string& Params::text(const std::string& name) const { return texts.at(name); }
const std::vector<std::string>& Params::tokens(const std::string& name) const { return words.at(name); }
const std::vector<int>& Params::token_ids(const std::string& name) const { return word_ids.at(name); }

json Params::to_json() const {
    json j = json::object();
    for (const auto& [k, v] : numbers) j[k] = v;
    for (const auto& [k, v] : choices) j[k] = v;
    for (const auto& [k, v] : points) j[k] = v;
    for (const auto& [k, v] : texts) j[k] = v;
    return j;
}

std::string points_text(const std::vector<Point2>& points) {
    std::string out;
    for (const Point2& p : points) out += (out.empty() ? "" : "; ") + all_digits(p[0]) + "," + all_digits(p[1]);
    return out;
}

// ---- building specs ---------------------------------------------------------------

ParamSpec ParamSpec::integer(std::string name, int min, int max, int default_value, int step) {
    ParamSpec s;
    s.name = std::move(name);
    s.type = ParamType::Int;
    s.min = min;
    s.max = max;
    s.default_value = default_value;
    s.step = step;
    return s;
}

ParamSpec ParamSpec::real(std::string name, double min, double max, double default_value, double step) {
    ParamSpec s = integer(std::move(name), 0, 0, 0, 0);
    s.type = ParamType::Float;
    s.min = min;
    s.max = max;
    s.default_value = default_value;
    s.step = step;
    return s;
}

ParamSpec ParamSpec::boolean(std::string name, bool default_value) {
    ParamSpec s = integer(std::move(name), 0, 1, default_value ? 1 : 0, 1);
    s.type = ParamType::Bool;
    return s;
}

ParamSpec ParamSpec::choice(std::string name, std::vector<std::string> choices, std::string default_choice) {
    ParamSpec s = integer(std::move(name), 0, 0, 0, 0);
    s.type = ParamType::Choice;
    s.step = 0;
    s.choices = std::move(choices);
    s.default_choice = std::move(default_choice);
    return s;
}

ParamSpec ParamSpec::text(std::string name, std::string default_text, int max_length,
                          std::vector<std::string> vocabulary) {
    ParamSpec s = integer(std::move(name), 0, 0, 0, 0);
    s.type = ParamType::Text;
    s.step = 0;
    s.default_text = std::move(default_text);
    s.max_length = max_length;
    s.vocabulary = std::move(vocabulary);
    return s;
}

ParamSpec ParamSpec::points(std::string name, Point2 x_range, Point2 y_range, int min_count, int max_count,
                            double snap, std::vector<Point2> default_points) {
    ParamSpec s = integer(std::move(name), 0, 0, 0, 0);
    s.type = ParamType::Points;
    s.min = x_range[0];
    s.max = x_range[1];
    s.y_min = y_range[0];
    s.y_max = y_range[1];
    s.min_count = min_count;
    s.max_count = max_count;
    s.step = snap;
    s.default_points = std::move(default_points);
    return s;
}

Expected<Params> validate_params(const std::vector<ParamSpec>& specs, const json& given) {
    if (!given.is_null() && !given.is_object()) return make_error("parameters must be a JSON object");
    Params out;
    if (given.is_object()) {
        for (const auto& item : given.items()) {
            const bool known = std::any_of(specs.begin(), specs.end(),
                                           [&](const ParamSpec& s) { return s.name == item.key(); });
            if (!known) {
                std::string names;
                for (const auto& s : specs) names += (names.empty() ? "" : ", ") + s.name;
                return learner_error("error.param_unknown", {{"name", item.key()}, {"known", names}});
            }
        }
    }
    for (const auto& s : specs) {
        const bool has = given.is_object() && given.contains(s.name);
        const json v = has ? given.at(s.name) : json();
        switch (s.type) {
            case ParamType::Points: {
                if (!has) { out.points[s.name] = s.default_points; break; }
                // The text form is accepted here too, so a page sends what was typed
                // and the message names the bad point.
                json list = v;
                if (v.is_string()) {
                    auto read = parse_points_text(s, v.get<std::string>());
                    if (!read) return read.error();
                    list = std::move(read.value());
                }
                auto pts = validate_points(s, list);
                if (!pts) return pts.error();
                out.points[s.name] = std::move(pts.value());
                break;
            }
            case ParamType::Text: {
                if (has && !v.is_string()) return bad_param(s, "is not a string");
                auto tokens = tokenize_text(s, has ? v.get<std::string>() : s.default_text);
                if (!tokens) return tokens.error();
                std::string canonical;
                std::vector<int> ids;
                for (const auto& t : tokens.value()) {
                    canonical += (canonical.empty() ? "" : " ") + t;
                    if (!s.vocabulary.empty())
                        ids.push_back(static_cast<int>(std::find(s.vocabulary.begin(), s.vocabulary.end(), t) -
                                                       s.vocabulary.begin()));
                }
                out.texts[s.name] = canonical;
                out.words[s.name] = std::move(tokens.value());
                out.word_ids[s.name] = std::move(ids);
                break;
            }
            case ParamType::Choice: {
                if (!has) {
                    out.choices[s.name] = s.default_choice;
                    break;
                }
                if (!v.is_string()) return bad_param(s, "is not a name");
                const auto name = v.get<std::string>();
                if (std::find(s.choices.begin(), s.choices.end(), name) == s.choices.end()) {
                    std::string choices;
                    for (const auto& c : s.choices) choices += (choices.empty() ? "" : " ") + c;
                    return learner_error("error.param_choice", {{"name", s.name}, {"value", name}, {"choices", choices}});
                }
                out.choices[s.name] = name;
                break;
            }
            case ParamType::Bool: {
                if (!has) { out.numbers[s.name] = s.default_value; break; }
                if (!v.is_boolean()) return bad_param(s, "is not a bool");
                out.numbers[s.name] = v.get<bool>() ? 1.0 : 0.0;
                break;
            }
            default: {
                if (!has) { out.numbers[s.name] = s.default_value; break; }
                if (!v.is_number()) return bad_param(s, "is not a number");
                const double x = v.get<double>();
                if (!std::isfinite(x)) return bad_number(s, "not_finite", all_digits(x));
                if (s.type == ParamType::Int && x != std::floor(x)) return bad_number(s, "not_integer", all_digits(x));
                if (x < s.min || x > s.max) return bad_number(s, "out_of_range", all_digits(x));
                out.numbers[s.name] = x;
            }
        }
    }
    return out;
}

Expected<json> parse_param_strings(const std::vector<ParamSpec>& specs, const std::vector<std::string>& kvs) {
    json out = json::object();
    for (const auto& kv : kvs) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            return learner_error("error.param_form", {{"item", kv}});
        const std::string key = kv.substr(0, eq), text = kv.substr(eq + 1);
        const auto it = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; });
        if (it == specs.end()) {
            out[key] = text;  // validate_params names it as unknown
            continue;
        }
        switch (it->type) {
            case ParamType::Choice:
            case ParamType::Text: out[key] = text; break;
            case ParamType::Points: {
                auto pts = parse_points_text(*it, text);
                if (!pts) return pts.error();
                out[key] = std::move(pts.value());
                break;
            }
            case ParamType::Bool:
                if (text == "true" || text == "1") out[key] = true;
                else if (text == "false" || text == "0") out[key] = false;
                else return learner_error("error.param_not_bool", {{"name", it->name}, {"value", text}});
                break;
            default: {
                // "inf" and "nan" are read, so that validate_params rejects them by name.
                double x = 0;
                if (read_number(text, x, kParamNumber) != NumberRead::ok) return bad_number(*it, "not_number", text);
                out[key] = x;
            }
        }
    }
    return out;
}

// ---- JSON ------------------------------------------------------------------------

json default_json(const ParamSpec& s) {
    switch (s.type) {
        case ParamType::Int: return static_cast<long long>(std::llround(s.default_value));
        case ParamType::Float: return s.default_value;
        case ParamType::Bool: return s.default_value != 0;
        case ParamType::Choice: return s.default_choice;
        case ParamType::Points: return s.default_points;
        case ParamType::Text: return s.default_text;
    }
    return nullptr;
}

json to_json(const ParamSpec& s, const Texts& text) {
    json p = {{"name", s.name}, {"type", type_name(s.type)}, {"help", text("param." + s.name)}};
    if (s.type == ParamType::Points) {
        p["x_min"] = s.min;
        p["x_max"] = s.max;
        p["y_min"] = s.y_min;
        p["y_max"] = s.y_max;
        p["min_count"] = s.min_count;
        p["max_count"] = s.max_count;
        p["step"] = s.step;
    } else if (s.type == ParamType::Choice) {
        p["choices"] = s.choices;
    } else if (s.type == ParamType::Text) {
        p["max_length"] = s.max_length;
        p["vocabulary"] = s.vocabulary;
    } else {
        p["min"] = s.min;
        p["max"] = s.max;
        p["step"] = s.step;
        p["log"] = s.log_scale();
    }
    p["default"] = default_json(s);
    return p;
}

}  // namespace icl
