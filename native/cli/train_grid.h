// `icl train <grid.json>`: a demo run over a grid of two of its parameters (icl/demo_grid.h),
// each cell's figures written back into the file.
#pragma once
#include <string>

// Runs every cell of the grid file at `path` (its text already read), `jobs` cells side by
// side, and rewrites the file with the figures; with `check`, compares them with the
// recorded ones instead (within the grid's tolerance) and writes nothing. Returns the
// process's exit status (2: the file is refused; 1: a cell failed or a figure is off).
int train_grid(const std::string& path, const std::string& text, int jobs, bool check);
