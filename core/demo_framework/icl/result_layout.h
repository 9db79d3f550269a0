// What a front end shows of a Result at once (both front ends draw by it; the Result's
// JSON carries it as "lead": [k, ...], the panels shown open, in this order).
#pragma once
#include <cstddef>
#include <vector>

#include "icl/demo.h"

namespace icl {

// The panels a front end shows open, in the order to draw them: the first scalars panel
// (the headline numbers), every note (what to see, above the charts), then the main
// chart: the first lines, heatmap, bars or table panel — a demo picks it by panel order.
// Panels drawn beside a control are left out; the others are folded under "More
// results", in their own order.
std::vector<size_t> lead_panels(const std::vector<Panel>& panels);

}  // namespace icl
