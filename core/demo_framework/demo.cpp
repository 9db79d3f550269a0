// Demos: results as JSON and text, the Session's header, the registry and start_demo.
// Parameters (ParamSpec, validation) are params.cpp.
#include "icl/demo.h"
#include "icl/lane_state.h"
#include "icl/demo_memory.h"
#include "icl/result_layout.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "icl/format.h"

namespace icl {

using nlohmann::json;

// ---- results ---------------------------------------------------------------------

json json_number(double v) { return std::isfinite(v) ? json(v) : json(); }
json json_numbers(const std::vector<double>& v) {
    json a = json::array();
    for (double x : v) a.push_back(json_number(x));
    return a;
}

Expected<std::vector<double>> read_json_numbers(const json& j, const char* key, long n) {
    const std::string what = std::string("'") + key + "'";
    if (!j.is_object() || !j.contains(key)) return make_error(what + " is not a list");
    return read_json_list(j[key], what, n);
}

Expected<double> read_json_number(const json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || !(j[key].is_null() || j[key].is_number()))
        return make_error(std::string("'") + key + "' is not a number");
    return j[key].is_null() ? NAN : j[key].get<double>();
}

Status read_lane_header(const json& state, long long max_steps, long long& steps, std::string& error) {
    if (!state.is_object() || !state.contains("steps") || !state["steps"].is_number_integer() ||
        state["steps"].get<long long>() < 0 || state["steps"].get<long long>() > max_steps)
        return make_error("'steps' is not a whole number of steps from 0 to " + std::to_string(max_steps));
    if (!state.contains("error") || !state["error"].is_string()) return make_error("'error' is not a text");
    steps = state["steps"].get<long long>();
    error = state["error"].get<std::string>();
    return Ok{};
}

