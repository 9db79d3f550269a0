// The web worker's JSON API (icl/worker_api.h) for runs whose lanes train elsewhere:
// offload, start_lane and take_lane, demo by demo (the rest of the API: test_worker_api.cpp).
#include <doctest/doctest.h>

#include <string>

#include "icl/assets.h"
#include "icl/worker_api.h"

namespace {
using nlohmann::json;
json reply(const std::string& text) { return json::parse(text); }
std::string lane_error_of(const std::string& text) {
    const json j = reply(text);
    return j.is_object() && j.contains("error") ? j["error"].get<std::string>() : "";
}
}  // namespace

// ---- lanes (Session::lanes, icl/demo.h; offload / start_lane / take_lane) --------------
// A session whose 1-layer control trains in another worker ends with the very Result the
// whole session gives, whichever lane runs ahead; a lane's state that is not one is
// refused by name, and nothing else changes.
namespace {
const std::string kLaneParams = R"({"steps": 30, "batch": 4, "length": 16, "width": 16, "heads": 2})";

// The whole session, stepped to done: its last Result.
json whole_run(icl::WorkerApi& api, const std::string& params, int seed, const std::string& demo = "induction_heads") {
    const int h = reply(api.start(demo, params, "en", seed))["handle"];
    json r;
    for (int slice = 0; slice < 1000 && !(r.is_object() && r.value("done", false)); ++slice) r = reply(api.step(h, 4));
    api.drop(h);
    return r;
}

// What take_lane answers session h for lane 1's state `good` with `key` set to `value`.
std::string refused_with(icl::WorkerApi& api, int h, json good, const char* key, const json& value) {
    good[key] = value;
    return lane_error_of(api.take_lane(h, 1, good.dump()));
}

// Session h takes lane k's state as the worker hands it over; h's next slice.
json after_lane_state(icl::WorkerApi& api, int h, const json& state, int k = 1) {
    REQUIRE(reply(api.take_lane(h, k, state.dump())) == json::object());
    return reply(api.step(h, 1));
}

// Lane k's session l's next state, sent with `error` set, ends session h with that message.
void check_lane_error_ends_run(icl::WorkerApi& api, int h, int l, const std::string& error, int k = 1) {
    json state = reply(api.step(l, 3, true))["state"];
    state["error"] = error;
    const json r = after_lane_state(api, h, state, k);
    CHECK(r["done"] == true);
    CHECK(r["error"] == error);
}

// The same run with each lane 1.. in a session of its own: each slice steps lane 0
// `main_budget` steps and every other lane `lane_budget`, and hands each lane's state over
// as the worker does. `lanes`: how many the session must have.
json split_run(icl::WorkerApi& api, const std::string& params, int seed, int main_budget, int lane_budget,
               bool* waited = nullptr, const std::string& demo = "induction_heads", int lanes = 2) {
    const json started = reply(api.start(demo, params, "en", seed));
    REQUIRE(started["lanes"] == lanes);
    const int h = started["handle"];
    std::vector<int> handles;
    for (int k = 1; k < lanes; ++k) {
        REQUIRE(reply(api.offload(h, k)) == json::object());
        handles.push_back(reply(api.start_lane(demo, params, "en", seed, k))["handle"]);
    }
    std::vector<json> last(handles.size());
    json r;
    for (int slice = 0; slice < 1000 && !(r.is_object() && r.value("done", false)); ++slice) {
        for (int k = 1; k < lanes; ++k) {
            json& lane = last[(size_t)k - 1];
            if (lane.is_object() && lane.value("done", false)) continue;
            lane = reply(api.step(handles[(size_t)k - 1], lane_budget, (slice + k) % 3 == 0));  // a state on some slices, and the last
            REQUIRE(lane["lane"] == k);
            if (lane.contains("state")) REQUIRE(reply(api.take_lane(h, k, lane["state"].dump())) == json::object());
        }
        r = reply(api.step(h, main_budget));
        if (waited && r.value("waiting", false)) *waited = true;
    }
    api.drop(h);
    for (int l : handles) api.drop(l);
    return r;
}
}  // namespace

