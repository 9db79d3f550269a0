// Demo grids (icl/demo_grid.h) and the emergence lab's phase diagram: a grid cell is the
// demo's own run with the cell's parameters; the shipped background holds what its
// command produces; a learner's run lands in the cell of its knobs, marked, and fills it
// with its own figures; a grid file the command cannot honour is refused, naming the field.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "demo_testing.h"
#include "icl/demo_grid.h"

using namespace icl;

namespace {

// A small grid of the emergence lab: 1 seed, 40 steps a cell.
std::string small_grid_text(const std::string& extra = "") {
    return R"({"grid": "g", "demo": "emergence_lab", "seed": 2,
               "set": {"steps": 40, "seeds": 1, "eval_every": 20, "classes": 32, "width": 8, "dim": 4)" +
           extra + R"(},
               "rows": {"param": "burstiness", "values": [0, 2]},
               "cols": {"param": "zipf", "values": [0, 1.5]},
               "read": ["icl_acc", "iwl_acc"]})";
}

std::vector<const HeatmapPanel*> heatmaps(const Result& r) {
    std::vector<const HeatmapPanel*> v;
    for (const Panel& p : r.panels)
        if (const auto* h = std::get_if<HeatmapPanel>(&p)) v.push_back(h);
    return v;
}

// The scalar `name` of the result's scalars panel (the lab opens with its headline note).
double lab_scalar(const Result& r, const std::string& name) {
    for (const Panel& p : r.panels)
        if (const auto* sc = std::get_if<ScalarsPanel>(&p))
            for (const Scalar& item : sc->items)
                if (item.name == name) return item.value;
    FAIL("no scalar named " << name);
    return 0;
}

}  // namespace

TEST_CASE("demo grid: a cell is the demo started with the grid's knobs and the cell's values") {
    auto g = grid::parse(small_grid_text(), "g.json");
    REQUIRE_MESSAGE(g.ok(), (g.ok() ? "" : g.error().message));
    auto cell = grid::run_cell(g.value(), 1, 1, testing::texts("en", "emergence_lab"));
    REQUIRE_MESSAGE(cell.ok(), (cell.ok() ? "" : cell.error().message));
    // the same run through the demo's entry point, its knobs written out by hand
    const Result direct = testing::run_demo("emergence_lab", {{"steps", 40}, {"seeds", 1}, {"eval_every", 20}, {"classes", 32},
                                                              {"width", 8}, {"dim", 4}, {"burstiness", 2}, {"zipf", 1.5}},
                                            "en", 2);
    CHECK(cell.value().at("icl_acc") == lab_scalar(direct, "icl_acc"));
    CHECK(cell.value().at("iwl_acc") == lab_scalar(direct, "iwl_acc"));
    CHECK(cell.value().size() == 2);
}

TEST_CASE("demo grid: the shipped emergence grid holds what `icl train` produces for its cells") {
    testing::use_shipped_lessons();
    auto g = grid::load_shipped("emergence_grid");
    REQUIRE_MESSAGE(g.ok(), (g.ok() ? "" : g.error().message));
    const grid::Grid& shipped = g.value();
    REQUIRE(shipped.cells.size() == (size_t)(shipped.row_count() * shipped.col_count()));
    CHECK(shipped.tolerance <= 0.05);
    if (testing::kSanitized || testing::kWasm) return;  // 6000 training steps: the native builds run it
    // one cell where weights, not context, win (B = 0, α = 1): a wrong file or a changed
    // training path moves its IWL accuracy far past the tolerance
    int row = -1, col = -1;
    for (int r = 0; r < shipped.row_count(); ++r)
        if (shipped.rows.values[(size_t)r] == 0) row = r;
    for (int c = 0; c < shipped.col_count(); ++c)
        if (shipped.cols.values[(size_t)c] == 1) col = c;
    REQUIRE(row >= 0);
    REQUIRE(col >= 0);
    auto cell = grid::run_cell(shipped, row, col, testing::texts("en", "emergence_lab"));
    REQUIRE_MESSAGE(cell.ok(), (cell.ok() ? "" : cell.error().message));
    const auto& recorded = shipped.cells[(size_t)(row * shipped.col_count() + col)];
    for (const std::string& name : shipped.read) {
        INFO(name);
        CHECK(std::fabs(cell.value().at(name) - recorded.at(name)) <= shipped.tolerance);
    }
    CHECK(recorded.at("iwl_acc") > 0.5);  // the cell is one where IWL won
}

