// The `text` parameter kind (icl/demo.h): tokenizing, the vocabulary check and its
// error message, the length bound, and the same value through JSON and "k=v" strings.
#include <doctest/doctest.h>

#include "icl/demo.h"

namespace {

icl::ParamSpec prompt_spec() {
    return icl::ParamSpec::text("prompt", "hot → cold ; fast →", 24,
                                {"→", ";", "hot", "cold", "big", "small", "fast", "slow", "old", "Paris"});
}

}  // namespace

TEST_CASE("text param: words, symbols split off, -> read as →, the vocabulary's spelling kept") {
    auto spec = prompt_spec();
    spec.max_length = 40;
    auto t = icl::tokenize_text(spec, "  hot->cold;  FAST ->\tparis ");
    REQUIRE(t);
    CHECK(t.value() == std::vector<std::string>{"hot", "→", "cold", ";", "fast", "→", "Paris"});
    auto p = icl::validate_params({spec}, {{"prompt", "big -> small ; old ->"}});
    REQUIRE(p);
    CHECK(p.value().text("prompt") == "big → small ; old →");
    CHECK(p.value().token_ids("prompt") == std::vector<int>{4, 0, 5, 1, 8, 0});
    auto d = icl::validate_params({spec}, nlohmann::json::object());  // absent: the default
    REQUIRE(d);
    CHECK(d.value().tokens("prompt").size() == 6);
    // no vocabulary: any whitespace-separated word, symbols not split
    icl::ParamSpec free = spec;
    free.vocabulary.clear();
    CHECK(icl::tokenize_text(free, "a;b  c->").value() == std::vector<std::string>{"a;b", "c→"});
}

TEST_CASE("text param: an unknown word is named with its position and the nearest words") {
    const auto spec = prompt_spec();
    auto t = icl::tokenize_text(spec, "hot -> colt ;");
    REQUIRE(!t);
    // edit distances from "colt": cold 1; hot 2, old 2 (vocabulary order breaks the tie)
    CHECK(t.error().message == "parameter 'prompt': 'colt' (word 3) is not in the vocabulary; nearest: cold, hot, old");
    auto p = icl::validate_params({spec}, {{"prompt", "<b>x</b>"}});
    REQUIRE(!p);
    CHECK(p.error().message.find("'<b>x</b>' (word 1) is not in the vocabulary") != std::string::npos);
    // the length bound counts code points ("→" is one), and other refusals name the problem
    CHECK(icl::tokenize_text(spec, "hot → cold ; big → small").ok());  // 24 code points
    CHECK(icl::tokenize_text(spec, "hot → cold ; big → small ").error().message ==
          "parameter 'prompt' is 25 characters long: expected at most 24");
    CHECK(icl::tokenize_text(spec, "hot\x01").error().message.find("control character (U+0001) at character 4") != std::string::npos);
    CHECK(icl::tokenize_text(spec, "hot \xff").error().message == "parameter 'prompt' is not valid UTF-8 (byte 5)");
    CHECK(icl::validate_params({spec}, {{"prompt", 3}}).error().message.find("'prompt' is not a string") != std::string::npos);
}

TEST_CASE("text param: the CLI/URL form and the DemoInfo JSON carry it") {
    const auto spec = prompt_spec();
    auto j = icl::parse_param_strings({spec}, {"prompt=big -> small ; fast =x"});
    REQUIRE(j);
    CHECK(j.value()["prompt"] == "big -> small ; fast =x");  // everything after the first '='
    CHECK(icl::validate_params({spec}, j.value()).error().message.find("'=x' (word 6)") != std::string::npos);
    icl::DemoDef def;
    def.id = "t";
    def.params = {spec};
    const auto info = icl::to_json(def, icl::Texts())["params"][0];
    CHECK(info["type"] == "text");
    CHECK(info["default"] == "hot → cold ; fast →");
    CHECK(info["max_length"] == 24);
    CHECK(info["vocabulary"].size() == 10);
}