TEST_CASE("lanes: induction_heads' control trained as a lane of its own ends in the whole session's Result") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    const json whole = whole_run(api, kLaneParams, 5);
    REQUIRE(whole["done"] == true);
    REQUIRE(whole["error"] == "");
    bool waited = false;
    // The control ahead of the model (as in a page: it is the smaller model) ...
    const json ahead = split_run(api, kLaneParams, 5, 2, 7);
    // ... and behind it: the model's session waits for the control's last state.
    const json behind = split_run(api, kLaneParams, 5, 9, 1, &waited);
    CHECK(waited);
    CHECK(ahead == whole);
    CHECK(behind == whole);
    // The control's series are there (not a Result that merely lacks them on both sides).
    const std::string text = whole.dump();
    CHECK(text.find("control_prefix_matching") != std::string::npos);
    bool control_series = false;
    for (const json& p : whole["panels"])
        if (p["kind"] == "lines")
            for (const json& s : p["series"]) control_series |= s["x"].size() > 1 && s.value("dashed", false);
    CHECK(control_series);
    // Another seed gives another Result (the comparison above can tell runs apart).
    CHECK(whole_run(api, kLaneParams, 6) != whole);
}

TEST_CASE("lanes: while the control's states are not in, its curves stop at step 0 and the run is not done") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    const int h = reply(api.start("induction_heads", kLaneParams, "en", 5))["handle"];
    REQUIRE(reply(api.offload(h, 1)) == json::object());
    json r = reply(api.step(h, 1000));  // all of its own steps; the control's never came
    CHECK(r["done"] == false);
    CHECK(r["waiting"] == true);
    CHECK(r["progress"] == 0.0);  // the slower side's: none of the control's steps are in
    // The control's dashed curves hold only its evaluation at the start; the model's go on.
    int dashed = 0;
    for (const json& p : r["panels"])
        if (p["kind"] == "lines" && p["x_label"] == "step")
            for (const json& s : p["series"]) {
                if (s.value("dashed", false)) {
                    ++dashed;
                    CHECK(s["x"] == json::array({0}));
                } else {
                    CHECK(s["x"].size() == 31);
                }
            }
    CHECK(dashed == 3);
    // A lane that stopped on a problem stops the session with its message.
    const int l = reply(api.start_lane("induction_heads", kLaneParams, "en", 5, 1))["handle"];
    r = after_lane_state(api, h, reply(api.step(l, 12))["state"]);
    CHECK(r["waiting"] == true);
    CHECK(r["progress"] == 12.0 / 30.0);  // the control's 12 of 30 steps
    check_lane_error_ends_run(api, h, l, "training diverged at step 15");
}

