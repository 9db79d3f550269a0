#include "icl/demo_grid.h"

#include <algorithm>
#include <cmath>

#include "icl/assets.h"
#include "icl/file_read.h"
#include "icl/json_depth.h"

namespace icl::grid {
namespace {

using nlohmann::json;

Status field_error(const std::string& file, const std::string& field, const std::string& what) {
    return make_error(file + ": '" + field + "' " + what);
}

Expected<Axis> read_axis(const json& j, const std::string& file, const char* key) {
    if (!j.contains(key) || !j[key].is_object()) return field_error(file, key, "must be an object {\"param\": ..., \"values\": [...]}").error();
    const json& a = j[key];
    if (!a.contains("param") || !a["param"].is_string()) return field_error(file, std::string(key) + ".param", "must be a parameter's name").error();
    if (!a.contains("values") || !a["values"].is_array() || a["values"].empty() || a["values"].size() > (size_t)kMaxAxis)
        return field_error(file, std::string(key) + ".values", "must be a list of 1 to " + std::to_string(kMaxAxis) + " values").error();
    Axis axis;
    axis.param = a["param"].get<std::string>();
    for (const json& v : a["values"]) axis.values.push_back(v);
    return axis;
}

}  // namespace

bool is_grid(const std::string& json_text) {
    if (json_depth(json_text) > 8) return false;
    const json j = json::parse(json_text, nullptr, false);
    return j.is_object() && j.contains("grid");
}

nlohmann::json cell_params(const Grid& g, int r, int c) {
    json p = g.set;
    p[g.rows.param] = g.rows.values[(size_t)r];
    p[g.cols.param] = g.cols.values[(size_t)c];
    return p;
}

Expected<Grid> parse(const std::string& json_text, const std::string& file) {
    if (json_text.size() > file_limits::kRecipe) return make_error(file + ": larger than a grid file may be");
    if (json_depth(json_text) > 8) return make_error(file + ": nested too deep for a grid file");
    const json j = json::parse(json_text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return make_error(file + ": not a JSON object");
    Grid g;
    if (!j.contains("grid") || !j["grid"].is_string() || j["grid"].get<std::string>().empty())
        return field_error(file, "grid", "must be the grid's name").error();
    g.name = j["grid"].get<std::string>();
    if (!j.contains("demo") || !j["demo"].is_string()) return field_error(file, "demo", "must be a demo's id").error();
    g.demo = j["demo"].get<std::string>();
    const DemoDef* def = find_demo(g.demo);
    if (!def) return field_error(file, "demo", "names no demo ('" + g.demo + "')").error();
    if (j.contains("seed")) {
        if (!j["seed"].is_number_unsigned()) return field_error(file, "seed", "must be a whole number ≥ 0").error();
        g.seed = j["seed"].get<uint64_t>();
    }
    if (j.contains("set")) {
        if (!j["set"].is_object()) return field_error(file, "set", "must be an object of parameters").error();
        g.set = j["set"];
    }
    auto rows = read_axis(j, file, "rows");
    if (!rows) return rows.error();
    auto cols = read_axis(j, file, "cols");
    if (!cols) return cols.error();
    g.rows = rows.value();
    g.cols = cols.value();
    if (g.rows.param == g.cols.param) return field_error(file, "cols.param", "must differ from rows.param").error();
    for (const Axis* a : {&g.rows, &g.cols})
        if (g.set.contains(a->param)) return field_error(file, "set", "must not hold '" + a->param + "', an axis of the grid").error();
    for (int r = 0; r < g.row_count(); ++r)
        for (int c = 0; c < g.col_count(); ++c)
            if (auto p = validate_params(def->params, cell_params(g, r, c)); !p)
                return make_error(file + ": cell (" + g.rows.param + " = " + g.rows.values[(size_t)r].dump() + ", " + g.cols.param +
                                  " = " + g.cols.values[(size_t)c].dump() + "): " + p.error().message);
    if (!j.contains("read") || !j["read"].is_array() || j["read"].empty())
        return field_error(file, "read", "must list the scalars kept per cell").error();
    for (const json& n : j["read"]) {
        if (!n.is_string()) return field_error(file, "read", "must hold scalar names").error();
        g.read.push_back(n.get<std::string>());
    }
    if (j.contains("tolerance")) {
        if (!j["tolerance"].is_number() || !(j["tolerance"].get<double>() >= 0)) return field_error(file, "tolerance", "must be a number ≥ 0").error();
        g.tolerance = j["tolerance"].get<double>();
    }
    if (j.contains("seconds") && j["seconds"].is_number()) g.seconds = j["seconds"].get<double>();
    if (j.contains("cells") && !(j["cells"].is_array() && j["cells"].empty())) {
        const size_t n = (size_t)g.row_count() * (size_t)g.col_count();
        if (!j["cells"].is_array() || j["cells"].size() != n)
            return field_error(file, "cells", "must hold rows × cols = " + std::to_string(n) + " objects").error();
        for (size_t i = 0; i < n; ++i) {
            const json& cell = j["cells"][i];
            std::map<std::string, double> figures;
            for (const std::string& name : g.read) {
                if (!cell.is_object() || !cell.contains(name) || !cell[name].is_number())
                    return field_error(file, "cells[" + std::to_string(i) + "]." + name, "must be a number").error();
                figures[name] = cell[name].get<double>();
            }
            g.cells.push_back(std::move(figures));
        }
    }
    return g;
}

nlohmann::json to_json(const Grid& g) {
    json j;
    j["grid"] = g.name;
    j["demo"] = g.demo;
    j["seed"] = g.seed;
    j["set"] = g.set;
    j["rows"] = {{"param", g.rows.param}, {"values", g.rows.values}};
    j["cols"] = {{"param", g.cols.param}, {"values", g.cols.values}};
    j["read"] = g.read;
    j["tolerance"] = g.tolerance;
    json cells = json::array();
    for (const auto& figures : g.cells) {
        json cell = json::object();
        for (const auto& [k, v] : figures) cell[k] = std::round(v * 1e4) / 1e4;
        cells.push_back(cell);
    }
    j["cells"] = cells;
    j["seconds"] = std::round(g.seconds * 10) / 10;
    return j;
}

Expected<std::map<std::string, double>> run_cell(const Grid& g, int r, int c, const Texts& text) {
    auto s = start_demo(g.demo, cell_params(g, r, c), text, g.seed);
    if (!s) return s.error();
    Session& session = *s.value();
    while (!session.done() && session.error().empty()) session.step(64);
    if (!session.error().empty()) return make_error(session.error());
    const Result result = session.result();
    std::map<std::string, double> figures;
    for (const Panel& p : result.panels)
        if (const auto* sc = std::get_if<ScalarsPanel>(&p))
            for (const Scalar& item : sc->items)
                if (std::find(g.read.begin(), g.read.end(), item.name) != g.read.end()) figures[item.name] = item.value;
    for (const std::string& name : g.read)
        if (!figures.count(name)) return make_error(g.demo + " reported no scalar '" + name + "'");
    return figures;
}

namespace {

// Whether `params` holds `value` for `name` (a number within 1e-9, or a choice by name).
bool same_value(const Params& params, const std::string& name, const json& value) {
    if (auto it = params.numbers.find(name); it != params.numbers.end()) {
        if (value.is_boolean()) return it->second == (value.get<bool>() ? 1.0 : 0.0);
        return value.is_number() && std::fabs(it->second - value.get<double>()) <= 1e-9;
    }
    if (auto it = params.choices.find(name); it != params.choices.end()) return value.is_string() && it->second == value.get<std::string>();
    return false;
}

}  // namespace

CellIndex cell_of(const Grid& g, const Params& params) {
    CellIndex at;
    for (int r = 0; r < g.row_count() && at.row < 0; ++r)
        if (same_value(params, g.rows.param, g.rows.values[(size_t)r])) at.row = r;
    for (int c = 0; c < g.col_count() && at.col < 0; ++c)
        if (same_value(params, g.cols.param, g.cols.values[(size_t)c])) at.col = c;
    if (at.row < 0 || at.col < 0) return CellIndex{};
    return at;
}

std::vector<std::string> differences(const Grid& g, const Params& params) {
    std::vector<std::string> names;
    const DemoDef* def = find_demo(g.demo);
    if (!def) return names;
    auto grid_params = validate_params(def->params, cell_params(g, 0, 0));  // parse checked every cell
    if (!grid_params) return names;
    const Params& mine = grid_params.value();
    for (const auto& [name, v] : mine.numbers)
        if (name != g.rows.param && name != g.cols.param && !same_value(params, name, json(v))) names.push_back(name);
    for (const auto& [name, v] : mine.choices)
        if (name != g.rows.param && name != g.cols.param && !same_value(params, name, json(v))) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

Expected<Grid> load_shipped(const std::string& name) {
    const std::string asset = "checkpoints/" + name + ".json";
    auto bytes = get_asset(asset);
    if (!bytes) return make_error(bytes.error().message);
    return parse(std::string(bytes.value()->begin(), bytes.value()->end()), asset);
}

}  // namespace icl::grid
