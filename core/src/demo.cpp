#include "icl/demo.h"
#include "icl/demo_memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace icl {

using nlohmann::json;

Expected<Lang> parse_lang(const std::string& s) {
    if (s == "en") return Lang::en;
    if (s == "ko") return Lang::ko;
    return make_error("unknown language '" + s + "' (expected en or ko)");
}

// ---- parameters ----------------------------------------------------------------

namespace {

const char* type_name(ParamType t) {
    switch (t) {
        case ParamType::Int: return "int";
        case ParamType::Float: return "float";
        case ParamType::Bool: return "bool";
        default: return "choice";
    }
}

std::string number_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

std::string range_text(const ParamSpec& s) {
    switch (s.type) {
        case ParamType::Bool: return "true or false";
        case ParamType::Choice: {
            std::string out = "one of";
            for (const auto& c : s.choices) out += " " + c;
            return out;
        }
        case ParamType::Int: return "an integer in [" + number_text(s.min) + ", " + number_text(s.max) + "]";
        default: return "a number in [" + number_text(s.min) + ", " + number_text(s.max) + "]";
    }
}

Error bad_param(const ParamSpec& s, const std::string& what) {
    return make_error("parameter '" + s.name + "' " + what + ": expected " + range_text(s));
}

}  // namespace

int Params::i(const std::string& name) const { return static_cast<int>(numbers.at(name)); }
float Params::f(const std::string& name) const { return static_cast<float>(numbers.at(name)); }
double Params::d(const std::string& name) const { return numbers.at(name); }
bool Params::b(const std::string& name) const { return numbers.at(name) != 0.0; }
const std::string& Params::s(const std::string& name) const { return choices.at(name); }

json Params::to_json() const {
    json j = json::object();
    for (const auto& [k, v] : numbers) j[k] = v;
    for (const auto& [k, v] : choices) j[k] = v;
    return j;
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
                return make_error("unknown parameter '" + item.key() + "' (known: " + names + ")");
            }
        }
    }
    for (const auto& s : specs) {
        const bool has = given.is_object() && given.contains(s.name);
        const json v = has ? given.at(s.name) : json();
        switch (s.type) {
            case ParamType::Choice: {
                if (!has) {
                    out.choices[s.name] = s.choices.at(static_cast<size_t>(s.default_value));
                    break;
                }
                if (!v.is_string()) return bad_param(s, "is not a name");
                const auto name = v.get<std::string>();
                if (std::find(s.choices.begin(), s.choices.end(), name) == s.choices.end())
                    return bad_param(s, "is '" + name + "'");
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
                if (!std::isfinite(x)) return bad_param(s, "is not finite");
                if (s.type == ParamType::Int && x != std::floor(x))
                    return bad_param(s, "= " + number_text(x) + " is not an integer");
                if (x < s.min || x > s.max) return bad_param(s, "= " + number_text(x) + " is out of range");
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
            return make_error("'" + kv + "' is not of the form name=value");
        const std::string key = kv.substr(0, eq), text = kv.substr(eq + 1);
        const auto it = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; });
        if (it == specs.end()) {
            out[key] = text;  // validate_params names it as unknown
            continue;
        }
        switch (it->type) {
            case ParamType::Choice: out[key] = text; break;
            case ParamType::Bool:
                if (text == "true" || text == "1") out[key] = true;
                else if (text == "false" || text == "0") out[key] = false;
                else return bad_param(*it, "= '" + text + "' is not a bool");
                break;
            default: {
                // strtod accepts what JSON does and more ("inf", "nan", "0x1p3");
                // validate_params then rejects the non-finite ones by name.
                char* end = nullptr;
                const double x = std::strtod(text.c_str(), &end);
                if (text.empty() || end != text.c_str() + text.size())
                    return bad_param(*it, "= '" + text + "' is not a number");
                out[key] = x;
            }
        }
    }
    return out;
}

// ---- results ---------------------------------------------------------------------

