// A kept run (native/app/kept_run.h): emergence_lab stopped midway leaves its checkpoint in
// <state>/icl-lab/runs/emergence_lab.json; a run resumed from it starts where it stopped and
// ends in the Result of the run stepped straight through on one thread; a file that is not a
// kept run, or whose checkpoint the core refuses, is moved to .bad and the run starts afresh.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <icl/assets.h>
#include <icl/demo.h>
#include <icl/demo_checkpoint.h>

#include "demo_run.h"
#include "kept_run.h"

namespace fs = std::filesystem;

namespace {
const int kSteps = 400;
const nlohmann::json kParams = {{"steps", kSteps}, {"seeds", 2},  {"eval_every", 100}, {"classes", 32},
                                {"labels", 4},     {"pairs", 4},  {"burstiness", 2},   {"dim", 8},
                                {"width", 16},     {"weight_decay", 0.01}};

icl::Texts english() {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    return icl::load_texts("en", "emergence_lab").value();
}

nlohmann::json finished(DemoRun& run) {
    for (int i = 0; i < 30000 && run.running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(!run.running());
    return icl::to_json(*run.snapshot());
}

// A fresh state directory for the test, as XDG_STATE_HOME.
struct StateDir {
    std::string dir;
    StateDir() {
        char name[] = "/tmp/icl-kept-run-XXXXXX";
        dir = mkdtemp(name);
        setenv("XDG_STATE_HOME", dir.c_str(), 1);
    }
    ~StateDir() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

nlohmann::json straight_result(const icl::Texts& texts, uint64_t seed) {
    auto alone = icl::start_demo("emergence_lab", kParams, texts, seed);
    REQUIRE(alone.ok());
    while (!alone.value()->done()) alone.value()->step(1);
    return icl::to_json(alone.value()->result());
}
}  // namespace

TEST_CASE("kept run: emergence_lab stopped midway resumes from its step and ends as the straight run") {
    StateDir state;
    const icl::Texts texts = english();
    const std::string path = kept_run_path("emergence_lab");
    CHECK(path == state.dir + "/icl-lab/runs/emergence_lab.json");
    const nlohmann::json want = straight_result(texts, 7);
    REQUIRE(want["error"] == "");

    auto first = DemoRun::start("emergence_lab", kParams, texts, 7, {path, nullptr});
    REQUIRE(first.ok());
    CHECK(first.value()->keeping());
    for (int i = 0; i < 30000 && first.value()->steps() < 40; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    first.value()->stop();
    CHECK(finished(*first.value())["done"] == false);
    first.value().reset();
    REQUIRE(fs::exists(path));

    LoadedKeptRun kept = load_kept_run(path);
    REQUIRE(kept.run);
    CHECK(kept.notice.empty());
    CHECK(kept.run->params == kParams);
    CHECK(kept.run->seed == 7);
    CHECK(kept.run->step > 0);
    CHECK(kept.run->step < 2 * kSteps);  // two seeds, one after the other

    auto resumed = DemoRun::start("emergence_lab", kParams, texts, 7, {path, kept.run->checkpoint});
    REQUIRE(resumed.ok());
    CHECK(resumed.value()->resumed());
    CHECK(resumed.value()->notice().empty());
    // It goes on from the kept step: its first snapshot already shows that much progress.
    const double progress = icl::to_json(*resumed.value()->snapshot()).value("progress", 0.0);
    CHECK(progress >= static_cast<double>(kept.run->step) / (2 * kSteps) - 1e-9);
    CHECK(finished(*resumed.value()) == want);
    CHECK(!fs::exists(path));  // a finished run is not kept
}

TEST_CASE("kept run: a file that is not a kept run is moved to .bad with a notice") {
    StateDir state;
    const std::string path = kept_run_path("emergence_lab");
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << "{\"format\": \"icl-lab-kept-run\", \"demo\": ";
    LoadedKeptRun kept = load_kept_run(path);
    CHECK(!kept.run);
    CHECK(kept.notice.find(".bad") != std::string::npos);
    CHECK(!fs::exists(path));
    CHECK(fs::exists(path + ".bad"));
    CHECK(load_kept_run(path).notice.empty());  // no file: nothing to say
}

TEST_CASE("kept run: a checkpoint the core refuses gives a notice, the file set aside and a fresh run") {
    StateDir state;
    const icl::Texts texts = english();
    const std::string path = kept_run_path("emergence_lab");
    auto session = icl::start_demo("emergence_lab", kParams, texts, 3);
    REQUIRE(session.ok());
    for (int i = 0; i < 10; ++i) session.value()->step(1);
    REQUIRE(write_kept_run(path, "emergence_lab", kParams, 3, icl::save_checkpoint(*session.value())));
    LoadedKeptRun kept = load_kept_run(path);
    REQUIRE(kept.run);

    // Another seed's run refuses seed 3's checkpoint.
    auto run = DemoRun::start("emergence_lab", kParams, texts, 8, {path, kept.run->checkpoint});
    REQUIRE(run.ok());
    CHECK(!run.value()->resumed());
    CHECK(run.value()->notice().find("seed") != std::string::npos);
    CHECK(fs::exists(path + ".bad"));
    CHECK(finished(*run.value()) == straight_result(texts, 8));
}
