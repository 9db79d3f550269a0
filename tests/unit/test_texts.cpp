// Catalogues (icl/texts.h): templates with named placeholders, English beneath a language,
// and every key a demo file asks for present in both shipped languages.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "demo_testing.h"
#include "icl/demo.h"
#include "icl/texts.h"

TEST_CASE("texts: placeholders by name, with a printf precision for numbers") {
    using icl::fill_template;
    CHECK(fill_template("step {step} of {n}", {{"n", 200}, {"step", 12}}) == "step 12 of 200");
    CHECK(fill_template("KL = {kl:.3f} nats", {{"kl", 0.0123456}}) == "KL = 0.012 nats");
    CHECK(fill_template("{x:.2g} and {x:.1e}", {{"x", 12345.0}}) == "1.2e+04 and 1.2e+04");
    CHECK(fill_template("{x}", {{"x", 0.5}}) == "0.5");          // not an integer: four significant digits
    CHECK(fill_template("{x}", {{"x", 1.0 / 3}}) == "0.3333");
    CHECK(fill_template("{head} 다음 {head}", {{"head", "L1H0"}}) == "L1H0 다음 L1H0");
    CHECK(fill_template("{{literal}} {missing}", {}) == "{literal} {missing}");  // no value: stays visible
    CHECK(fill_template("{x:%n}", {{"x", 3.5}}) == "3.5");       // only .<digits><f|g|e> reaches printf
    CHECK(fill_template("unclosed {x", {{"x", 1}}) == "unclosed {x");
}

TEST_CASE("texts: a language's messages over English; an unknown key shows as ⟦key⟧") {
    const nlohmann::json en = {{"title", "Dual form"}, {"note", "{n} points"}}, ko = {{"title", "쌍대 형태"}};
    auto t = icl::Texts::from_layers("ko", {en, ko}, {"en", "ko"});
    REQUIRE(t.ok());
    CHECK(t.value()("title") == "쌍대 형태");
    CHECK(t.value()("note", {{"n", 3}}) == "3 points");  // the language lacks it: English
    CHECK(t.value()("nope") == "⟦nope⟧");
    auto bad = icl::Texts::from_layers("ko", {en, {{"title", 3}}}, {"lessons/en/x.json", "lessons/ko/x.json"});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message == "lessons/ko/x.json: 'title' is not a string");
    CHECK(icl::check_lang_code("pt-BR").ok());
    CHECK(icl::check_lang_code("en-XA").ok());
    for (const char* code : {"", "e", "EN", "english", "../en", "en/", "en-", "en-toolongregion"})
        CHECK_FALSE(icl::check_lang_code(code).ok());
}

TEST_CASE("texts: every key a demo file names is in the English and the Korean catalogue") {
    // The keys a demo asks for by literal: msg("key"), ctx_.text("key"), and the keys it
    // keeps in tables ("arm.softmax", "condition.gold", ...: a dotted literal).
    const std::regex called(R"((?:\bmsg|ctx_\.text)\("([a-z0-9_.]+)\")"), dotted(R"("([a-z_]+\.[a-z0-9_]+)\")");
    int keys = 0;
    for (const icl::DemoDef* d : icl::all_demos()) {
        if (d->id == "lesson_probe") continue;
        std::ifstream in(std::string(ICL_SOURCE_DIR) + "/core/demos/" + d->id + ".cpp");
        REQUIRE_MESSAGE(in.good(), d->id);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string src = ss.str();
        std::set<std::string> wanted;
        for (const std::regex& re : {called, dotted})
            for (auto it = std::sregex_iterator(src.begin(), src.end(), re); it != std::sregex_iterator(); ++it)
                wanted.insert((*it)[1]);
        for (const char* lang : {"en", "ko"}) {
            const icl::Texts t = icl::testing::texts(lang, d->id);
            for (const std::string& key : wanted) {
                if (key.rfind("task.", 0) == 0 && key.size() == 5) continue;
                CHECK_MESSAGE(t.has(key), std::string(lang) << "/catalogue/" << d->id << ".json lacks '" << key << "'");
                ++keys;
            }
        }
    }
    CHECK(keys > 400);
}
