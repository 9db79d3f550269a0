#include <doctest/doctest.h>

#include "icl/demo.h"
#include "icl/param_count.h"

// Independent anchors: the published parameter counts of GPT-2 (Hugging Face's
// gpt2 = 124,439,808 and gpt2-xl = 1,557,611,200 parameters with the tied head)
// and GPT-3's named 175B (Brown et al. 2020).
TEST_CASE("param_count: matches GPT-2's published counts exactly") {
    CHECK(icl::gpt_param_count(12, 768, 50257, 1024).total() == 124439808);
    CHECK(icl::gpt_param_count(48, 1600, 50257, 1024).total() == 1557611200);
}

TEST_CASE("param_count: reproduces GPT-3 175B within 1%") {
    const double n = static_cast<double>(icl::gpt_param_count(96, 12288, 50257, 2048).total());
    CHECK(std::abs(n - 175e9) / 175e9 < 0.01);
}

TEST_CASE("gpt_scaling demo: defaults give GPT-3, the ratio table and eight sizes") {
    auto s = icl::start_demo("gpt_scaling", nlohmann::json::object(), icl::Texts(), 1);
    REQUIRE(s.ok());
    s.value()->step(1);
    REQUIRE(s.value()->done());
    const auto j = icl::to_json(s.value()->result());
    const auto& scalars = j["panels"][0]["items"];
    CHECK(scalars[0]["name"] == "params");
    CHECK(scalars[0]["value"].get<double>() == doctest::Approx(175e9).epsilon(0.01));
    const double ratio = scalars[3]["value"].get<double>();
    CHECK(ratio > 100);  // 175B / 1.5B ≈ 117 nominal; the formula's counts give ≈ 112
    CHECK(ratio < 120);
    bool found_sizes = false;
    for (const auto& p : j["panels"])
        if (p["kind"] == "table" && p["rows"].size() == 8) found_sizes = true;
    CHECK(found_sizes);
}

TEST_CASE("gpt_scaling demo: out-of-range width is refused by name") {
    auto s = icl::start_demo("gpt_scaling", {{"width", 0}}, icl::Texts(), 1);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find("width") != std::string::npos);
    CHECK(s.error().message.find("[16, 16384]") != std::string::npos);
}