TEST_CASE("emergence_lab: the phase diagram marks the run's cell, empty until it ends, then its own figures") {
    testing::use_shipped_lessons();
    auto g = grid::load_shipped("emergence_grid");
    REQUIRE(g.ok());
    const grid::Grid& shipped = g.value();
    // B = 2, α = 1: row 2 and column 1 of the shipped axes (0, 1, 2, 4) × (0, 1, 2)
    REQUIRE(shipped.rows.values.size() == 4);
    REQUIRE(shipped.rows.values[2] == 2);
    REQUIRE(shipped.cols.values[1] == 1);
    const nlohmann::json params = {{"burstiness", 2}, {"zipf", 1}, {"steps", 20}, {"seeds", 1}, {"eval_every", 10}};
    auto session = start_demo("emergence_lab", params, testing::texts("en", "emergence_lab"), 1);
    REQUIRE(session.ok());
    const Result before = session.value()->result();
    auto maps = heatmaps(before);
    REQUIRE(maps.size() == 2);
    const int at = 2 * 3 + 1;
    CHECK(std::isnan(maps[0]->values[(size_t)at]));
    const Result r = testing::run_demo("emergence_lab", params);
    maps = heatmaps(r);
    REQUIRE(maps.size() == 2);
    const char* keys[2] = {"icl_acc", "iwl_acc"};
    for (int k = 0; k < 2; ++k) {
        const HeatmapPanel& h = *maps[(size_t)k];
        REQUIRE(h.rows == 4);
        REQUIRE(h.cols == 3);
        for (int i = 0; i < 4; ++i) CHECK((h.row_labels[(size_t)i].find("●") != std::string::npos) == (i == 2));
        for (int j = 0; j < 3; ++j) CHECK((h.col_labels[(size_t)j].find("●") != std::string::npos) == (j == 1));
        for (int i = 0; i < 12; ++i) {
            if (i == at) CHECK(h.values[(size_t)i] == lab_scalar(r, keys[k]));
            else CHECK(h.values[(size_t)i] == shipped.cells[(size_t)i].at(keys[k]));
        }
    }
    // the note names the knobs where the run differs from the background (steps), not seeds or eval_every
    const auto& note = std::get<NotePanel>(r.panels.back());
    CHECK(note.text.find("steps") != std::string::npos);
    CHECK(note.text.find("eval_every") == std::string::npos);
    // B = 3 is off the grid: no mark, the background alone
    const Result off = testing::run_demo("emergence_lab", {{"burstiness", 3}, {"steps", 20}, {"seeds", 1}});
    for (const HeatmapPanel* h : heatmaps(off)) {
        for (const std::string& l : h->row_labels) CHECK(l.find("●") == std::string::npos);
        for (int i = 0; i < 12; ++i) CHECK(std::isfinite(h->values[(size_t)i]));
    }
}

TEST_CASE("demo grid: a file the command cannot honour is refused, naming the field") {
    auto refused = [](const std::string& text, const std::string& words) {
        auto g = grid::parse(text, "g.json");
        REQUIRE_FALSE(g.ok());
        CHECK_MESSAGE(g.error().message.find(words) != std::string::npos, g.error().message << " lacks " << words);
    };
    refused(R"({"grid": "g", "demo": "no_such_demo"})", "'demo' names no demo");
    refused(small_grid_text(R"(, "burstiness": 2)"), "'set' must not hold 'burstiness'");
    refused(R"({"grid": "g", "demo": "emergence_lab", "rows": {"param": "burstiness", "values": [0, 9]},
                "cols": {"param": "zipf", "values": [0]}, "read": ["icl_acc"]})",
            "cell (burstiness = 9, zipf = 0)");
    refused(R"({"grid": "g", "demo": "emergence_lab", "rows": {"param": "burstiness", "values": []},
                "cols": {"param": "zipf", "values": [0]}, "read": ["icl_acc"]})",
            "'rows.values' must be a list of 1 to 8 values");
    std::string cells = small_grid_text();
    cells.insert(cells.rfind('}'), R"(, "cells": [{"icl_acc": 1, "iwl_acc": 0}])");
    refused(cells, "'cells' must hold rows × cols = 4 objects");
    CHECK(grid::is_grid(small_grid_text()));
    CHECK_FALSE(grid::is_grid(R"({"name": "tasks"})"));
}
