// A demo run over a grid of two of its parameters: a stored result (a phase diagram's
// background) that one command reproduces. A grid file sits beside the checkpoint
// recipes (lessons/checkpoints/<name>.json) and `icl train <file>` runs it:
//
//   {"grid": "emergence_grid",                 (its name: the file is <name>.json)
//    "demo": "emergence_lab",
//    "seed": 1,                                (the demo's seed for every cell)
//    "set":  {"steps": 1000, "seeds": 3},      (the other parameters; absent = default)
//    "rows": {"param": "burstiness", "values": [0, 1, 2, 4]},
//    "cols": {"param": "zipf", "values": [0, 1, 2]},
//    "read": ["icl_acc", "iwl_acc"],           (the result's scalars kept per cell)
//    "tolerance": 0.05,                        (|recorded - reproduced| allowed per figure)
//    "cells": [{"icl_acc": 0.98, ...}, ...],   (rows × cols, row-major; written by the command)
//    "seconds": 412.0}                         (written by the command)
//
// Every cell is the demo started with `set` plus its row and column values, stepped to
// the end, so a grid is reproduced by the demo's own code path, bit for bit in the same
// build (another kernel set may train a slightly different model: the tolerance).
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/demo.h"
#include "icl/expected.h"

namespace icl::grid {

struct Axis {
    std::string param;
    std::vector<nlohmann::json> values;  // as the demo's params JSON takes them
};

struct Grid {
    std::string name, demo;
    uint64_t seed = 1;
    nlohmann::json set = nlohmann::json::object();
    Axis rows, cols;
    std::vector<std::string> read;
    double tolerance = 0.05;
    std::vector<std::map<std::string, double>> cells;  // rows × cols once run; empty before
    double seconds = 0;
    int row_count() const { return (int)rows.values.size(); }
    int col_count() const { return (int)cols.values.size(); }
};

// Bounds of a grid file: at most kMaxAxis values an axis (a grid is a background a
// learner's run lands in, not a sweep).
constexpr int kMaxAxis = 8;

// Parses and checks a grid: the demo exists, every cell's parameters pass its
// validation, the recorded cells (if any) are rows × cols objects holding every `read`
// figure. Errors name the file and the field.
Expected<Grid> parse(const std::string& json_text, const std::string& file);
nlohmann::json to_json(const Grid& g);
// Whether a parsed JSON text is a grid file (it has "grid") rather than a checkpoint recipe.
bool is_grid(const std::string& json_text);

// The demo's parameters for cell (r, c): `set` with the row's and the column's values.
nlohmann::json cell_params(const Grid& g, int r, int c);

// Starts the demo for cell (r, c), steps it to the end and reads the `read` scalars.
// Errors: the demo's (a refused knob, a diverged run) or a scalar it did not report.
Expected<std::map<std::string, double>> run_cell(const Grid& g, int r, int c, const Texts& text);

// The cell a run with `params` (validated) lands in: its row and column values equal
// the run's (numbers within 1e-9, choices by name); {-1, -1} if either is off the grid.
struct CellIndex { int row = -1, col = -1; };
CellIndex cell_of(const Grid& g, const Params& params);

// The `set` parameters on which `params` differs from the grid's (names, sorted),
// so a front end can say the background was made with other knobs.
std::vector<std::string> differences(const Grid& g, const Params& params);

// A shipped grid read through the asset store ("checkpoints/<name>.json").
Expected<Grid> load_shipped(const std::string& name);

}  // namespace icl::grid
