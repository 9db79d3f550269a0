// DemoRun (native/app/demo_run.h) with a session that has lanes: induction_heads' 1-layer
// control trains on a thread of its own, and the run ends in the Result the session gives
// stepped alone on one thread; stopped midway, it ends and joins every thread.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <icl/assets.h>
#include <icl/demo.h>

#include "demo_run.h"

namespace {
const nlohmann::json kParams = {{"steps", 60}, {"batch", 4}, {"length", 16}, {"width", 16}, {"heads", 2}};

icl::Texts english() {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    return icl::load_texts("en", "induction_heads").value();
}

// The run's last snapshot, waited for.
nlohmann::json finished(DemoRun& run) {
    for (int i = 0; i < 6000 && run.running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(!run.running());
    return icl::to_json(*run.snapshot());
}
}  // namespace

TEST_CASE("demo run: induction_heads' control on a thread of its own ends in the one-thread Result") {
    const icl::Texts texts = english();
    auto alone = icl::start_demo("induction_heads", kParams, texts, 4);
    REQUIRE(alone.ok());
    while (!alone.value()->done()) alone.value()->step(1);
    const nlohmann::json want = icl::to_json(alone.value()->result());
    REQUIRE(want["error"] == "");

    auto run = DemoRun::start("induction_heads", kParams, texts, 4);
    REQUIRE(run.ok());
    if (std::thread::hardware_concurrency() >= 2) CHECK(run.value()->lane_threads() == 1);
    const nlohmann::json got = finished(*run.value());
    CHECK(got == want);
    CHECK(!run.value()->stopped());

    // Another seed: another Result (the comparison can tell runs apart).
    auto other = DemoRun::start("induction_heads", kParams, texts, 5);
    REQUIRE(other.ok());
    CHECK(finished(*other.value()) != want);
}

TEST_CASE("demo run: a run with lanes stopped midway ends, and so do its lanes") {
    const icl::Texts texts = english();
    nlohmann::json params = kParams;
    params["steps"] = 5000;
    auto run = DemoRun::start("induction_heads", params, texts, 1);
    REQUIRE(run.ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    run.value()->stop();
    const nlohmann::json got = finished(*run.value());
    CHECK(run.value()->stopped());
    CHECK(got["done"] == false);
    run.value().reset();  // joins the worker and the lane's thread (a hang fails the suite's timeout)
}