TEST_CASE("lanes: what is not a lane, or not a lane's state, is refused by name") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    // A demo with one lane has none to hand over; a control-less induction_heads neither.
    const json dual = reply(api.start("dual_form", "{}", "en", 1));
    CHECK(dual["lanes"] == 1);
    CHECK(lane_error_of(api.offload(dual["handle"], 1)) == "dual_form has no lane 1 to hand to another worker");
    CHECK(lane_error_of(api.start_lane("dual_form", "{}", "en", 1, 1)) == "dual_form: these parameters give 1 lane(s); there is no lane 1");
    CHECK(lane_error_of(api.start_lane("induction_heads", R"({"control": false})", "en", 1, 1)) ==
          "induction_heads: these parameters give 1 lane(s); there is no lane 1");
    CHECK(lane_error_of(api.start_lane("induction_heads", "{}", "en", 1, -1)) == "induction_heads: lane -1 is not a lane (0 or more)");
    CHECK(lane_error_of(api.offload(999, 1)) == "no demo session 999");
    CHECK(lane_error_of(api.take_lane(999, 1, "{}")) == "no demo session 999");

    const int h = reply(api.start("induction_heads", kLaneParams, "en", 2))["handle"];
    // Taking a state of a lane this session trains itself, or after it has stepped.
    CHECK(lane_error_of(api.take_lane(h, 1, "{}")) == "induction_heads computes no lane 1 elsewhere");
    CHECK(lane_error_of(api.offload(h, 2)) == "induction_heads has no lane 2 to hand to another worker");
    const int stepped = reply(api.start("induction_heads", kLaneParams, "en", 2))["handle"];
    reply(api.step(stepped, 1));
    CHECK(lane_error_of(api.offload(stepped, 1)) == "induction_heads: lane 1 can only be offloaded before the first step");

    REQUIRE(reply(api.offload(h, 1)) == json::object());
    const int l = reply(api.start_lane("induction_heads", kLaneParams, "en", 2, 1))["handle"];
    const json good = reply(api.step(l, 2))["state"];  // evaluated at steps 0, 1, 2
    REQUIRE(reply(api.take_lane(h, 1, good.dump())) == json::object());
    const std::string lane1 = "induction_heads: lane 1's state: ";
    auto broken = [&](const char* key, const json& value) { return refused_with(api, h, good, key, value); };
    CHECK(lane_error_of(api.take_lane(h, 1, "{not json")) == "the lane's state is not valid JSON");
    CHECK(lane_error_of(api.take_lane(h, 1, "[]")) == lane1 + "'steps' is not a whole number of steps from 0 to 30");
    CHECK(broken("steps", 31) == lane1 + "'steps' is not a whole number of steps from 0 to 30");
    CHECK(broken("steps", 2.5) == lane1 + "'steps' is not a whole number of steps from 0 to 30");
    CHECK(broken("error", 7) == lane1 + "'error' is not a text");
    CHECK(broken("eval_loss", json::array({1, 2, 3, 4, 5})) == lane1 + "'eval_loss' has 5 numbers, not 3");
    CHECK(broken("icl_score", "<script>") == lane1 + "'icl_score' is not a list");
    CHECK(broken("prefix_by_head", json::array({json::array({0.5})})) == lane1 + "'prefix_by_head' is not a list of 2 heads");
    CHECK(broken("phase_step", "soon") == lane1 + "'phase_step' is not a number");
    json bad_last = good["last"];
    bad_last["loss_by_position"] = json::array({1.0});
    CHECK(broken("last", bad_last) == lane1 + "'loss_by_position' has 1 numbers, not 16");
    bad_last = good["last"];
    bad_last["prefix_matching"] = json::array({"a", "b"});
    CHECK(broken("last", bad_last) == lane1 + "'prefix_matching' holds something that is not a number");
    // A refused state changes nothing: the good one stands, and the run goes on.
    const json r = reply(api.step(h, 1));
    CHECK(r["error"] == "");
    CHECK(r["done"] == false);
}

namespace {
const std::string kFastLaneParams = R"({"steps": 20, "seeds": 2, "width": 16, "sequences": 1})";

// The Result's scalar `name` (null if it is not there or not a number).
json scalar_of(const json& result, const std::string& name) {
    for (const json& p : result["panels"])
        if (p["kind"] == "scalars")
            for (const json& item : p["items"])
                if (item["name"] == name) return item["value"];
    return nullptr;
}
// The per-seed table's rows.
json seed_rows(const json& result) {
    for (const json& p : result["panels"])
        if (p["kind"] == "table") return p["rows"];
    return json::array();
}
}  // namespace

