// Helpers the demos share to turn their numbers into Result panels.
#pragma once
#include <string>
#include <vector>

#include <utility>
#include <xtensor/xexpression.hpp>

#include "icl/demo.h"

namespace icl {

// A heatmap of `values` (rows × cols, row-major). Labels default to "1", "2", ... when empty.
HeatmapPanel heatmap_of_values(int rows, int cols, std::vector<double> values, std::string title, std::string x_label,
                               std::string y_label, bool diverging, std::vector<std::string> row_labels = {},
                               std::vector<std::string> col_labels = {});
// A heatmap of m (rows × cols): any 2-D xtensor expression — a Matrix, a probe's view of
// the model's buffers (gpt_probe.h: an attention map (T,T), a residual stream (T,C)), or
// an expression over them — read row by row.
template <class E>
HeatmapPanel heatmap_of(const xt::xexpression<E>& m, std::string title, std::string x_label, std::string y_label,
                        bool diverging, std::vector<std::string> row_labels = {},
                        std::vector<std::string> col_labels = {}) {
    const E& e = m.derived_cast();
    return heatmap_of_values(static_cast<int>(e.shape()[0]), static_cast<int>(e.shape()[1]),
                             std::vector<double>(e.begin(), e.end()), std::move(title), std::move(x_label),
                             std::move(y_label), diverging, std::move(row_labels), std::move(col_labels));
}
// "prefix1", "prefix2", ... "prefixN" (1-based, as a learner counts examples).
std::vector<std::string> numbered_labels(const std::string& prefix, int n);
// The demo's guide: a note of its catalogue's note.guide.title and note.guide.text.
NotePanel guide_note(const Texts& msg);

}  // namespace icl
