// docs/authoring.md, the lesson authors' guide: every ```demo and ```check example in it
// must parse as a lesson, name a registered demo with valid parameters, and together they
// must show every check type (native only: the lesson parser uses md4c).
#ifndef ICL_WASM
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>

#include "icl/demo.h"
#include "icl/lesson.h"

TEST_CASE("authoring guide: its demo and check examples parse, and every check type has one") {
    std::ifstream in(ICL_SOURCE_DIR "/docs/authoring.md");
    REQUIRE(in);
    // An example is a line opening a ``` fence whose first info word is demo or check, up
    // to the next line that is ``` (the guide wraps them in ```` fences to show them).
    // Figures the guide writes as code spans, `{{0.66 @adam:rel_diff ±0.02}}`, go in as text.
    std::string examples, figures, line;
    int demos = 0, checks = 0;
    bool inside = false;
    while (std::getline(in, line)) {
        if (inside) {
            examples += line + "\n";
            inside = line != "```";
            continue;
        }
        const bool fence = line.rfind("```", 0) == 0 && line.size() > 3 && line[3] != '`';
        const std::string word = fence ? line.substr(3, line.find(' ') - 3) : "";
        if (word == "demo" || word == "check") {
            ++(word == "demo" ? demos : checks);
            examples += "\n" + line + "\n";
            inside = true;
            continue;
        }
        for (size_t at = line.find("`{{"); at != std::string::npos; at = line.find("`{{", at + 1)) {
            const size_t end = line.find("}}`", at);
            if (end != std::string::npos && line.find('`', at + 1) == end + 2)  // one code span
                figures += line.substr(at, end + 3 - at) + "\n";
        }
    }
    REQUIRE_FALSE(inside);
    REQUIRE(demos > 0);
    const std::string doc = "---\nid: authoring\ntitle: The guide's examples\norder: 1\nsummary: S\n---\n" +
                            figures + examples;
    const icl::LessonParse parsed = icl::parse_lesson_collect(doc, "lessons/en/01-authoring.md");
    REQUIRE_MESSAGE(parsed.problems.empty(), icl::to_string(parsed.problems.front()), "\nin the examples:\n", doc);
    REQUIRE_MESSAGE(parsed.math_problems.empty(), icl::to_string(parsed.math_problems.front()), "\nin the examples:\n", doc);

    int parsed_demos = 0, parsed_checks = 0;
    std::set<std::string> types, instances;
    bool own_run = false;
    for (const icl::LessonBlock& block : parsed.lesson.blocks) {
        if (const auto* d = std::get_if<icl::DemoBlock>(&block)) {
            ++parsed_demos;
            instances.insert(d->name);
            const icl::DemoDef* def = icl::find_demo(d->demo);
            REQUIRE_MESSAGE(def != nullptr, "the guide runs an unknown demo '", d->demo, "'");
            const auto valid = icl::validate_params(def->params, d->params);
            CHECK_MESSAGE(valid, "demo ", d->name, ": ", valid ? std::string() : valid.error().message);
        } else if (const auto* c = std::get_if<icl::CheckBlock>(&block)) {
            ++parsed_checks;
            types.insert(icl::check_type_name(c->type));
            own_run = own_run || c->grading.value("run", "") == "own";
        }
    }
    REQUIRE(parsed_demos == demos);
    REQUIRE(parsed_checks == checks);
    for (const std::string type : {"choice", "multi", "truefalse", "numeric", "text", "predict"})
        CHECK_MESSAGE(types.count(type) == 1, "the guide has no ", type, " check example");
    CHECK_MESSAGE(own_run, "the guide has no run=own predict check example");
    // Quoted figures, absolute and relative, each naming an instance the examples set up.
    const auto& quoted = parsed.lesson.figures;
    CHECK(std::any_of(quoted.begin(), quoted.end(), [](const icl::Figure& f) { return !f.relative; }));
    CHECK(std::any_of(quoted.begin(), quoted.end(), [](const icl::Figure& f) { return f.relative; }));
    for (const icl::Figure& f : quoted)
        CHECK_MESSAGE(instances.count(f.instance) == 1, "figure ", f.text, " quotes '", f.instance, "', no example instance");
}
#endif  // ICL_WASM