TEST_CASE("lanes: fast_weights' delta-rule and softmax models trained as lanes of their own end in the whole session's Result") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    const json whole = whole_run(api, kFastLaneParams, 3, "fast_weights");
    REQUIRE(whole["done"] == true);
    REQUIRE(whole["error"] == "");
    bool waited = false;
    const json ahead = split_run(api, kFastLaneParams, 3, 2, 7, nullptr, "fast_weights", 3);
    const json behind = split_run(api, kFastLaneParams, 3, 9, 1, &waited, "fast_weights", 3);
    CHECK(waited);
    CHECK(ahead == whole);
    CHECK(behind == whole);
    // The lanes' numbers are there: the delta rule's β, both models' seeds' accuracies, the
    // paired differences that need softmax's, the loss curves.
    CHECK(scalar_of(whole, "delta_beta_L1").is_number());
    CHECK(scalar_of(whole, "delta_k16").is_number());
    CHECK(scalar_of(whole, "softmax_k16").is_number());
    CHECK(scalar_of(whole, "linear_minus_softmax_k16").is_number());
    CHECK(scalar_of(whole, "seeds_done") == 2);
    REQUIRE(seed_rows(whole).size() == 2);
    CHECK(seed_rows(whole)[1][1] != "…");
    CHECK(seed_rows(whole)[1][3] != "…");
    bool delta_loss = false;
    for (const json& p : whole["panels"])
        if (p["kind"] == "lines" && p["x_label"] == "step")
            for (const json& se : p["series"]) delta_loss |= se.value("dashed", false) && se["x"].size() == 2;
    CHECK(delta_loss);  // 20 steps: the smoothed loss at steps 10 and 20
    CHECK(whole_run(api, kFastLaneParams, 4, "fast_weights") != whole);
}

TEST_CASE("lanes: emergence_lab's seeds trained as lanes of their own end in the whole session's Result") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    const std::string params = R"({"steps": 40, "seeds": 3, "eval_every": 20, "classes": 32, "dim": 8, "width": 16})";
    const json whole = whole_run(api, params, 3, "emergence_lab");
    REQUIRE(whole["done"] == true);
    REQUIRE(whole["error"] == "");
    const json ahead = split_run(api, params, 3, 2, 7, nullptr, "emergence_lab", 3);
    const json behind = split_run(api, params, 3, 9, 1, nullptr, "emergence_lab", 3);
    CHECK(ahead == whole);
    CHECK(behind == whole);
    CHECK(scalar_of(whole, "seeds_done") == 3);
    CHECK(whole_run(api, params, 4, "emergence_lab") != whole);
}

TEST_CASE("lanes: task_diversity_lab's seeds trained as lanes of their own end in the whole session's Result") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    const std::string params = R"({"steps": 30, "seeds": 3, "log2_tasks": 3, "dim": 3, "context": 4, "width": 16, "eval_sequences": 32})";
    const json whole = whole_run(api, params, 3, "task_diversity_lab");
    REQUIRE(whole["done"] == true);
    REQUIRE(whole["error"] == "");
    const json ahead = split_run(api, params, 3, 2, 7, nullptr, "task_diversity_lab", 3);
    const json behind = split_run(api, params, 3, 9, 1, nullptr, "task_diversity_lab", 3);
    CHECK(ahead == whole);
    CHECK(behind == whole);
    CHECK(scalar_of(whole, "seeds_done") == 3);
    CHECK(seed_rows(whole).size() == 3);
    CHECK(scalar_of(whole, "dist_ridge").is_number());
    CHECK(whole_run(api, params, 4, "task_diversity_lab") != whole);
    // Training steps not a multiple of 10: each loss curve has one point more, at the last
    // step (15 steps: 10 and 15), and a lane's state with it is taken.
    const std::string odd = R"({"steps": 15, "seeds": 2, "log2_tasks": 3, "dim": 3, "context": 4, "width": 16, "eval_sequences": 16})";
    const json odd_whole = whole_run(api, odd, 3, "task_diversity_lab");
    REQUIRE(odd_whole["error"] == "");
    CHECK(split_run(api, odd, 3, 2, 7, nullptr, "task_diversity_lab", 2) == odd_whole);
    // A finished lane's state without its evaluation is refused by name; the good one is taken.
    const int h = reply(api.start("task_diversity_lab", params, "en", 3))["handle"];
    REQUIRE(reply(api.offload(h, 1)) == json::object());
    const int l = reply(api.start_lane("task_diversity_lab", params, "en", 3, 1))["handle"];
    json state;
    for (int slice = 0; slice < 1000; ++slice) {
        const json r = reply(api.step(l, 50, true));
        state = r["state"];
        if (r.value("done", false)) break;
    }
    json bad = state;
    bad.erase("fresh");
    CHECK(lane_error_of(api.take_lane(h, 1, bad.dump())) == "task_diversity_lab: lane 1's state: 'fresh' is not an object");
    bad = state;
    bad["pool"]["model"] = json::array({1.0});
    CHECK(lane_error_of(api.take_lane(h, 1, bad.dump())) == "task_diversity_lab: lane 1's state: 'model' has 1 numbers, not 4");
    CHECK(reply(api.take_lane(h, 1, state.dump())) == json::object());
    api.drop(h);
    api.drop(l);
}

