// A long run saved and resumed (save_checkpoint / resume_checkpoint, icl/demo_checkpoint.h): a run of N
// units straight against N/2 units, a checkpoint written out as text and read back into a
// fresh session, then N/2 more — the Result and the final weights and optimizer moments
// bit for bit the same; a checkpoint that does not fit is refused by name; attention-only
// weight decay reaches the optimizer (read from the checkpoint's weights after one step).
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>

#include "demo_testing.h"
#include "icl/demo.h"
#include "icl/demo_checkpoint.h"
#include "icl/gpt.h"
#include "icl/lane_state.h"
#include "icl/worker_api.h"

using namespace icl;

namespace {

std::unique_ptr<Session> start(const std::string& id, const nlohmann::json& params, int lane = 0) {
    auto s = start_demo(id, params, testing::texts("en", id), 3, lane);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? std::string() : s.error().message));
    return std::move(s.value());
}

void run_to_end(Session& s) {
    for (int guard = 0; !s.done() && guard < 100000; ++guard) s.step(7);
    REQUIRE(s.done());
}

// N units straight against half, save, resume in a fresh session, the rest.
void straight_vs_resumed(const std::string& id, const nlohmann::json& params, int half) {
    auto straight = start(id, params);
    run_to_end(*straight);
    auto first = start(id, params);
    first->step(half);
    REQUIRE_FALSE(first->done());
    CHECK_FALSE(save_checkpoint(*first).is_null());
    const std::string saved = save_checkpoint(*first).dump();  // as a page or the app stores it
    first.reset();
    auto resumed = start(id, params);
    const Status st = resume_checkpoint(*resumed, nlohmann::json::parse(saved));
    REQUIRE_MESSAGE(st.ok(), (st.ok() ? std::string() : st.error().message));
    CHECK(resumed->progress() > 0);  // where it stopped, not at 0
    run_to_end(*resumed);
    CHECK(to_json(resumed->result()).dump() == to_json(straight->result()).dump());
    CHECK(save_checkpoint(*resumed) == save_checkpoint(*straight));  // the weights and moments too
    // resuming twice, or after a step, is refused
    CHECK_FALSE(resume_checkpoint(*resumed, nlohmann::json::parse(saved)).ok());
}

}  // namespace

TEST_CASE("checkpoint: emergence_lab resumed halfway ends as the uninterrupted run, bit for bit") {
    straight_vs_resumed("emergence_lab", {{"steps", 60}, {"seeds", 2}, {"eval_every", 20}, {"classes", 32}, {"labels", 4},
                                          {"pairs", 4}, {"burstiness", 2}, {"dim", 8}, {"width", 16}, {"weight_decay", 0.01}},
                        31);
}

TEST_CASE("checkpoint: task_diversity_lab resumed in training and in its evaluation ends as the uninterrupted run") {
    const nlohmann::json p = {{"steps", 40}, {"seeds", 2}, {"eval_sequences", 32}, {"width", 16}, {"layers", 1}, {"heads", 1}};
    straight_vs_resumed("task_diversity_lab", p, 17);  // while training
    straight_vs_resumed("task_diversity_lab", p, 41);  // while evaluating
}

