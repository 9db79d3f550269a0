// Driving a run in slices (icl/run_slices.h): the next slice's budget against the rule
// written out here, when a snapshot is due, and a whole session with an offloaded lane
// driven slice by slice — it waits for the lane without stepping, refuses a broken state
// by its message and keeps what it had, and ends with the Result of the session that
// trained every seed itself.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "demo_testing.h"
#include "icl/demo.h"
#include "icl/run_slices.h"

using namespace icl;

TEST_CASE("run_slices: the budget aims a slice at its target time, between 1 and 65536 units") {
    // budget × target / ms, rounded; ×4 after a slice too short to time (under 0.5 ms)
    const struct { int budget; double ms; int next; } cases[] = {
        {10, 50.0, 5}, {10, 10.0, 25}, {3, 0.4, 12}, {1, 1000.0, 1}, {40000, 1.0, 65536}, {7, 25.0, 7}, {9, 20.0, 11}};
    for (const auto& c : cases) {
        SliceClock clock = slice_clock(c.budget, 25.0, 250.0);
        slice_took(clock, c.ms);
        CHECK_MESSAGE(clock.budget == c.next, c.budget, " units in ", c.ms, " ms");
    }
    SliceClock fixed = slice_clock(1, 0, 30.0);  // no target: every slice is the same
    slice_took(fixed, 0.01);
    slice_took(fixed, 900.0);
    CHECK(fixed.budget == 1);
    CHECK(slice_clock(0, 25.0, 0).budget == 1);
}

TEST_CASE("run_slices: a snapshot is due at once, then post_ms after the last one taken") {
    SliceClock clock = slice_clock(1, 25.0, 250.0);
    CHECK(snapshot_due(clock, 0.0));
    clock.posted_ms = 100.0;
    CHECK_FALSE(snapshot_due(clock, 349.0));
    CHECK(snapshot_due(clock, 350.0));
}

namespace {
std::unique_ptr<Session> start(const nlohmann::json& params, int lane = 0) {
    auto s = start_demo("task_diversity_lab", params, testing::texts("en", "task_diversity_lab"), 3, lane);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().message));
    return std::move(s.value());
}
}  // namespace

TEST_CASE("run_slices: a session with an offloaded lane waits for it, refuses a broken state, ends as the whole run") {
    const nlohmann::json p = {{"steps", 20}, {"seeds", 2}, {"eval_sequences", 16}, {"width", 16}, {"layers", 1},
                              {"heads", 1},  {"context", 4}, {"dim", 3}};
    auto whole = start(p);
    std::vector<std::pair<int, nlohmann::json>> none;
    int slices = 0;
    while (!whole->done() && slices < 1000) {
        auto did = run_slice(*whole, 3, none);
        REQUIRE(did.ok());
        ++slices;
    }
    REQUIRE(whole->done());
    CHECK(slices == 8);  // 20 training + 2 evaluation units, 3 a slice
    CHECK(run_slice(*whole, 3, none).value() == SliceEnd::done);

    auto main = start(p);
    REQUIRE(main->offload(1).ok());
    auto lane = start(p, 1);
    for (int i = 0; i < 100 && !lane->done(); ++i) REQUIRE(run_slice(*lane, 5, none).ok());
    REQUIRE(lane->done());
    int stepped = 0;
    SliceEnd end = SliceEnd::stepped;
    for (int i = 0; i < 100 && end == SliceEnd::stepped; ++i) {
        auto did = run_slice(*main, 5, none);
        REQUIRE(did.ok());
        end = did.value();
        stepped += end == SliceEnd::stepped ? 1 : 0;
    }
    CHECK(end == SliceEnd::waiting);  // its own seed done; the lane's state not yet in
    CHECK(stepped == 5);              // 22 units, 5 a slice
    CHECK(run_slice(*main, 5, none).value() == SliceEnd::waiting);

    nlohmann::json broken = lane->lane_state();
    broken.erase("fresh");
    std::vector<std::pair<int, nlohmann::json>> posted = {{1, broken}};
    auto refused = run_slice(*main, 5, posted);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message == "task_diversity_lab: lane 1's state: 'fresh' is not an object");
    CHECK(posted.empty());  // taken, whatever came of it
    CHECK(main->waiting());

    posted = {{1, lane->lane_state()}};
    auto did = run_slice(*main, 5, posted);
    REQUIRE(did.ok());
    CHECK(did.value() == SliceEnd::done);
    CHECK(to_json(main->result()).dump() == to_json(whole->result()).dump());
}