TEST_CASE("lanes: fast_weights waits for its delta model's lane, shows its seeds as not yet in, and stops on its error") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    const int h = reply(api.start("fast_weights", kFastLaneParams, "en", 3))["handle"];
    REQUIRE(reply(api.offload(h, 1)) == json::object());
    json r = reply(api.step(h, 1000));  // both seeds of its own two models
    CHECK(r["done"] == false);
    CHECK(r["waiting"] == true);
    CHECK(r["progress"] == 0.0);  // the slower side's: none of the lane's units are in
    REQUIRE(seed_rows(r).size() == 2);
    CHECK(seed_rows(r)[0][3] == "…");
    CHECK(scalar_of(r, "delta_k16").is_null());  // no seed of it yet: the mean is NaN
    CHECK(scalar_of(r, "linear_k16").is_number());
    // The lane's state after its first seed: that seed's row fills in, the next still waits.
    const int l = reply(api.start_lane("fast_weights", kFastLaneParams, "en", 3, 1))["handle"];
    json lane = reply(api.step(l, 20, true));
    REQUIRE(lane["state"]["steps"] == 20);
    r = after_lane_state(api, h, lane["state"]);
    CHECK(r["waiting"] == true);
    CHECK(r["progress"] == 0.5);  // the lane's first seed: 20 of 2 × 20 units
    CHECK(seed_rows(r)[0][3] != "…");
    CHECK(seed_rows(r)[1][3] == "…");
    check_lane_error_ends_run(api, h, l, "training diverged at step 23");

    // Both lanes offloaded: the session trains the linear model alone; a seed of the delta
    // rule's lane fills its column only, and the seeds every model has finished stay 0.
    const int h2 = reply(api.start("fast_weights", kFastLaneParams, "en", 3))["handle"];
    REQUIRE(reply(api.offload(h2, 1)) == json::object());
    REQUIRE(reply(api.offload(h2, 2)) == json::object());
    r = reply(api.step(h2, 1000));
    CHECK(r["waiting"] == true);
    CHECK(r["progress"] == 0.0);
    REQUIRE(seed_rows(r).size() == 2);
    CHECK(seed_rows(r)[0][1] == "…");  // softmax
    CHECK(seed_rows(r)[0][2] != "…");  // linear: its own
    CHECK(scalar_of(r, "softmax_k16").is_null());
    const int l1 = reply(api.start_lane("fast_weights", kFastLaneParams, "en", 3, 1))["handle"];
    r = after_lane_state(api, h2, reply(api.step(l1, 40, true))["state"]);  // both of its seeds
    CHECK(r["waiting"] == true);
    CHECK(r["progress"] == 0.0);  // the softmax lane's: none of its units are in
    CHECK(seed_rows(r)[1][3] != "…");
    CHECK(seed_rows(r)[1][1] == "…");
    CHECK(scalar_of(r, "seeds_done") == 0);
    // lane 2's problem ends that run in its words; a run like it goes on to the end
    const int h3 = reply(api.start("fast_weights", kFastLaneParams, "en", 3))["handle"];
    REQUIRE(reply(api.offload(h3, 2)) == json::object());
    reply(api.step(h3, 5));
    check_lane_error_ends_run(api, h3, reply(api.start_lane("fast_weights", kFastLaneParams, "en", 3, 2))["handle"],
                              "training diverged at step 3", 2);
    const int l2 = reply(api.start_lane("fast_weights", kFastLaneParams, "en", 3, 2))["handle"];
    const json soft = reply(api.step(l2, 40, true));
    REQUIRE(soft["lane"] == 2);
    CHECK_FALSE(soft["state"].contains("betas"));  // the delta rule's, not softmax's
    REQUIRE(reply(api.take_lane(h2, 2, soft["state"].dump())) == json::object());
    r = reply(api.step(h2, 1));
    CHECK(r["done"] == true);
    CHECK(r["error"] == "");
    CHECK(scalar_of(r, "seeds_done") == 2);
    CHECK(r == whole_run(api, kFastLaneParams, 3, "fast_weights"));
}