TEST_CASE("checkpoint: one that does not fit the session is refused by what differs, nothing thrown") {
    const nlohmann::json p = {{"steps", 20}, {"seeds", 1}, {"eval_every", 10}, {"classes", 32}, {"dim", 8}, {"width", 16}};
    auto a = start("emergence_lab", p);
    a->step(5);
    const nlohmann::json good = save_checkpoint(*a);
    auto refused = [&](nlohmann::json c, const std::string& says, const nlohmann::json& params) {
        auto s = start("emergence_lab", params);
        const Status st = resume_checkpoint(*s, c);
        REQUIRE_FALSE(st.ok());
        CHECK_MESSAGE(st.error().message.find(says) != std::string::npos, st.error().message);
    };
    nlohmann::json other = p;
    other["lr"] = 0.01;
    refused(good, "other parameters (lr)", other);
    nlohmann::json c = good;
    c["version"] = 99;
    refused(c, "version 99", p);
    c = good;
    c["demo"] = "task_diversity_lab";
    refused(c, "task_diversity_lab", p);
    c = good;
    c["state"]["seed0"]["model"]["weights"] = "not base64!";
    refused(c, "'weights' is not base64", p);
    c = good;
    LaneState three;  // moments of 3 numbers, not the model's
    std::vector<float> few(3, 0.0f);
    three.floats("m", few);
    c["state"]["seed0"]["model"]["m"] = three.json()["m"];
    refused(c, "'m' has 3 numbers, not", p);
    c = good;
    c["state"]["step"] = 21;
    refused(c, "'step' is not a whole number in [0, 20]", p);
    refused(nlohmann::json::array(), "not a checkpoint", p);
    // offloaded lanes must match: a whole session that offloaded lane 1 refuses one saved without
    nlohmann::json two = p;
    two["seeds"] = 2;
    auto whole = start("emergence_lab", two);
    const nlohmann::json unoffloaded = save_checkpoint(*whole);
    auto offloading = start("emergence_lab", two);
    REQUIRE(offloading->offload(1).ok());
    const Status st = resume_checkpoint(*offloading, unoffloaded);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().message.find("other lanes") != std::string::npos);
}

TEST_CASE("checkpoint: a lane session and the whole session that offloaded it resume each from its own") {
    const nlohmann::json p = {{"steps", 40}, {"seeds", 2}, {"eval_every", 20}, {"classes", 32}, {"dim", 8}, {"width", 16}};
    auto straight = start("emergence_lab", p);
    run_to_end(*straight);
    auto whole = start("emergence_lab", p);
    REQUIRE(whole->offload(1).ok());
    auto lane = start("emergence_lab", p, 1);
    whole->step(13);
    lane->step(22);  // saved at another step: each goes on from its own
    REQUIRE(whole->take_lane(1, lane->lane_state()).ok());
    const nlohmann::json cw = save_checkpoint(*whole), cl = save_checkpoint(*lane);
    auto whole2 = start("emergence_lab", p);
    REQUIRE(whole2->offload(1).ok());
    auto lane2 = start("emergence_lab", p, 1);
    REQUIRE(resume_checkpoint(*whole2, cw).ok());
    REQUIRE(resume_checkpoint(*lane2, cl).ok());
    CHECK_FALSE(resume_checkpoint(*lane2, cw).ok());  // another lane's
    run_to_end(*lane2);
    REQUIRE(whole2->take_lane(1, lane2->lane_state()).ok());
    run_to_end(*whole2);
    CHECK(to_json(whole2->result()).dump() == to_json(straight->result()).dump());
}

TEST_CASE("emergence_lab: decay_on = attention shrinks only the attention matrices (read after one step)") {
    nlohmann::json p = {{"steps", 20}, {"seeds", 1}, {"eval_every", 10}, {"classes", 32}, {"labels", 4}, {"pairs", 4},
                        {"dim", 8}, {"width", 16}, {"lr", 0.01}};
    auto weights_after_one_step = [&](double decay, const std::string& on) {
        nlohmann::json q = p;
        q["weight_decay"] = decay;
        q["decay_on"] = on;
        auto s = start("emergence_lab", q);
        s->step(1);
        const nlohmann::json saved = save_checkpoint(*s)["state"]["seed0"]["model"];
        LaneState in(saved);
        std::vector<float> w;
        in.floats("weights", w);
        REQUIRE(in.status().ok());
        return w;
    };
    gpt::Config c;  // the lab's model at these knobs
    c.vocab = 4;
    c.context = 9;
    c.width = 16;
    c.layers = 2;
    c.heads = 1;
    c.attention_only = true;
    c.token_input = false;
    c.input_dim = 8;
    const gpt::Layout lay = gpt::make_layout(c);
    const std::vector<float> none = weights_after_one_step(0, "attention"), attn = weights_after_one_step(0.5, "attention"),
                             all = weights_after_one_step(0.5, "all");
    REQUIRE(none.size() == lay.total);
    int attention_seen = 0, others_decayed_by_all = 0;
    for (const gpt::TensorInfo& t : lay.tensors) {
        const bool attention = t.name.find(".attn.w") != std::string::npos;
        size_t moved = 0, moved_all = 0;
        for (size_t i = t.offset; i < t.offset + t.size; ++i) {
            moved += attn[i] != none[i];
            moved_all += all[i] != none[i];
        }
        INFO(t.name);
        if (attention) {
            ++attention_seen;
            CHECK(moved > t.size / 2);
        } else {
            CHECK(moved == 0);
            others_decayed_by_all += t.decay && moved_all > t.size / 2;
        }
    }
    CHECK(attention_seen == 8);
    CHECK(others_decayed_by_all >= 2);  // "all" also shrinks the embeddings (wpe, wx)
    // the GRU has no attention matrices: refused by name
    p["model"] = "gru";
    p["decay_on"] = "attention";
    p["weight_decay"] = 0.1;
    auto g = start_demo("emergence_lab", p, testing::texts("en", "emergence_lab"), 1);
    REQUIRE_FALSE(g.ok());
    CHECK(g.error().message.find("GRU has no attention matrices") != std::string::npos);
}

