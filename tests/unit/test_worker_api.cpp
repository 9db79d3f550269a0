// The web worker's JSON API (icl/worker_api.h): every bad request is an {"error"} that
// names the problem; good requests give the documented shapes.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "icl/worker_api.h"

namespace {
using nlohmann::json;
json call(const std::string& text) { return json::parse(text); }
std::string error_of(const std::string& text) {
    const json j = call(text);
    return j.is_object() && j.contains("error") ? j["error"].get<std::string>() : "";
}
}  // namespace

TEST_CASE("worker api: parse_params takes URL-style strings, and names what is wrong") {
    icl::WorkerApi api;
    CHECK(call(api.parse_params("dual_form", R"(["lr=0.05", "optimizer=adam"])"))["params"] ==
          json{{"lr", 0.05}, {"optimizer", "adam"}});
    CHECK(error_of(api.parse_params("nope", "[]")) == "unknown demo 'nope'");
    CHECK(error_of(api.parse_params("dual_form", "[\"lr=0.05\"")) == "the parameter list is not valid JSON");
    CHECK(error_of(api.parse_params("dual_form", R"({"lr": 1})")).find("must be an array") != std::string::npos);
    CHECK(error_of(api.parse_params("dual_form", "[3]")).find("only \"name=value\" strings") != std::string::npos);
    CHECK(error_of(api.parse_params("dual_form", R"(["lr=<script>"])")).find("'lr' = '<script>' is not a number") != std::string::npos);
    CHECK(error_of(api.parse_params("dual_form", R"(["lr"])")) == "'lr' is not of the form name=value");
}

TEST_CASE("worker api: a learner's mistake comes back in the language asked for, else in English") {
    icl::WorkerApi api;
    // Korean: ko/catalogue/common.json's text, written out here by hand.
    CHECK(error_of(api.parse_params("dual_form", R"(["lr=99"])", "ko")) ==
          "매개변수 'lr' = 99은(는) 범위를 벗어났습니다: [0.001, 1] 사이의 수여야 합니다");
    CHECK(error_of(api.start("dual_form", R"({"lr": 99})", "ko", 1)) ==
          "매개변수 'lr' = 99은(는) 범위를 벗어났습니다: [0.001, 1] 사이의 수여야 합니다");
    const std::string numeric = R"({"type": "numeric", "grading": {"answer": 0.5, "tol": 0.1}})";
    CHECK(error_of(api.grade(numeric, "\"abc\"", "null", "ko")) ==
          "'abc'은(는) 수가 아닙니다: 0.25, 0,25, 2.5e-1처럼 숫자로 입력하세요");
    // A language without a catalogue, or none: English.
    CHECK(error_of(api.parse_params("dual_form", R"(["lr=99"])", "fr")) ==
          "parameter 'lr' = 99 is out of range: expected a number in [0.001, 1]");
    CHECK(error_of(api.grade(numeric, "\"abc\"", "null")) ==
          "'abc' is not a number: type digits such as 0.25, 0,25 or 2.5e-1");
}

TEST_CASE("worker api: JSON nested 100,000 deep is an error that says so, in start, progress_record and progress_fit") {
    icl::WorkerApi api;
    const auto nested = [](int depth, const char* open, const char* close) {
        std::string s;
        for (int i = 0; i < depth; ++i) s += open;
        s += "1";
        for (int i = 0; i < depth; ++i) s += close;
        return s;
    };
    const std::string objects = nested(100000, "{\"a\":", "}"), arrays = nested(100000, "[", "]");
    const std::string progress = json::parse(api.progress_read("", 0))["text"].get<std::string>();
    for (const std::string* deep : {&objects, &arrays}) {
        CHECK(error_of(api.start("dual_form", *deep, "en", 1)).find("nested more than 64 deep") != std::string::npos);
        CHECK(error_of(api.progress_record(progress, "l", "c", *deep, true, 1)).find("nested more than 64 deep") != std::string::npos);
        CHECK(error_of(api.progress_fit(progress, "l", *deep)).find("nested more than 64 deep") != std::string::npos);
    }
    // At the bound it is read (and refused for what it is); brackets inside a string do not count.
    CHECK(error_of(api.start("dual_form", nested(64, "{\"a\":", "}"), "en", 1)).find("'a'") != std::string::npos);
    CHECK(error_of(api.start("dual_form", nested(64, "{\"a\":", "}"), "en", 1)).find("nested") == std::string::npos);
    CHECK(error_of(api.progress_record(progress, "l", "c", "\"" + std::string(1000, '[') + "\"", true, 1)).empty());
    CHECK(error_of(api.progress_fit(progress, "l", nested(65, "[", "]"))).find("the checks") != std::string::npos);
}

