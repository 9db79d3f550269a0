#include "icl/run_slices.h"

#include <algorithm>
#include <cmath>

namespace icl {

Expected<SliceEnd> run_slice(Session& s, int budget, std::vector<std::pair<int, nlohmann::json>>& posted) {
    std::vector<std::pair<int, nlohmann::json>> states;
    states.swap(posted);
    for (const auto& [k, state] : states)
        if (Status st = s.take_lane(k, state); !st) return st.error();
    if (s.done()) return SliceEnd::done;
    if (s.waiting()) return SliceEnd::waiting;
    s.step(budget);
    return SliceEnd::stepped;
}

SliceClock slice_clock(int budget, double target_ms, double post_ms) {
    SliceClock c;
    c.budget = std::max(1, budget);
    c.target_ms = target_ms;
    c.post_ms = post_ms;
    return c;
}

void slice_took(SliceClock& c, double ms) {
    if (c.target_ms <= 0) return;
    const double next = std::round(c.budget * (ms > 0.5 ? c.target_ms / ms : 4.0));
    c.budget = (int)std::max(1.0, std::min(65536.0, next));
}

bool snapshot_due(const SliceClock& c, double now_ms) { return !(now_ms - c.posted_ms < c.post_ms); }

}  // namespace icl