TEST_CASE("checkpoint: 32-bit numbers travel as base64 of their little-endian bytes, bit for bit") {
    LaneState out;
    std::vector<float> one{1.0f};  // bytes 00 00 80 3f
    out.floats("a", one);
    CHECK(out.json()["a"] == "AACAPw==");
    std::vector<float> odd{-0.0f, 1e-45f, 3.4028235e38f, -1.5f, 0.1f};  // signed zero, a denormal, the largest
    out.floats("b", odd);
    const nlohmann::json j = out.json();
    LaneState in(j);
    std::vector<float> a, b;
    in.floats("a", a, 1);
    in.floats("b", b, 5);
    REQUIRE(in.status().ok());
    REQUIRE(b.size() == odd.size());
    for (size_t i = 0; i < b.size(); ++i) CHECK(std::memcmp(&b[i], &odd[i], 4) == 0);
    for (const char* bad : {"AACAPw=", "AACA", "AA=APw==", "AACAPw==AACA", "AAC*Pw=="}) {
        nlohmann::json k = {{"a", bad}};
        LaneState r(k);
        std::vector<float> v;
        r.floats("a", v);
        CHECK_MESSAGE(!r.status().ok(), bad);
    }
}

TEST_CASE("checkpoint: the worker API saves and resumes a run as text; a demo without checkpoints answers null") {
    testing::use_shipped_lessons();
    WorkerApi api;
    const std::string params = R"({"steps": 30, "seeds": 1, "eval_every": 10, "classes": 32, "dim": 8, "width": 16})";
    const int a = nlohmann::json::parse(api.start("emergence_lab", params, "en", 1))["handle"];
    api.step(a, 12, false);
    const std::string saved = api.checkpoint(a);
    const int b = nlohmann::json::parse(api.start("emergence_lab", params, "en", 1))["handle"];
    CHECK(api.resume(b, saved) == "{}");
    CHECK(nlohmann::json::parse(api.step(b, 1, false))["progress"] == doctest::Approx(13.0 / 30));
    const int c = nlohmann::json::parse(api.start("emergence_lab", params, "en", 1))["handle"];
    CHECK(nlohmann::json::parse(api.resume(c, "[1, 2")).contains("error"));
    CHECK(nlohmann::json::parse(api.resume(c, "{}"))["error"].get<std::string>().find("not a checkpoint") != std::string::npos);
    const int d = nlohmann::json::parse(api.start("dual_form", "{}", "en", 1))["handle"];
    CHECK(api.checkpoint(d) == "null");
    CHECK(nlohmann::json::parse(api.resume(d, saved))["error"] == "this demo keeps no checkpoints");
    CHECK(nlohmann::json::parse(api.checkpoint(999)).contains("error"));
    // the size a page stores for the lab's default run (3 seeds), for the choice of IndexedDB
    const int e = nlohmann::json::parse(api.start("emergence_lab", "{}", "en", 1))["handle"];
    api.step(e, 1, false);
    MESSAGE("emergence_lab's default checkpoint: " << api.checkpoint(e).size() << " bytes");
}
