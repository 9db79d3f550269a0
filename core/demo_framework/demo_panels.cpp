#include "icl/demo_panels.h"

#include <cstdio>
#include <utility>

namespace icl {

HeatmapPanel heatmap_of_values(int rows, int cols, std::vector<double> values, std::string title, std::string x_label,
                               std::string y_label, bool diverging, std::vector<std::string> row_labels,
                               std::vector<std::string> col_labels) {
    HeatmapPanel h;
    h.title = std::move(title);
    h.x_label = std::move(x_label);
    h.y_label = std::move(y_label);
    h.rows = rows;
    h.cols = cols;
    h.values = std::move(values);
    h.row_labels = row_labels.empty() ? numbered_labels("", rows) : std::move(row_labels);
    h.col_labels = col_labels.empty() ? numbered_labels("", cols) : std::move(col_labels);
    h.diverging = diverging;
    return h;
}

std::vector<std::string> numbered_labels(const std::string& prefix, int n) {
    std::vector<std::string> out;
    for (int i = 1; i <= n; ++i) out.push_back(prefix + std::to_string(i));
    return out;
}

NotePanel guide_note(const Texts& msg) { return NotePanel{msg("note.guide.title"), msg("note.guide.text")}; }

}  // namespace icl