TEST_CASE("lanes: fast_weights refuses what is not its lane, or not its lane's state, by name") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    const int h = reply(api.start("fast_weights", kFastLaneParams, "en", 2))["handle"];
    CHECK(lane_error_of(api.take_lane(h, 1, "{}")) == "fast_weights computes no lane 1 elsewhere");
    CHECK(lane_error_of(api.take_lane(h, 2, "{}")) == "fast_weights computes no lane 2 elsewhere");
    CHECK(lane_error_of(api.offload(h, 3)) == "fast_weights has no lane 3 to hand to another worker");
    CHECK(lane_error_of(api.offload(h, 0)) == "fast_weights has no lane 0 to hand to another worker");
    CHECK(lane_error_of(api.start_lane("fast_weights", kFastLaneParams, "en", 2, 3)) ==
          "fast_weights: these parameters give 3 lane(s); there is no lane 3");
    const int stepped = reply(api.start("fast_weights", kFastLaneParams, "en", 2))["handle"];
    reply(api.step(stepped, 1));
    CHECK(lane_error_of(api.offload(stepped, 1)) == "fast_weights: lane 1 can only be offloaded before the first step");
    CHECK(lane_error_of(api.offload(stepped, 2)) == "fast_weights: lane 2 can only be offloaded before the first step");

    REQUIRE(reply(api.offload(h, 1)) == json::object());
    REQUIRE(reply(api.offload(h, 2)) == json::object());
    const int l = reply(api.start_lane("fast_weights", kFastLaneParams, "en", 2, 1))["handle"];
    const json good = reply(api.step(l, 20, true))["state"];  // its first seed done
    REQUIRE(good["curves"].size() == 1);
    REQUIRE(reply(api.take_lane(h, 1, good.dump())) == json::object());
    const std::string lane1 = "fast_weights: lane 1's state: ";
    auto broken = [&](const char* key, const json& value) { return refused_with(api, h, good, key, value); };
    CHECK(broken("steps", 41) == lane1 + "'steps' is not a whole number of steps from 0 to 40");
    CHECK(broken("error", nullptr) == lane1 + "'error' is not a text");
    CHECK(broken("loss_steps", json::array({10, 20, 30})) == lane1 + "'loss_steps' has more than 2 numbers");
    CHECK(broken("loss", json::array({1.0})) == lane1 + "'loss' has 1 numbers, not 2");
    CHECK(broken("curves", json::array({json::array(), json::array(), json::array()})) ==
          lane1 + "'curves' is not a list of at most 2 seeds");
    CHECK(broken("curves", json::array({json::array({0.5, 0.5})})) == lane1 + "'curves' item 0 has 2 numbers, not 17");
    CHECK(broken("final_loss", json::array({1.0, 2.0})) == lane1 + "'final_loss' has 2 numbers, not 1");
    CHECK(broken("betas", json::array({0.1, 0.2, 0.3})) == lane1 + "'betas' has 3 numbers, not 0 or 2");
    CHECK(broken("betas", "<img src=x>") == lane1 + "'betas' is not a list");
    // A refused state changes nothing: the good one stands (its seed's row, the delta rule's
    // column filled in; the session's own first seed and softmax's lane are not in yet).
    const json r = reply(api.step(h, 1));
    CHECK(r["error"] == "");
    REQUIRE(seed_rows(r).size() == 1);
    CHECK(seed_rows(r)[0][3] != "…");
    CHECK(seed_rows(r)[0][1] == "…");
    // Lane 2's (softmax) state is refused in lane 2's words.
    const int l2 = reply(api.start_lane("fast_weights", kFastLaneParams, "en", 2, 2))["handle"];
    const json good2 = reply(api.step(l2, 20, true))["state"];
    REQUIRE(reply(api.take_lane(h, 2, good2.dump())) == json::object());
    json bad2 = good2;
    bad2["curves"] = json::array({json::array({0.5})});
    CHECK(lane_error_of(api.take_lane(h, 2, bad2.dump())) == "fast_weights: lane 2's state: 'curves' item 0 has 1 numbers, not 17");
    CHECK(lane_error_of(api.take_lane(h, 3, good2.dump())) == "fast_weights computes no lane 3 elsewhere");
}