TEST_CASE("worker api: start, step and drop; bad handles, budgets, seeds and languages are errors") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");  // the catalogues (the worker puts them; natively a folder)
    icl::WorkerApi api;
    const json started = call(api.start("dual_form", "{}", "en", 1));
    REQUIRE(started.contains("handle"));
    const int h = started["handle"];
    CHECK(error_of(api.step(h, 0)) == "the step budget must be at least 1");
    const json result = call(api.step(h, 1));
    CHECK(result["demo"] == "dual_form");
    CHECK(result["done"] == true);
    CHECK(call(api.drop(h)) == json::object());
    CHECK(error_of(api.step(h, 1)) == "no demo session " + std::to_string(h));
    CHECK(error_of(api.start("dual_form", "{}", "fr", 1)) == "unknown language 'fr': lessons/fr/catalogue/ has neither common.json nor dual_form.json");
    CHECK(error_of(api.start("dual_form", "{}", "en", -1)) == "the seed must be a non-negative integer");
    CHECK(error_of(api.start("dual_form", "{}", "en", 0.5)) == "the seed must be a non-negative integer");
    CHECK(error_of(api.start("dual_form", "[]", "en", 1)) == "the parameters must be a JSON object");
    CHECK(error_of(api.start("dual_form", R"({"lr": 99})", "en", 1)).find("'lr' = 99 is out of range") != std::string::npos);
}

TEST_CASE("worker api: a step without a snapshot says only where the run is; the run ends the same") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    const std::string params = R"({"steps": 40, "batch": 4, "length": 16, "width": 16})";
    const int quiet = call(api.start("induction_heads", params, "en", 3))["handle"];
    const int shown = call(api.start("induction_heads", params, "en", 3))["handle"];
    double last = -1;
    json end;
    for (int slice = 0; slice < 100; ++slice) {
        const json q = call(api.step(quiet, 7, false));
        const json s = call(api.step(shown, 7));  // a snapshot every slice, as before
        CHECK(s.contains("panels"));
        if (q["done"] == true) {
            end = q;
            CHECK(s["done"] == true);
            break;
        }
        // exactly {done, progress} while running, progress growing, below 1
        CHECK(q.size() == 2);
        CHECK(q["progress"].get<double>() > last);
        CHECK(q["progress"].get<double>() < 1.0);
        CHECK(q["progress"].get<double>() == s["progress"].get<double>());
        last = q["progress"].get<double>();
    }
    // the last slice answers with the whole Result, as a snapshot would: the snapshots
    // along the way changed nothing that was computed
    REQUIRE(end.contains("panels"));
    CHECK(end.dump() == call(api.step(shown, 1, false)).dump());
    CHECK(last > 0.5);
}

TEST_CASE("worker api: put_asset stores a demo's file; a nameless one is an error") {
    icl::WorkerApi api;
    CHECK(call(api.put_asset("checkpoints/worker-api-test.bin", {7, 8})) == json::object());
    auto stored = icl::get_asset("checkpoints/worker-api-test.bin");
    REQUIRE(stored.ok());
    CHECK(*stored.value() == std::vector<uint8_t>{7, 8});
    CHECK(error_of(api.put_asset("", {1})) == "an asset needs a name");
}

TEST_CASE("worker api: a page that leaks sessions is refused past the bound, not run out of memory") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    icl::WorkerApi api;
    for (size_t i = 0; i < icl::WorkerApi::kMaxSessions; ++i) REQUIRE(call(api.start("gpt_scaling", "{}", "en", 1)).contains("handle"));
    CHECK(error_of(api.start("gpt_scaling", "{}", "en", 1)) == "too many demo sessions are open (64)");
}

TEST_CASE("worker api: grade answers, and malformed checks, answers and results are errors") {
    icl::WorkerApi api;
    const std::string check = R"({"type": "choice", "grading": {"answer": "b"}, "feedback_html": "<p>f</p>",
                                  "options": [{"key": "a"}, {"key": "b"}]})";
    CHECK(call(api.grade(check, "\"b\"", "null"))["correct"] == true);
    CHECK(call(api.grade(check, "\"a\"", "null"))["correct"] == false);
    CHECK(error_of(api.grade("{", "\"b\"", "null")) == "the check is not valid JSON");
    CHECK(error_of(api.grade("[]", "\"b\"", "null")) == "the check must be a JSON object");
    CHECK(error_of(api.grade(check, "b", "null")) == "the answer is not valid JSON");
    CHECK(error_of(api.grade(check, "\"b\"", "[1]")) == "the demo result must be a JSON object or null");
    CHECK(!error_of(api.grade(check, "\"<img onerror=x>\"", "null")).empty());
}

TEST_CASE("worker api: a float slider moves in log steps exactly when it spans two decades, all positive") {
    // The one rule both front ends read (ParamSpec::log_scale, the JSON's "log"); checked
    // here against ranges read off the demos' own specs, not recomputed from the code.
    icl::WorkerApi api;
    const json demos = call(api.demos("en"));
    REQUIRE(demos.is_array());
    std::map<std::string, bool> seen;
    for (const json& d : demos)
        for (const json& p : d["params"])
            if (p.contains("log")) seen[d["id"].get<std::string>() + "." + p["name"].get<std::string>()] = p["log"].get<bool>();
    // lr over 1e-4..1e-2 (100x) and 1e-5..5e-2: log; momentum's eta 0.05..0.95 (19x) and an
    // int range (1..64): linear.
    CHECK(seen.at("momentum_attention.lr") == true);
    CHECK(seen.at("shots_curve.ft_lr") == true);
    CHECK(seen.at("momentum_attention.eta") == false);
    CHECK(seen.at("attention_dual.input_scale") == false);  // 0.05..3: 60x
    CHECK(seen.at("dual_form.n_train") == false);
}
