#include "math_view.h"

#include <algorithm>

namespace {

std::vector<DrawnMatrix> g_drawn;

// A delimiter `kind` ("(", ")", "[", "]", "{", "}", "|", "‖") in the box [x0, x0 + w] x [y0, y1].
void draw_delimiter(ImDrawList* draw, const std::string& kind, float x0, float w, float y0, float y1, ImU32 colour,
                    float thickness) {
    const bool right = kind == ")" || kind == "]" || kind == "}";
    // x at a fraction of the width, mirrored for a closing delimiter.
    const auto x = [&](float f) { return right ? x0 + w * (1 - f) : x0 + w * f; };
    const float mid = (y0 + y1) / 2;
    if (kind == "(" || kind == ")") {
        // A quadratic curve whose middle is at 0.2 of the width: 0.5 * 0.8 + 0.5 * (-0.4).
        draw->AddBezierQuadratic(ImVec2(x(0.8f), y0), ImVec2(x(-0.4f), mid), ImVec2(x(0.8f), y1), colour, thickness);
    } else if (kind == "[" || kind == "]") {
        const ImVec2 points[] = {ImVec2(x(0.8f), y0), ImVec2(x(0.3f), y0), ImVec2(x(0.3f), y1), ImVec2(x(0.8f), y1)};
        draw->AddPolyline(points, 4, colour, 0, thickness);
    } else if (kind == "{" || kind == "}") {
        draw->AddBezierCubic(ImVec2(x(0.85f), y0), ImVec2(x(0.45f), y0), ImVec2(x(0.55f), mid), ImVec2(x(0.15f), mid),
                             colour, thickness);
        draw->AddBezierCubic(ImVec2(x(0.15f), mid), ImVec2(x(0.55f), mid), ImVec2(x(0.45f), y1), ImVec2(x(0.85f), y1),
                             colour, thickness);
    } else if (kind == "|") {
        draw->AddLine(ImVec2(x(0.5f), y0), ImVec2(x(0.5f), y1), colour, thickness);
    } else if (kind == "‖") {
        draw->AddLine(ImVec2(x(0.35f), y0), ImVec2(x(0.35f), y1), colour, thickness);
        draw->AddLine(ImVec2(x(0.65f), y0), ImVec2(x(0.65f), y1), colour, thickness);
    }
}

}  // namespace

MatrixBox measure_matrix(const icl::TexMatrix& matrix) {
    const float font_size = ImGui::GetFontSize();
    MatrixBox box;
    box.row_height = ImGui::GetTextLineHeight();
    box.row_gap = 0.3f * font_size;
    box.column_gap = 1.0f * font_size;
    box.open_width = matrix.open.empty() ? 0 : 0.5f * font_size;
    box.close_width = matrix.close.empty() ? 0 : 0.5f * font_size;
    box.pad_x = 0.2f * font_size;
    box.pad_y = 0.15f * font_size;
    box.column_widths.assign(matrix.columns(), 0.0f);
    for (const auto& row : matrix.rows)
        for (size_t c = 0; c < row.size(); ++c)
            box.column_widths[c] = std::max(box.column_widths[c], ImGui::CalcTextSize(row[c].c_str()).x);
    float width = box.open_width + box.close_width + 2 * box.pad_x;
    for (float w : box.column_widths) width += w;
    if (!box.column_widths.empty()) width += box.column_gap * static_cast<float>(box.column_widths.size() - 1);
    const float rows = static_cast<float>(matrix.rows.size());
    box.size = ImVec2(width, rows * box.row_height + std::max(0.0f, rows - 1) * box.row_gap + 2 * box.pad_y);
    return box;
}

void draw_matrix(const icl::TexMatrix& matrix, const MatrixBox& box, ImVec2 pos, ImU32 colour) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    ImFont* font = ImGui::GetFont();
    const float font_size = ImGui::GetFontSize();
    const float thickness = std::max(1.0f, font_size / 14);
    const float y1 = pos.y + box.size.y;
    draw_delimiter(draw, matrix.open, pos.x, box.open_width, pos.y, y1, colour, thickness);
    draw_delimiter(draw, matrix.close, pos.x + box.size.x - box.close_width, box.close_width, pos.y, y1, colour, thickness);
    std::string cells;
    for (size_t r = 0; r < matrix.rows.size(); ++r) {
        float x = pos.x + box.open_width + box.pad_x;
        const float y = pos.y + box.pad_y + static_cast<float>(r) * (box.row_height + box.row_gap);
        const auto& row = matrix.rows[r];
        for (size_t c = 0; c < row.size(); ++c) {
            const char* text = row[c].c_str();
            const float shift = matrix.left_aligned ? 0 : (box.column_widths[c] - ImGui::CalcTextSize(text).x) / 2;
            draw->AddText(font, font_size, ImVec2(x + shift, y), colour, text);
            x += box.column_widths[c] + box.column_gap;
            cells += (c > 0 ? ", " : r > 0 ? "; " : "") + row[c];
        }
    }
    ImGui::SetCursorScreenPos(pos);
    ImGui::Dummy(box.size);
    g_drawn.push_back({matrix.env, cells, matrix.rows.size(), matrix.columns(), box.size, box.row_height});
}

void begin_drawn_matrices() { g_drawn.clear(); }

const std::vector<DrawnMatrix>& drawn_matrices() { return g_drawn; }