TEST_CASE("lanes: momentum_attention's momentum model trained as a lane of its own ends in the whole session's Result") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    const std::string params = R"({"steps": 20, "seeds": 2, "width": 16})";
    const json whole = whole_run(api, params, 3, "momentum_attention");
    REQUIRE(whole["done"] == true);
    REQUIRE(whole["error"] == "");
    bool waited = false;
    CHECK(split_run(api, params, 3, 2, 7, nullptr, "momentum_attention") == whole);
    CHECK(split_run(api, params, 3, 9, 1, &waited, "momentum_attention") == whole);
    CHECK(waited);
    CHECK(scalar_of(whole, "ppl_momentum").is_number());
    CHECK(scalar_of(whole, "seeds_icl_better").is_number());
    CHECK(whole_run(api, params, 4, "momentum_attention") != whole);

    // Waiting for the lane: its seeds show as not yet in; a malformed state is refused by
    // name and changes nothing.
    const int h = reply(api.start("momentum_attention", params, "en", 3))["handle"];
    REQUIRE(reply(api.offload(h, 1)) == json::object());
    json r = reply(api.step(h, 1000));
    CHECK(r["waiting"] == true);
    CHECK(r["done"] == false);
    REQUIRE(seed_rows(r).size() == 3);  // two seeds and the paper's row
    CHECK(seed_rows(r)[0][1].get<std::string>().find("→ …") != std::string::npos);
    CHECK(scalar_of(r, "seeds_ppl_better") == 0);
    const int l = reply(api.start_lane("momentum_attention", params, "en", 3, 1))["handle"];
    const json good = reply(api.step(l, 20, true))["state"];
    const std::string lane1 = "momentum_attention: lane 1's state: ";
    auto broken = [&](const char* key, const json& value) { return refused_with(api, h, good, key, value); };
    CHECK(broken("steps", -1) == lane1 + "'steps' is not a whole number of steps from 0 to 40");
    CHECK(broken("ppl", json::array({1, 2, 3})) == lane1 + "'ppl' has more than 2 seeds");
    CHECK(broken("icl", json::array({0.5, 0.5})) == lane1 + "'icl' has 2 numbers, not 1");
    CHECK(broken("prev", json::array({"x"})) == lane1 + "'prev' holds something that is not a number");
    CHECK(broken("loss", json::object()) == lane1 + "'loss' is not a list");
    r = reply(api.step(h, 1));
    CHECK(seed_rows(r)[0][1].get<std::string>().find("→ …") != std::string::npos);  // nothing taken
    REQUIRE(reply(api.take_lane(h, 1, good.dump())) == json::object());
    r = reply(api.step(h, 1));
    CHECK(seed_rows(r)[0][1].get<std::string>().find("…") == std::string::npos);
    CHECK(seed_rows(r)[1][1].get<std::string>().find("→ …") != std::string::npos);
    CHECK(r["waiting"] == true);
}
