// The memory a demo run may take, and the demos that bound theirs from their sizes.
//
// kDemoMemoryBudget: what one run (start, every step, its result) may allocate; a quarter
// of the wasm module's 1 GB heap, so the module, a page's other demos and the
// allocator's slack fit beside it. docs/bad-input.md and tests/unit/test_bounds.cpp quote
// this number. A demo whose memory grows with its sizes (or with its steps, as a batch
// that lengthens with k) sets DemoDef::peak_bytes, an upper bound of its peak from the
// parameters alone; start_demo refuses parameters whose bound passes the budget, before anything runs,
// naming the sizes set above their defaults. Demos that are small at every setting
// set nothing (tests/unit/test_bounds.cpp measures every demo either way).
#pragma once
#include <cstddef>
#include <string>

#include "icl/demo.h"

namespace icl {

constexpr size_t kDemoMemoryBudget = 256u << 20;

using PeakBytesFn = size_t (*)(const Params& params);
// The demo's bound, its DemoDef::peak_bytes; nullptr if it has none (or no such demo).
PeakBytesFn find_peak_bytes(const std::string& demo_id);

}  // namespace icl
