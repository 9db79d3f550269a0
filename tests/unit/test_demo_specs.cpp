// Every registered demo's card and the header the framework writes into its results.
// The cards are built with ParamSpec's factories (icl/demo.h); what a factory cannot check
// at compile time — a choice's default among its choices, a default inside its range, a
// text default the demo's own vocabulary accepts — is checked here for all of them.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "demo_testing.h"
#include "icl/demo.h"

namespace {

void check_spec(const std::string& demo, const icl::ParamSpec& s) {
    INFO(demo << "." << s.name);
    switch (s.type) {
        case icl::ParamType::Int:
        case icl::ParamType::Float:
            CHECK(s.min <= s.default_value);
            CHECK(s.default_value <= s.max);
            CHECK(s.step > 0);
            if (s.type == icl::ParamType::Int) {
                CHECK(s.step == std::floor(s.step));
                CHECK(s.default_value == std::floor(s.default_value));
            }
            break;
        case icl::ParamType::Bool:
            CHECK((s.default_value == 0 || s.default_value == 1));
            break;
        case icl::ParamType::Choice: {
            REQUIRE(!s.choices.empty());
            CHECK(std::count(s.choices.begin(), s.choices.end(), s.default_choice) == 1);
            CHECK(std::set<std::string>(s.choices.begin(), s.choices.end()).size() == s.choices.size());
            break;
        }
        case icl::ParamType::Text: {
            CHECK(s.max_length > 0);
            const auto tokens = icl::tokenize_text(s, s.default_text);
            CHECK_MESSAGE(tokens.ok(), (tokens.ok() ? "" : tokens.error().message));
            break;
        }
        case icl::ParamType::Points:
            CHECK(s.min < s.max);
            CHECK(s.y_min < s.y_max);
            CHECK(s.min_count <= (int)s.default_points.size());
            CHECK((int)s.default_points.size() <= s.max_count);
            for (const auto& p : s.default_points) {
                CHECK(s.min <= p[0]);
                CHECK(p[0] <= s.max);
                CHECK(s.y_min <= p[1]);
                CHECK(p[1] <= s.y_max);
            }
            break;
    }
}

}  // namespace

TEST_CASE("demo cards: every parameter's default is one it accepts; title, summary and help in both languages") {
    REQUIRE(icl::all_demos().size() >= 20);
    for (const icl::DemoDef* d : icl::all_demos()) {
        if (d->id == "lesson_probe") continue;  // test_lesson.cpp's stand-in demo
        INFO(d->id);
        for (const char* lang : {"en", "ko"}) {
            INFO(lang);
            const icl::Texts t = icl::testing::texts(lang, d->id);
            CHECK(t.has("title"));
            CHECK(t.has("summary"));
            for (const icl::ParamSpec& s : d->params) CHECK_MESSAGE(t.has("param." + s.name), s.name);
        }
        CHECK(!d->paper.empty());
        CHECK(static_cast<bool>(d->start));
        std::set<std::string> names;
        for (const icl::ParamSpec& s : d->params) {
            CHECK(names.insert(s.name).second);
            check_spec(d->id, s);
        }
        // The defaults, taken together, are valid parameters.
        const auto defaults = icl::validate_params(d->params, nlohmann::json::object());
        CHECK_MESSAGE(defaults.ok(), (defaults.ok() ? "" : defaults.error().message));
    }
}

TEST_CASE("demo cards: a choice's default is read by name, not by its place in the list") {
    const icl::DemoDef* d = icl::find_demo("icl_vs_finetune");
    REQUIRE(d);
    const auto p = icl::validate_params(d->params, nlohmann::json::object());
    REQUIRE(p.ok());
    CHECK(p.value().s("task") == "continent");  // Dai et al.'s comparison, lesson 3
    CHECK(icl::to_json(*d, icl::Texts())["params"][0]["default"] == "continent");
}

TEST_CASE("results: the framework writes the header — the demo's id, progress, done and error") {
    // dual_form is analytic: one step finishes it.
    auto s = icl::start_demo("dual_form", nlohmann::json::object(), icl::Texts(), 1);
    REQUIRE(s.ok());
    icl::Result before = s.value()->result();
    CHECK(before.demo == "dual_form");
    CHECK(!before.done);
    CHECK(before.progress == 0);
    CHECK(before.error.empty());
    s.value()->step(1);
    const icl::Result after = s.value()->result();
    CHECK(after.demo == "dual_form");
    CHECK(after.done);
    CHECK(after.progress == 1);
    CHECK(!after.panels.empty());

    // The error a demo sets reaches the header: test_divergence.cpp's lsa_training case.

    // A training demo part-way: progress is the demo's own measure, strictly between 0 and 1.
    auto t = icl::start_demo("lsa_training", {{"steps", 100}}, icl::Texts(), 1);
    REQUIRE(t.ok());
    t.value()->step(10);
    const icl::Result mid = t.value()->result();
    CHECK(mid.demo == "lsa_training");
    CHECK(!mid.done);
    CHECK(mid.progress > 0);
    CHECK(mid.progress < 1);
}

TEST_CASE("demo_testing: a result without a missing message has none to quote (the check's text is built even when it passes)") {
    CHECK(icl::testing::missing_message("{\"title\":\"Loss\"}").empty());
    CHECK(icl::testing::missing_message("").empty());
    CHECK(icl::testing::missing_message("{\"title\":\"⟦panel.loss.title⟧\"}") == "⟦panel.loss.title⟧\"}");
}
