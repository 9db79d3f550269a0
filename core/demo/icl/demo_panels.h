// Helpers the demos share to turn their numbers into Result panels.
#pragma once
#include <string>
#include <vector>

#include "icl/demo.h"
#include "icl/linalg.h"

namespace icl {

// A heatmap of m (rows × cols). Labels default to "0", "1", ... when empty.
HeatmapPanel heatmap_of(const Matrix& m, std::string title, std::string x_label, std::string y_label,
                        bool diverging, std::vector<std::string> row_labels = {},
                        std::vector<std::string> col_labels = {});
// "prefix1", "prefix2", ... "prefixN" (1-based, as a learner counts examples).
std::vector<std::string> numbered_labels(const std::string& prefix, int n);

}  // namespace icl