namespace {

struct PanelToJson {
    json operator()(const ScalarsPanel& p) const {
        json items = json::array();
        for (const auto& s : p.items)
            items.push_back({{"name", s.name}, {"value", json_number(s.value)}, {"unit", s.unit}, {"help", s.help},
                             {"label", s.label}, {"text", s.text}});
        return {{"kind", "scalars"}, {"title", p.title}, {"items", items}};
    }
    json operator()(const LinesPanel& p) const {
        json series = json::array();
        for (const auto& s : p.series)
            series.push_back({{"name", s.name}, {"x", json_numbers(s.x)}, {"y", json_numbers(s.y)}, {"y_err", json_numbers(s.y_err)},
                              {"dashed", s.dashed}, {"markers", s.markers}});
        json out = {{"kind", "lines"}, {"title", p.title}, {"x_label", p.x_label}, {"y_label", p.y_label},
                    {"log_x", p.log_x}, {"log_y", p.log_y}, {"series", series}};
        if (!p.beside.empty()) out["beside"] = p.beside;
        return out;
    }
    json operator()(const HeatmapPanel& p) const {
        return {{"kind", "heatmap"}, {"title", p.title}, {"x_label", p.x_label}, {"y_label", p.y_label},
                {"rows", p.rows}, {"cols", p.cols}, {"values", json_numbers(p.values)},
                {"row_labels", p.row_labels}, {"col_labels", p.col_labels},
                {"scale", p.diverging ? "diverging" : "sequential"}};
    }
    json operator()(const BarsPanel& p) const {
        json out = {{"kind", "bars"}, {"title", p.title}, {"y_label", p.y_label}, {"labels", p.labels},
                    {"values", json_numbers(p.values)}, {"errors", json_numbers(p.errors)}};
        if (!p.beside.empty()) out["beside"] = p.beside;
        return out;
    }
    json operator()(const TablePanel& p) const {
        return {{"kind", "table"}, {"title", p.title}, {"columns", p.columns}, {"rows", p.rows}};
    }
    json operator()(const NotePanel& p) const {
        return {{"kind", "note"}, {"title", p.title}, {"text", p.text}};
    }
};

struct PanelToText {
    std::ostringstream& out;
    void operator()(const ScalarsPanel& p) const {
        out << "[" << p.title << "]\n";
        for (const auto& s : p.items) out << "  " << s.name << " = " << format_number(s.value, "%.6g") << (s.unit.empty() ? "" : " ") << s.unit << "\n";
    }
    void operator()(const LinesPanel& p) const {
        out << "[" << p.title << "] " << p.y_label << " vs " << p.x_label << "\n";
        for (const auto& s : p.series) {
            out << "  " << s.name << ": " << s.x.size() << " points";
            if (!s.y.empty()) out << ", first " << format_number(s.y.front(), "%.6g") << ", last " << format_number(s.y.back(), "%.6g");
            out << "\n";
        }
    }
    void operator()(const HeatmapPanel& p) const {
        out << "[" << p.title << "] heatmap " << p.rows << "x" << p.cols << "\n";
        const int show_rows = std::min(p.rows, 8), show_cols = std::min(p.cols, 10);
        for (int r = 0; r < show_rows; ++r) {
            out << "  ";
            for (int c = 0; c < show_cols; ++c) out << format_number(p.values[static_cast<size_t>(r) * p.cols + c], "%.6g") << " ";
            out << (p.cols > show_cols ? "...\n" : "\n");
        }
        if (p.rows > show_rows) out << "  ...\n";
    }
    void operator()(const BarsPanel& p) const {
        out << "[" << p.title << "]\n";
        for (size_t i = 0; i < p.labels.size(); ++i) {
            out << "  " << p.labels[i] << ": " << format_number(p.values[i], "%.6g");
            if (i < p.errors.size()) out << " ± " << format_number(p.errors[i], "%.6g");
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

std::vector<size_t> lead_panels(const std::vector<Panel>& panels) {
    const auto beside = [](const Panel& p) {
        if (const auto* l = std::get_if<LinesPanel>(&p)) return !l->beside.empty();
        if (const auto* b = std::get_if<BarsPanel>(&p)) return !b->beside.empty();
        return false;
    };
    const auto chart = [](const Panel& p) {
        return std::holds_alternative<LinesPanel>(p) || std::holds_alternative<HeatmapPanel>(p) ||
               std::holds_alternative<BarsPanel>(p) || std::holds_alternative<TablePanel>(p);
    };
    std::vector<size_t> lead;
    const auto first = [&](auto is) {
        for (size_t k = 0; k < panels.size(); ++k)
            if (!beside(panels[k]) && is(panels[k])) return k;
        return panels.size();
    };
    const size_t scalars = first([](const Panel& p) { return std::holds_alternative<ScalarsPanel>(p); });
    if (scalars < panels.size()) lead.push_back(scalars);
    for (size_t k = 0; k < panels.size(); ++k)
        if (std::holds_alternative<NotePanel>(panels[k])) lead.push_back(k);
    if (const size_t main = first(chart); main < panels.size()) lead.push_back(main);
    return lead;
}

json to_json(const Result& r) {
    json panels = json::array();
    for (const auto& p : r.panels) panels.push_back(std::visit(PanelToJson{}, p));
    return {{"demo", r.demo}, {"progress", json_number(r.progress)}, {"done", r.done}, {"error", r.error},
            {"headline", r.headline}, {"panels", panels}, {"lead", lead_panels(r.panels)}};
}

std::string to_text(const Result& r) {
    std::ostringstream out;
    out << r.demo << (r.done ? " (done)" : " (running)") << "\n";
    if (!r.error.empty()) out << "error: " << r.error << "\n";
    if (!r.headline.empty()) out << r.headline << "\n";
    for (const auto& p : r.panels) std::visit(PanelToText{out}, p);
    return out.str();
}

// ---- sessions --------------------------------------------------------------------

namespace {
// A whole number as a catalogue key writes it ("-1", "0", "3"); "" if v is not one.
std::string whole_key(double v) {
    if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 1e9) return "";
    return std::to_string(static_cast<long long>(v));
}
}  // namespace

std::string Session::headline(const std::vector<Panel>& panels) const {
    std::vector<const Scalar*> scalars;
    for (const Panel& p : panels)
        if (const auto* s = std::get_if<ScalarsPanel>(&p))
            for (const Scalar& it : s->items) scalars.push_back(&it);
    std::string key = "result_headline";
    for (const Scalar* s : scalars) {
        const std::string k = whole_key(s->value);
        if (!k.empty() && texts_.has("result_headline." + s->name + "=" + k)) { key = "result_headline." + s->name + "=" + k; break; }
    }
    if (!texts_.has(key)) return "";
    std::vector<std::string> names;  // the args point into these
    names.reserve(2 * scalars.size());
    std::vector<TextArg> args;
    for (const Scalar* s : scalars) {
        if (!std::isfinite(s->value)) continue;
        names.push_back(s->name);
        args.emplace_back(names.back().c_str(), s->value);
        names.push_back(s->name + "_pct");
        args.emplace_back(names.back().c_str(), 100 * s->value);
    }
    const std::string out = fill_template(texts_.messages()[key].get<std::string>(), args);
    return out.find('{') == std::string::npos ? out : "";  // a value it names is missing
}

Result Session::result() const {
    Result r;
    r.demo = demo_id_;
    r.done = done();
    r.progress = progress();
    r.error = error_;
    r.panels = panels();
    // Scalars in words: the catalogue's label (else the help, never the identifier) and
    // the words of a whole value where the catalogue has them.
    for (Panel& p : r.panels)
        if (auto* s = std::get_if<ScalarsPanel>(&p))
            for (Scalar& it : s->items) {
                if (it.label.empty()) it.label = texts_.has("scalar." + it.name) ? texts_("scalar." + it.name) : it.help;
                const std::string k = whole_key(it.value);
                if (it.text.empty() && !k.empty() && texts_.has("scalar." + it.name + "=" + k)) it.text = texts_("scalar." + it.name + "=" + k);
            }
    if (r.error.empty()) r.headline = headline(r.panels);
    // A run whose numbers are not there yet says so rather than opening with nothing.
    if (r.error.empty() && r.headline.empty() && !r.done && texts_.has("result_headline") && texts_.has("result_headline.pending"))
        r.headline = texts_("result_headline.pending");
    return r;
}

Status Session::offload(int lane) {
    return make_error(demo_id_ + " has no lane " + std::to_string(lane) + " to hand to another worker");
}

Status Session::take_lane(int lane, const json&) {
    return make_error(demo_id_ + " computes no lane " + std::to_string(lane) + " elsewhere");
}

// ---- registry --------------------------------------------------------------------

json to_json(const DemoDef& def, const Texts& text, bool with_texts) {
    json params = json::array();
    for (const auto& s : def.params) params.push_back(to_json(s, text));
    json out = {{"id", def.id}, {"title", text("title")}, {"summary", text("summary")}, {"paper", def.paper},
                {"analytic", def.analytic}, {"assets", def.assets}, {"params", params}};
    if (with_texts) out["texts"] = text.messages();
    return out;
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

PeakBytesFn find_peak_bytes(const std::string& demo_id) {
    const DemoDef* def = find_demo(demo_id);
    return def ? def->peak_bytes : nullptr;
}

const DemoDef* find_demo(const std::string& id) {
    for (const DemoDef* d : registry())
        if (d->id == id) return d;
    return nullptr;
}

Expected<Texts> load_texts(const std::string& lang, const std::string& demo_id) {
    return load_catalogue(lang, {"common", demo_id});
}

Expected<std::unique_ptr<Session>> start_demo(const std::string& id, const json& params, const Texts& text,
                                              uint64_t seed, int lane) {
    const DemoDef* def = find_demo(id);
    if (!def) {
        std::string ids;
        for (const DemoDef* d : registry()) ids += (ids.empty() ? "" : ", ") + d->id;
        return make_error("unknown demo '" + id + "' (known: " + ids + ")");
    }
    auto validated = validate_params(def->params, params);
    if (!validated) {  // the message names the demo; the catalogue text, shown beside it, need not
        Error e = validated.error();
        e.message = id + ": " + e.message;
        return e;
    }
    if (const PeakBytesFn peak_bytes = find_peak_bytes(id)) {
        const size_t need = peak_bytes(validated.value());
        if (need > kDemoMemoryBudget) {
            // The sizes set above their defaults are what to lower.
            std::string raised;
            for (const ParamSpec& s : def->params)
                if ((s.type == ParamType::Int || s.type == ParamType::Float) && validated.value().d(s.name) > s.default_value)
                    raised += (raised.empty() ? "" : ", ") + s.name + " = " + validated.value().to_json()[s.name].dump();
            Error e = learner_error(raised.empty() ? "error.memory_budget" : "error.memory_budget_raised",
                                    {{"need", std::to_string(need >> 20)}, {"budget", std::to_string(kDemoMemoryBudget >> 20)},
                                     {"raised", raised}});
            e.message = id + ": " + e.message;
            return e;
        }
    }
    if (lane < 0) return make_error(id + ": lane " + std::to_string(lane) + " is not a lane (0 or more)");
    auto session = def->start(DemoContext{std::move(validated.value()), text, seed, lane});
    if (!session) return session;
    if (lane >= session.value()->lanes())
        return make_error(id + ": these parameters give " + std::to_string(session.value()->lanes()) +
                          " lane(s); there is no lane " + std::to_string(lane));
    session.value()->demo_id_ = def->id;
    session.value()->lane_ = lane;
    session.value()->texts_ = text;
    return session;
}

}  // namespace icl