namespace {

json num(double v) { return std::isfinite(v) ? json(v) : json(); }
json nums(const std::vector<double>& v) {
    json a = json::array();
    for (double x : v) a.push_back(num(x));
    return a;
}

struct PanelToJson {
    json operator()(const ScalarsPanel& p) const {
        json items = json::array();
        for (const auto& s : p.items)
            items.push_back({{"name", s.name}, {"value", num(s.value)}, {"unit", s.unit}, {"help", s.help}});
        return {{"kind", "scalars"}, {"title", p.title}, {"items", items}};
    }
    json operator()(const LinesPanel& p) const {
        json series = json::array();
        for (const auto& s : p.series)
            series.push_back({{"name", s.name}, {"x", nums(s.x)}, {"y", nums(s.y)}, {"y_err", nums(s.y_err)},
                              {"dashed", s.dashed}});
        return {{"kind", "lines"}, {"title", p.title}, {"x_label", p.x_label}, {"y_label", p.y_label},
                {"log_x", p.log_x}, {"log_y", p.log_y}, {"series", series}};
    }
    json operator()(const HeatmapPanel& p) const {
        return {{"kind", "heatmap"}, {"title", p.title}, {"x_label", p.x_label}, {"y_label", p.y_label},
                {"rows", p.rows}, {"cols", p.cols}, {"values", nums(p.values)},
                {"row_labels", p.row_labels}, {"col_labels", p.col_labels},
                {"scale", p.diverging ? "diverging" : "sequential"}};
    }
    json operator()(const BarsPanel& p) const {
        return {{"kind", "bars"}, {"title", p.title}, {"y_label", p.y_label}, {"labels", p.labels},
                {"values", nums(p.values)}, {"errors", nums(p.errors)}};
    }
    json operator()(const TablePanel& p) const {
        return {{"kind", "table"}, {"title", p.title}, {"columns", p.columns}, {"rows", p.rows}};
    }
    json operator()(const NotePanel& p) const {
        return {{"kind", "note"}, {"title", p.title}, {"text", p.text}};
    }
};

std::string fmt(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

struct PanelToText {
    std::ostringstream& out;
    void operator()(const ScalarsPanel& p) const {
        out << "[" << p.title << "]\n";
        for (const auto& s : p.items) out << "  " << s.name << " = " << fmt(s.value) << (s.unit.empty() ? "" : " ") << s.unit << "\n";
    }
    void operator()(const LinesPanel& p) const {
        out << "[" << p.title << "] " << p.y_label << " vs " << p.x_label << "\n";
        for (const auto& s : p.series) {
            out << "  " << s.name << ": " << s.x.size() << " points";
            if (!s.y.empty()) out << ", first " << fmt(s.y.front()) << ", last " << fmt(s.y.back());
            out << "\n";
        }
    }
    void operator()(const HeatmapPanel& p) const {
        out << "[" << p.title << "] heatmap " << p.rows << "x" << p.cols << "\n";
        const int show_rows = std::min(p.rows, 8), show_cols = std::min(p.cols, 10);
        for (int r = 0; r < show_rows; ++r) {
            out << "  ";
            for (int c = 0; c < show_cols; ++c) out << fmt(p.values[static_cast<size_t>(r) * p.cols + c]) << " ";
            out << (p.cols > show_cols ? "...\n" : "\n");
        }
        if (p.rows > show_rows) out << "  ...\n";
    }
    void operator()(const BarsPanel& p) const {
        out << "[" << p.title << "]\n";
        for (size_t i = 0; i < p.labels.size(); ++i) {
            out << "  " << p.labels[i] << ": " << fmt(p.values[i]);
            if (i < p.errors.size()) out << " ± " << fmt(p.errors[i]);
            out << "\n";
        }
    }
    void operator()(const TablePanel& p) const {
        out << "[" << p.title << "]\n  ";
        for (const auto& c : p.columns) out << c << " | ";
        out << "\n";
        for (const auto& row : p.rows) {
            out << "  ";
            for (const auto& c : row) out << c << " | ";
            out << "\n";
        }
    }
    void operator()(const NotePanel& p) const { out << "[" << p.title << "] " << p.text << "\n"; }
};

}  // namespace

json to_json(const Result& r) {
    json panels = json::array();
    for (const auto& p : r.panels) panels.push_back(std::visit(PanelToJson{}, p));
    return {{"demo", r.demo}, {"progress", num(r.progress)}, {"done", r.done}, {"error", r.error},
            {"panels", panels}};
}

std::string to_text(const Result& r) {
    std::ostringstream out;
    out << r.demo << (r.done ? " (done)" : " (running)") << "\n";
    if (!r.error.empty()) out << "error: " << r.error << "\n";
    for (const auto& p : r.panels) std::visit(PanelToText{out}, p);
    return out.str();
}

// ---- registry --------------------------------------------------------------------

json to_json(const DemoDef& def, Lang lang) {
    json params = json::array();
    for (const auto& s : def.params) {
        json p = {{"name", s.name}, {"type", type_name(s.type)}, {"help", lang == Lang::ko ? s.help_ko : s.help_en}};
        if (s.type == ParamType::Choice) {
            p["choices"] = s.choices;
            p["default"] = s.choices.at(static_cast<size_t>(s.default_value));
        } else if (s.type == ParamType::Bool) {
            p["default"] = s.default_value != 0.0;
        } else {
            p["min"] = s.min;
            p["max"] = s.max;
            p["default"] = s.default_value;
            p["step"] = s.step;
        }
        params.push_back(p);
    }
    return {{"id", def.id}, {"title", lang == Lang::ko ? def.title_ko : def.title_en},
            {"summary", lang == Lang::ko ? def.summary_ko : def.summary_en}, {"paper", def.paper},
            {"analytic", def.analytic}, {"assets", def.assets}, {"params", params}};
}

namespace {
std::vector<const DemoDef*>& registry() {
    static std::vector<const DemoDef*> demos;
    return demos;
}
}  // namespace

void register_demo(const DemoDef* def) {
    auto& demos = registry();
    const auto at = std::lower_bound(demos.begin(), demos.end(), def,
                                     [](const DemoDef* a, const DemoDef* b) { return a->id < b->id; });
    demos.insert(at, def);
}

const std::vector<const DemoDef*>& all_demos() { return registry(); }

namespace {
std::map<std::string, PeakBytesFn>& peak_registry() {
    static std::map<std::string, PeakBytesFn> m;
    return m;
}
}  // namespace

void register_peak_bytes(const std::string& demo_id, PeakBytesFn fn) { peak_registry()[demo_id] = fn; }

PeakBytesFn find_peak_bytes(const std::string& demo_id) {
    const auto it = peak_registry().find(demo_id);
    return it == peak_registry().end() ? nullptr : it->second;
}

const DemoDef* find_demo(const std::string& id) {
    for (const DemoDef* d : registry())
        if (d->id == id) return d;
    return nullptr;
}

Expected<std::unique_ptr<Session>> start_demo(const std::string& id, const json& params, Lang lang,
                                              uint64_t seed) {
    const DemoDef* def = find_demo(id);
    if (!def) {
        std::string ids;
        for (const DemoDef* d : registry()) ids += (ids.empty() ? "" : ", ") + d->id;
        return make_error("unknown demo '" + id + "' (known: " + ids + ")");
    }
    auto validated = validate_params(def->params, params);
    if (!validated) return make_error(id + ": " + validated.error().message);
    if (const PeakBytesFn peak_bytes = find_peak_bytes(id)) {
        const size_t need = peak_bytes(validated.value());
        if (need > kDemoMemoryBudget) {
            // The sizes set above their defaults are what to lower.
            std::string raised;
            for (const ParamSpec& s : def->params)
                if ((s.type == ParamType::Int || s.type == ParamType::Float) && validated.value().d(s.name) > s.default_value)
                    raised += (raised.empty() ? "" : ", ") + s.name + " = " + validated.value().to_json()[s.name].dump();
            return make_error(id + ": these parameters need about " + std::to_string(need >> 20) + " MiB, over the " +
                              std::to_string(kDemoMemoryBudget >> 20) + " MiB a demo may use" +
                              (raised.empty() ? "" : " (lower one of " + raised + ")"));
        }
    }
    return def->start(DemoContext{std::move(validated.value()), lang, seed});
}

}  // namespace icl
