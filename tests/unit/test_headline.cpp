// Results in words: every result opens with the catalogue's headline, its numbers in
// place; scalars carry a label (never their identifier) and a flag its words. prompt_lab's
// headline names the word a full forward pass of the shipped model ranks first, with its
// probability, and says whether it is the label the prompt gives.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

#include "demo_testing.h"
#include "icl/gpt.h"
#include "icl/recipe.h"
#include "icl/tasks.h"

namespace {

const icl::Scalar& scalar_of(const icl::Result& r, const std::string& name) {
    for (const icl::Panel& p : r.panels)
        if (const auto* s = std::get_if<icl::ScalarsPanel>(&p))
            for (const icl::Scalar& it : s->items)
                if (it.name == name) return it;
    FAIL("no scalar " << name);
    throw 0;
}

std::string printed(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// The top word of the shipped task model after `prompt` and its probability, from a full
// forward pass (not prompt_lab's path).
std::pair<std::string, double> top_word(const std::string& prompt) {
    icl::testing::use_shipped_lessons();
    auto m = icl::recipe::load_shipped_model("tasks");
    REQUIRE(m.ok());
    std::vector<int> tokens = {icl::tasks::kBos};
    std::string w;
    for (size_t i = 0; i <= prompt.size(); ++i) {
        if (i == prompt.size() || prompt[i] == ' ') {
            if (!w.empty()) tokens.push_back(icl::tasks::suite().find_word(w));
            w.clear();
        } else {
            w += prompt[i];
        }
    }
    icl::gpt::Activations acts;
    REQUIRE(icl::gpt::forward(m.value(), acts, tokens.data(), nullptr, 1, (int)tokens.size()));
    const int V = m.value().config.vocab;
    const float* l = acts.logits_ptr() + (tokens.size() - 1) * V;
    const double mx = *std::max_element(l, l + V);
    double z = 0;
    for (int v = 0; v < V; ++v) z += std::exp((double)l[v] - mx);
    const int top = (int)(std::max_element(l, l + V) - l);
    return {icl::tasks::suite().words[(size_t)top], 1.0 / z};
}

}  // namespace

TEST_CASE("headline: regression_lab opens with the gap between one GD step and the constructed layer") {
    const icl::Result r = icl::testing::run_demo("regression_lab", nlohmann::json::object());
    const double gap = scalar_of(r, "max_abs_diff").value;
    CHECK(gap < 1e-5);  // the identity holds to float rounding
    CHECK(r.headline == "One GD step and the constructed attention layer agree to **" + printed("%.0e", gap) + "**.");
    const icl::Result ko = icl::testing::run_demo("regression_lab", nlohmann::json::object(), "ko");
    CHECK(ko.headline == "GD 한 step과 구성한 attention 층은 **" + printed("%.0e", gap) + "**까지 일치합니다.");
    // Cards: the catalogue's label; the export keeps the identifier as the name.
    CHECK(scalar_of(r, "gd_one_step").label == "one GD step");
    CHECK(scalar_of(ko, "gd_one_step").label == "GD 한 step");
    CHECK(nlohmann::json(icl::to_json(r))["panels"][0]["items"][1]["name"] == "gd_one_step");
}

TEST_CASE("headline: prompt_lab names the model's top word and says whether the prompt gave it") {
    struct Case { std::string prompt, variant; std::string label; };
    const std::vector<Case> cases = {
        {"hot → cold ; big → small ; fast →", "own", ""},              // the query has no label in the prompt
        {"hot → cold ; fast → slow ; big → small ; fast →", "follows", "slow"},  // fast's label is given
    };
    for (const Case& c : cases) {
        CAPTURE(c.prompt);
        const icl::Result r = icl::testing::run_demo("prompt_lab", {{"prompt", c.prompt}, {"continue", 0}});
        const auto [word, p] = top_word(c.prompt);
        if (c.variant == "follows") REQUIRE(word == c.label);  // the model follows the label given in context
        const std::string pct = printed("%.2f", 100 * p);
        if (c.variant == "own")
            CHECK(r.headline == "The model answers **" + word + "** (" + pct + " %); your prompt gives this query no label, so this is its own reading.");
        else
            CHECK(r.headline == "The model answers **" + word + "** (" + pct + " %) — the label your prompt gives.");
        // The flag −1 / 0 / 1 reads as words.
        CHECK(scalar_of(r, "follows_label").text == (c.variant == "own" ? "no label given" : "yes"));
        CHECK(scalar_of(r, "label_in_context").text == (c.variant == "own" ? "no" : "yes"));
    }
    // A label the model does not follow: the headline names both words.
    const icl::Result r = icl::testing::run_demo("prompt_lab", {{"prompt", "hot → cold ; fast → hot ; fast →"}, {"continue", 0}});
    const auto [word, p] = top_word("hot → cold ; fast → hot ; fast →");
    if (word != "hot") {
        CHECK(r.headline.find("The model answers **" + word + "**") == 0);
        CHECK(r.headline.find("not **hot**") != std::string::npos);
        CHECK(scalar_of(r, "follows_label").text == "no, another word");
    } else {
        CHECK(r.headline.find("— the label your prompt gives") != std::string::npos);
    }
}

TEST_CASE("headline: every analytic demo opens with a filled headline and labels every scalar, in both languages") {
    const std::regex identifier("\\b[a-z][a-z0-9]*(_[a-z0-9]+)*_[a-z][a-z0-9]+\\b");
    for (const icl::DemoDef* d : icl::all_demos()) {
        icl::testing::use_shipped_lessons();
        if (!d->analytic || !icl::load_catalogue("en", {d->id}).ok()) continue;  // (a test's own demo has no texts)
        for (const std::string lang : {"en", "ko"}) {
            CAPTURE(d->id);
            CAPTURE(lang);
            const icl::Result r = icl::testing::run_demo(d->id, nlohmann::json::object(), lang);
            CHECK(!r.headline.empty());
            CHECK(r.headline.find('{') == std::string::npos);
            for (const icl::Panel& p : r.panels)
                if (const auto* s = std::get_if<icl::ScalarsPanel>(&p))
                    for (const icl::Scalar& it : s->items) {
                        CAPTURE(it.name);
                        CHECK(!it.label.empty());
                        if (it.name.find('_') != std::string::npos) CHECK(it.label != it.name);  // (a plain word may be both)
                        CHECK(!std::regex_search(it.label, identifier));
                    }
        }
    }
}
