// Driving a run in slices, as every front end does: a slice steps a session a budget of
// units, unless it is done or waits for the states of lanes trained elsewhere; between
// slices the front end hands it the lane states that came, takes a snapshot of its Result
// when one is due and sizes the next slice. The desktop app (one thread for the run and
// one a lane), the worker API and the benchmarks step a run through these functions; the
// page's worker and the node scripts through their JS twin, web/src/run-slices.js.
//
//   SliceClock clock = slice_clock(1, 25.0, 250.0);  // slices of about 25 ms, a snapshot every 250 ms
//   while (!s.done()) {
//       auto did = run_slice(s, clock.budget, posted);  // posted: the lanes' states that came
//       if (!did) ...                                   // a lane's state it refused: its message
//       if (did.value() == SliceEnd::waiting) ...       // sleep until a lane's state comes
//       slice_took(clock, ms);                          // the slice's time, by the caller's clock
//       if (snapshot_due(clock, now)) { ... s.result() ...; clock.posted_ms = now; }
//   }
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/demo.h"

namespace icl {

// What a slice did: stepped the session, or nothing, as it waits for a lane's state (its
// own units are done; a front end sleeps until one comes) or is done.
enum class SliceEnd { stepped, waiting, done };

// One slice of `s`: the lane states in `posted` (lane k, its state; emptied) are handed
// to it in order (Session::take_lane), then, unless it is done or waiting, it steps
// `budget` units. A state it refuses stops the slice with its message (the session keeps
// what it had).
Expected<SliceEnd> run_slice(Session& s, int budget, std::vector<std::pair<int, nlohmann::json>>& posted);

// The size of a run's slices and when its snapshots are due, by the caller's clock in ms.
struct SliceClock {
    int budget = 1;            // units of the next slice
    double target_ms = 0;      // the time a slice aims at; 0: every slice is `budget` units
    double post_ms = 0;        // the least time between two snapshots
    double posted_ms = -1e300; // when the last was taken, set by the caller (the first is due at once)
};
SliceClock slice_clock(int budget, double target_ms, double post_ms);
// After a slice of `ms`: the next budget aims at target_ms — budget × target / ms, or ×4
// after a slice under 0.5 ms (too short to time) — between 1 and 65536 units.
void slice_took(SliceClock& c, double ms);
// Whether a snapshot is due at `now_ms` (post_ms since the last).
bool snapshot_due(const SliceClock& c, double now_ms);

}  // namespace icl
