// docs/authoring.md, the lesson authors' guide: every ```demo and ```check example in it
// must parse as a lesson, name a registered demo with valid parameters, and together they
// must show every check type; its table of what the desktop's TeX pass shows must be
// what the pass shows (native only: the lesson parser uses md4c).
#ifndef ICL_WASM
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "icl/assets.h"
#include "icl/demo.h"
#include "icl/lesson.h"
#include "icl/lesson_set.h"
#include "icl/tex_text.h"

TEST_CASE("authoring guide: its demo and check examples parse, and every check type has one") {
    std::ifstream in(ICL_SOURCE_DIR "/docs/authoring.md");
    REQUIRE(in);
    // An example is a line opening a ``` fence whose first info word is demo or check, up
    // to the next line that is ``` (the guide wraps them in ```` fences to show them).
    // Figures the guide writes as code spans, `{{0.66 @adam:rel_diff ±0.02}}`, go in as text.
    // A whole lesson shown in a ````` markdown fence (the worked example) is tested on its
    // own below: its directives are not examples here.
    std::string examples, figures, line;
    int demos = 0, checks = 0;
    bool inside = false, whole_lesson = false;
    while (std::getline(in, line)) {
        if (whole_lesson) {
            whole_lesson = line != "`````";
            continue;
        }
        if (line == "`````markdown") {
            whole_lesson = true;
            continue;
        }
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
    // and one from a run with changed parameters, valid for its instance's demo
    bool changed = false;
    for (const icl::LessonBlock& block : parsed.lesson.blocks)
        if (const auto* d = std::get_if<icl::DemoBlock>(&block))
            for (const icl::Figure& f : quoted)
                if (f.instance == d->name && !f.params.empty()) {
                    changed = true;
                    nlohmann::json params = d->params.is_object() ? d->params : nlohmann::json::object();
                    params.update(f.params);
                    const auto valid = icl::validate_params(icl::find_demo(d->demo)->params, params);
                    CHECK_MESSAGE(valid, "figure ", f.text, ": ", valid ? std::string() : valid.error().message);
                }
    CHECK_MESSAGE(changed, "the guide has no figure from a run with changed parameters");
}

// Every ```markdown / ````markdown / `````markdown block of the guide: one that starts
// with front matter is a whole lesson (the front-matter example, the worked example) and
// parses as one; any other is lesson text and parses after a front matter. The worked
// example is what `icl lessons new` writes, and passes the lint as a draft, put in en/
// and ko/ of a lesson tree.
TEST_CASE("authoring guide: every markdown example parses, and the worked example is the skeleton and passes the lint") {
    std::ifstream in(ICL_SOURCE_DIR "/docs/authoring.md");
    REQUIRE(in);
    std::vector<std::string> blocks;
    std::string line, fence, block;
    while (std::getline(in, line)) {
        if (!fence.empty()) {
            if (line == fence) {
                blocks.push_back(block);
                fence.clear();
            } else {
                block += line + "\n";
            }
            continue;
        }
        const size_t ticks = line.find_first_not_of('`');
        if (ticks >= 3 && ticks != std::string::npos && line.substr(ticks) == "markdown") {
            fence = line.substr(0, ticks);
            block.clear();
        }
    }
    REQUIRE_MESSAGE(fence.empty(), "a markdown example is not closed by ", fence);
    REQUIRE(blocks.size() >= 6);
    // The text examples go in one page, in order (a check may grade an instance of an
    // earlier example); a whole lesson is a page of its own.
    int whole = 0, text = 0;
    std::string worked, texts = "---\nid: example\ntitle: T\norder: 1\nsummary: S\n---\n";
    const auto parses = [](const std::string& doc) {
        const icl::LessonParse parsed = icl::parse_lesson_collect(doc, "lessons/en/01-example.md");
        CHECK_MESSAGE(parsed.problems.empty(), (parsed.problems.empty() ? "" : icl::to_string(parsed.problems.front())), "\nin:\n", doc);
        CHECK_MESSAGE(parsed.math_problems.empty(), (parsed.math_problems.empty() ? "" : icl::to_string(parsed.math_problems.front())), "\nin:\n", doc);
        return parsed.lesson;
    };
    for (const std::string& b : blocks) {
        if (b.rfind("---\n", 0) != 0) {
            texts += "\n" + b;
            ++text;
            continue;
        }
        ++whole;
        if (parses(b).id == "attention-sinks") worked = b;
    }
    parses(texts);
    CHECK(whole >= 2);
    CHECK(text >= 4);
    REQUIRE_MESSAGE(!worked.empty(), "the guide has no worked example with id attention-sinks");
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");  // the shipped skeleton, read through the store
    const auto skeleton = icl::lesson_skeleton("attention-sinks", "en", 10);
    REQUIRE_MESSAGE(skeleton.ok(), (skeleton.ok() ? std::string() : skeleton.error().message));
    CHECK(worked == skeleton.value());

    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() / ("icl_authoring_doc_" + std::to_string(getpid()));
    fs::remove_all(root);
    for (const char* lang : {"en", "ko"}) {
        fs::create_directories(root / lang);
        std::ofstream(root / lang / "10-attention-sinks.md", std::ios::binary) << worked;
    }
    const icl::LessonSet set = icl::load_lesson_set(root.string(), icl::LintOptions{true, false});
    fs::remove_all(root);
    CHECK_MESSAGE(set.errors() == 0, (set.problems.empty() ? "" : icl::to_string(set.problems.front())));
    CHECK(set.files == 2);
    CHECK(set.warnings() == 2);  // one check where a lesson needs 4, in each language
}

// A row of the table is | `TeX` | what the app shows |: the text up to " — " (a remark
// may follow) is the pass's one-line form of the TeX, which it must know all of; or
// "refused by the lint", and then every `TeX` of the row must hold something it does not know.
TEST_CASE("authoring guide: its table of what the desktop TeX pass shows is what the pass shows") {
    std::ifstream in(ICL_SOURCE_DIR "/docs/authoring.md");
    REQUIRE(in);
    std::string line;
    while (std::getline(in, line) && line != "| TeX | the app shows |") {}
    REQUIRE_MESSAGE(in, "docs/authoring.md has no table headed '| TeX | the app shows |'");
    std::getline(in, line);  // | --- | --- |
    int shown = 0, refused = 0, grids = 0;
    while (std::getline(in, line) && line.rfind("| `", 0) == 0) {
        const size_t split = line.find("` | ");
        REQUIRE_MESSAGE(split != std::string::npos, "a row without '` | ': ", line);
        const std::string right = line.substr(split + 4, line.size() - split - 4 - 2);  // without the closing " |"
        std::vector<std::string> tex;
        for (size_t at = line.find('`'); at < split; at = line.find('`', line.find('`', at + 1) + 1))
            tex.push_back(line.substr(at + 1, line.find('`', at + 1) - at - 1));
        REQUIRE(!tex.empty());
        if (right == "refused by the lint") {
            ++refused;
            for (const std::string& t : tex) CHECK_MESSAGE(!icl::tex_layout(t).unknown.empty(), "the pass shows `", t, "`");
            continue;
        }
        REQUIRE_MESSAGE(tex.size() == 1, "a shown row holds one TeX example: ", line);
        ++shown;
        const icl::TexLayout layout = icl::tex_layout(tex[0]);
        CHECK_MESSAGE(layout.unknown.empty(), "the pass does not know all of `", tex[0], "`");
        for (const icl::TexPiece& piece : layout.pieces) grids += std::holds_alternative<icl::TexMatrix>(piece);
        CHECK(icl::to_text(layout.pieces) == right.substr(0, right.find(" — ")));
    }
    CHECK(shown >= 10);
    CHECK(refused >= 1);
    CHECK(grids >= 2);
}
#endif  // ICL_WASM
