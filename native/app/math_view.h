// A matrix of lesson math (icl::TexMatrix) drawn as a grid with ImGui: its cells in rows
// and centred (cases: left-aligned) columns, between delimiters drawn as lines and
// curves as tall as the grid, in the current font. The Markdown view measures it like a
// word and places it in the line of text (markdown_view.cpp).
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

#include "icl/tex_text.h"

struct MatrixBox {
    std::vector<float> column_widths;
    float row_height = 0, row_gap = 0, column_gap = 0, open_width = 0, close_width = 0, pad_x = 0, pad_y = 0;
    ImVec2 size;
};

// The grid's measures in the current font.
MatrixBox measure_matrix(const icl::TexMatrix& matrix);
// Draws it with its top-left corner at `pos` (screen) and submits it as one item.
void draw_matrix(const icl::TexMatrix& matrix, const MatrixBox& box, ImVec2 pos, ImU32 colour);

// The grids drawn since begin_drawn_matrices(), for the app's scripted runs to report
// (a check that matrices are laid out as grids, without reading pixels).
struct DrawnMatrix {
    std::string env, cells;   // cells: "a, b; c, d"
    size_t rows = 0, columns = 0;
    ImVec2 size;
    float text_line = 0;      // the font's line height it was drawn with
};
void begin_drawn_matrices();
const std::vector<DrawnMatrix>& drawn_matrices();
