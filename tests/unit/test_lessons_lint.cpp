// The lint that `icl lessons check` runs and the build (`icl lessons build`) over a lesson
// tree in a temporary folder (native only: md4c and files). The demo they run,
// lesson_probe (n times lr = n · lr), is registered by test_lesson.cpp.
#ifndef ICL_WASM
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "icl/lesson.h"
#include "icl/lesson_set.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct TempTree {
    fs::path root = fs::temp_directory_path() / ("icl_lesson_tree_" + std::to_string(getpid()));
    TempTree() { fs::remove_all(root); }
    ~TempTree() { fs::remove_all(root); }
    void write(const std::string& rel, const std::string& text) const {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel, std::ios::binary) << text;
    }
};

// The opening boxes every lesson has (icl/glossary.h): 8 lines.
const std::string kBoxes = "```box in-short\n- a\n```\n\n```box you-need\n- b\n```\n\n";

// A complete lesson: one demo, a predict check, four checks in all. `answer` and `lr`
// let a translation differ.
std::string tree_lesson(const std::string& lang, const std::string& answer = "a", const std::string& lr = "0.5",
                        const std::string& text_answer = "cold") {
    return "---\nid: first\ntitle: First " + lang + "\norder: 1\nsummary: S\n---\nText.\n\n" + kBoxes +
           "```demo lesson_probe\nlr: " + lr + "\n```\n\n"
           "```check id=c1 type=choice answer=" + answer + "\nQ\na) x\nb) y\n---\nF\n```\n\n"
           "```check id=c2 type=truefalse answer=true\nQ\n---\nF\n```\n\n"
           "```check id=c3 type=text answer=\"" + text_answer + "\"\nQ\n---\nF\n```\n\n"
           "```check id=c4 type=predict demo=lesson_probe scalar=\"n times lr\"\nQ\na) [0, 1] small\nb) [1, inf] big\n---\nF\n```\n\n"
           "```box take-away\nK\n```\n";
}

std::string problems_text(const icl::LessonSet& set) {
    std::string out;
    for (const auto& d : set.problems) out += icl::to_string(d) + "\n";
    return out;
}

}  // namespace

TEST_CASE("lessons lint: a matching en/ko pair passes, translated text answers may differ") {
    TempTree t;
    t.write("en/01-first.md", tree_lesson("en"));
    t.write("ko/01-first.md", tree_lesson("ko", "a", "0.5", "차가운"));
    const icl::LessonSet set = icl::load_lesson_set(t.root.string());
    CHECK_MESSAGE(set.problems.empty(), problems_text(set));
    CHECK(set.files == 2);
    REQUIRE(set.lessons.at("ko").size() == 1);
    CHECK(set.lessons.at("ko")[0].title == "First ko");
}

TEST_CASE("lessons lint: TeX the desktop app cannot show is an error at its line; the lesson still loads") {
    TempTree t;
    std::string en = tree_lesson("en");
    const std::string text = "Text.\n";
    // Line 7 holds a matrix, \mid and \ln, which the app shows; line 9 a command it does not know.
    en.replace(en.find(text), text.size(), "Text with $\\begin{pmatrix} a \\\\ b \\end{pmatrix}$, $x \\mid y$.\n\n$$\\ln x + \\foo{y}$$\n");
    t.write("en/01-first.md", en);
    t.write("ko/01-first.md", tree_lesson("ko"));
    const icl::LessonSet set = icl::load_lesson_set(t.root.string());
    REQUIRE_MESSAGE(set.problems.size() == 1, problems_text(set));
    CHECK(icl::to_string(set.problems[0]) == (t.root / "en" / "01-first.md").string() +
                                                 ":9: math: the desktop app cannot show \\foo (docs/authoring.md lists the TeX its pass knows)");
    CHECK(set.errors() == 1);
    CHECK(set.lessons.at("en").size() == 1);  // the app still opens it
}

TEST_CASE("lessons lint: en/ko mismatches, unknown demos, bad parameters, names, counts") {
    TempTree t;
    const std::string dir = t.root.string();
    t.write("en/01-first.md", tree_lesson("en"));
    t.write("ko/01-first.md", tree_lesson("ko", "b"));                  // another answer
    t.write("en/02-second.md", "---\nid: second\ntitle: T\norder: 2\nsummary: S\n---\n"
                               "```demo no_such_demo\n```\n\n```demo lesson_probe name=p\nn: 99\n```\n");  // no ko
    t.write("ko/03-wrong-name.md", "---\nid: third\ntitle: T\norder: 3\nsummary: S\n---\nx\n");
    t.write("en/03-third.md", "---\nid: third\ntitle: T\norder: 3\nsummary: S\n---\nx\n");
    t.write("en/04-broken.md", "---\nid: broken\n");
    const icl::LessonSet set = icl::load_lesson_set(dir);
    const std::string text = problems_text(set);
    const auto has = [&](const std::string& line) {
        CHECK_MESSAGE(text.find(line) != std::string::npos, "missing: ", line, "\nin:\n", text);
    };
    has(dir + "/ko/01-first.md:21: check 'c1' grades {\"answer\":\"b\"} here but {\"answer\":\"a\"} at " + dir + "/en/01-first.md:21");
    has(dir + "/en/02-second.md:1: warning: lesson 'second' has no ko version (expected " + dir + "/ko/02-second.md): the ko lessons lack it");
    has(dir + "/en/02-second.md:7: unknown demo 'no_such_demo' (known: ");
    has(dir + "/en/02-second.md:10: demo lesson_probe: parameter 'n' = 99 is out of range: expected an integer in [1, 10]");
    has(dir + "/en/02-second.md:1: the lesson has 0 checks (a lesson needs at least 4)");
    has(dir + "/en/02-second.md:1: the lesson shows a demo but has no predict check");
    has(dir + "/ko/03-wrong-name.md:1: file name should be 03-third.md");
    has(dir + "/en/04-broken.md:1: front matter is not closed");
    CHECK(set.warnings() == 1);  // the missing translation: that language shows fewer lessons
    CHECK(set.errors() >= 7);
    // The broken lesson is left out; the good ones are kept.
    CHECK(set.lessons.at("en").size() == 3);

    const icl::LessonSet draft = icl::load_lesson_set(dir, icl::LintOptions{true});
    CHECK(draft.warnings() == 8);  // 02-second and both 03 files: too few checks, no boxes; 02: no predict, no ko version
    CHECK(problems_text(draft).find(dir + "/en/02-second.md:1: warning: the lesson has 0 checks") != std::string::npos);
}

TEST_CASE("lessons lint: a language is a folder; what it lacks against English is listed") {
    TempTree t;
    const std::string dir = t.root.string();
    t.write("en/01-first.md", tree_lesson("en"));
    t.write("pt-BR/01-first.md", tree_lesson("pt-BR"));  // a third language, found by its folder
    t.write("en/catalogue/common.json", R"({"a": "A {n} of {total:.2f}", "b": "B"})");
    t.write("en/catalogue/demo_x.json", R"({"title": "X"})");
    t.write("pt-BR/catalogue/common.json", R"({"a": "A {n}", "c": "C"})");  // lacks b; a lacks {total}; c unknown
    t.write("not_a_language/readme.md", "x");  // not a language code: not read
    const icl::LessonSet set = icl::load_lesson_set(dir);
    CHECK(set.languages == std::vector<std::string>{"en", "pt-BR"});
    CHECK(set.lessons.at("pt-BR").size() == 1);
    const std::string text = problems_text(set);
    const auto has = [&](const std::string& line) {
        CHECK_MESSAGE(text.find(line) != std::string::npos, "missing: ", line, "\nin:\n", text);
    };
    const std::string cat = dir + "/pt-BR/catalogue/";
    has(cat + "common.json:1: 'a' has the placeholders {n} but English has {n}{total}");
    has(cat + "common.json:1: 'c' is not in English's common.json (a key no one asks for)");
    has(cat + "common.json: warning: lacks 1 of English's texts (b): English shows for them");
    has(cat + "demo_x.json: warning: missing: its 1 texts show in English");
    CHECK(set.errors() == 2);
    CHECK(set.warnings() == 2);
    CHECK(icl::lesson_index_json(set).contains("pt-BR"));
}

TEST_CASE("lessons lint: demo parameters and check order must match across languages") {
    TempTree t;
    t.write("en/01-first.md", tree_lesson("en", "a", "0.5"));
    t.write("ko/01-first.md", tree_lesson("ko", "a", "0.25"));
    const icl::LessonSet set = icl::load_lesson_set(t.root.string());
    REQUIRE(set.errors() == 1);
    CHECK(set.problems[0].file == (t.root / "ko" / "01-first.md").string());
    CHECK(set.problems[0].line == 17);
    CHECK(set.problems[0].message.find("differs from") != std::string::npos);
}

TEST_CASE("lessons build: index.json and one JSON file a lesson; refuses a tree with errors") {
    TempTree t;
    t.write("en/01-first.md", tree_lesson("en"));
    t.write("ko/01-first.md", tree_lesson("ko", "a", "0.5", "차가운"));
    const icl::LessonSet set = icl::load_lesson_set(t.root.string());
    REQUIRE(set.errors() == 0);
    const fs::path out = t.root / "out";
    REQUIRE(icl::write_lesson_json(set, out.string()));
    const auto read_json = [](const fs::path& p) {
        std::ifstream in(p);
        std::stringstream s;
        s << in.rdbuf();
        return json::parse(s.str());
    };
    json index = read_json(out / "index.json");
    // reading time: the tree's lesson is short, one minute (its word count is the core's, tested in test_glossary.cpp)
    CHECK(index.at("en")[0].at("minutes") == 1);
    index["en"][0].erase("words");
    index["en"][0].erase("minutes");
    CHECK(index.at("en") == json::array({{{"id", "first"}, {"title", "First en"}, {"order", 1}, {"number", "1"}, {"summary", "S"},
                                          {"checks", 4}, {"demos", {"lesson_probe"}}}}));
    CHECK(index.at("ko")[0].at("title") == "First ko");
    const json ko = read_json(out / "ko" / "first.json");
    CHECK(ko.at("lang") == "ko");
    CHECK(ko.at("source") == "lessons/ko/01-first.md");
    CHECK(ko.at("blocks")[6].at("grading") == json({{"accepted", {"차가운"}}}));

    t.write("ko/01-first.md", tree_lesson("ko", "b"));
    const icl::LessonSet bad = icl::load_lesson_set(t.root.string());
    const fs::path out2 = t.root / "out2";
    CHECK_FALSE(icl::write_lesson_json(bad, out2.string()));
    CHECK_FALSE(fs::exists(out2));
}

TEST_CASE("lessons lint --run-demos: the demo's real value must fall in an option's range") {
    TempTree t;
    // lesson_probe reports n * lr; n defaults to 3. Ranges: a) [0, 1)  b) [1, inf).
    t.write("en/01-first.md", tree_lesson("en", "a", "0.5"));   // 1.5: in b, clear of the edge
    t.write("ko/01-first.md", tree_lesson("ko", "a", "0.5", "차가운"));
    icl::LintOptions run;
    run.run_demos = true;
    const icl::LessonSet clean = icl::load_lesson_set(t.root.string(), run);
    CHECK_MESSAGE(clean.problems.empty(), problems_text(clean));

    t.write("en/01-first.md", tree_lesson("en", "a", "0.34"));  // 1.02: 2% above b's lower edge
    t.write("ko/01-first.md", tree_lesson("ko", "a", "0.34", "차가운"));
    const icl::LessonSet edge = icl::load_lesson_set(t.root.string(), run);
    REQUIRE(edge.problems.size() == 2);  // en and ko
    CHECK(edge.warnings() == 2);
    CHECK(edge.problems[0].line == 41);
    CHECK(edge.problems[0].message.find("gives n times lr = 1.02 (seed 1), near the edge of option b's range") != std::string::npos);
    // Without --run-demos nothing runs, so nothing is said.
    CHECK(icl::load_lesson_set(t.root.string()).problems.empty());

    std::string gap = tree_lesson("en", "a", "0.5");
    gap.replace(gap.find("b) [1, inf] big"), 15, "b) [2, inf] big");  // 1.5 now lies between the ranges
    t.write("en/01-first.md", gap);
    t.write("ko/01-first.md", gap);
    const icl::LessonSet missed = icl::load_lesson_set(t.root.string(), run);
    REQUIRE(missed.errors() == 2);
    CHECK(missed.problems[0].message == "predict check 'c4': demo lesson_probe gives n times lr = 1.5 (seed 1), which is in no option's range");
}

TEST_CASE("lessons lint: a quoted figure must name an instance of its page and match its demo within the tolerance") {
    TempTree t;
    // lesson_probe reports n * lr = 3 * 0.5 = 1.5.
    const auto with_figure = [](const std::string& lang, const std::string& figure) {
        std::string l = tree_lesson(lang, "a", "0.5", lang == "en" ? "cold" : "차가운");
        l.replace(l.find("Text.\n"), 6, "Text " + figure + ".\n");
        return l;
    };
    icl::LintOptions run;
    run.run_demos = true;
    t.write("en/01-first.md", with_figure("en", "{{1.48 @lesson_probe:n times lr ±0.05}}"));
    t.write("ko/01-first.md", with_figure("ko", "{{1.48 @lesson_probe:n times lr ±0.05}}"));
    const icl::LessonSet clean = icl::load_lesson_set(t.root.string(), run);
    CHECK_MESSAGE(clean.problems.empty(), problems_text(clean));

    // The text drifted from the demo: 1.6 is 0.1 away, the lesson allows 0.05 (and 5%).
    for (const char* figure : {"{{1.6 @lesson_probe:n times lr ±0.05}}", "{{1.6 @lesson_probe:n times lr ±5%}}"}) {
        t.write("en/01-first.md", with_figure("en", figure));
        t.write("ko/01-first.md", with_figure("ko", figure));
        CHECK(icl::load_lesson_set(t.root.string()).problems.empty());  // nothing runs without --run-demos
        const icl::LessonSet drifted = icl::load_lesson_set(t.root.string(), run);
        REQUIRE_MESSAGE(drifted.errors() == 2, problems_text(drifted));
        CHECK(drifted.problems[0].line == 7);
        CHECK(drifted.problems[0].message.rfind("figure 1.6 (lesson_probe:n times lr): the demo gives 1.5 (seed 1), more than ±", 0) == 0);
    }

    // No such instance on the page, a scalar the demo does not have, and en/ko quoting different figures.
    t.write("en/01-first.md", with_figure("en", "{{1.5 @elsewhere:n times lr ±0.05}} {{1 @lesson_probe:nope ±1}}"));
    t.write("ko/01-first.md", with_figure("ko", "{{1.5 @elsewhere:n times lr ±0.05}} {{2 @lesson_probe:nope ±1}}"));
    const icl::LessonSet wrong = icl::load_lesson_set(t.root.string(), run);
    const std::string text = problems_text(wrong);
    CHECK(text.find("en/01-first.md:7: figure 1.5 quotes demo instance 'elsewhere', which is not on this page") != std::string::npos);
    CHECK(text.find("en/01-first.md:7: figure 1 (lesson_probe:nope): ") != std::string::npos);
    CHECK(text.find("ko/01-first.md:1: quoted figures differ from " + (t.root / "en" / "01-first.md").string() +
                    ": only there 1 ±1 @lesson_probe:nope; only here 2 ±1 @lesson_probe:nope") != std::string::npos);

    // A figure from a run with changed parameters: held to that run (n = 5: 2.5), its
    // parameters checked against the demo's, and part of what en and ko must share.
    t.write("en/01-first.md", with_figure("en", "{{2.5 @lesson_probe[n=5]:n times lr ±0.05}}"));
    t.write("ko/01-first.md", with_figure("ko", "{{2.5 @lesson_probe[n=5]:n times lr ±0.05}}"));
    const icl::LessonSet changed = icl::load_lesson_set(t.root.string(), run);
    CHECK_MESSAGE(changed.problems.empty(), problems_text(changed));
    t.write("en/01-first.md", with_figure("en", "{{1.5 @lesson_probe[n=5]:n times lr ±0.05}} {{1 @lesson_probe[n=50]:n times lr ±1}}"));
    t.write("ko/01-first.md", with_figure("ko", "{{1.5 @lesson_probe:n times lr ±0.05}} {{1 @lesson_probe[n=50]:n times lr ±1}}"));
    const std::string changed_text = problems_text(icl::load_lesson_set(t.root.string(), run));
    CHECK(changed_text.find("en/01-first.md:7: figure 1.5 (lesson_probe[n=5]:n times lr): the demo gives 2.5 (seed 1)") != std::string::npos);
    CHECK(changed_text.find("en/01-first.md:7: figure 1 (lesson_probe[n=50]:n times lr): demo lesson_probe: ") != std::string::npos);
    CHECK(changed_text.find("only there 1.5 ±0.05 @lesson_probe[n=5]:n times lr; only here 1.5 ±0.05 @lesson_probe:n times lr") !=
          std::string::npos);

    // The same value held to another tolerance in the translation is a mismatch too.
    t.write("en/01-first.md", with_figure("en", "{{1.5 @lesson_probe:n times lr ±0.05}}"));
    t.write("ko/01-first.md", with_figure("ko", "{{1.5 @lesson_probe:n times lr ±5%}}"));
    const std::string tol_text = problems_text(icl::load_lesson_set(t.root.string()));
    CHECK(tol_text.find("only there 1.5 ±0.05 @lesson_probe:n times lr; only here 1.5 ±5% @lesson_probe:n times lr") !=
          std::string::npos);
}

TEST_CASE("lessons lint: a predict check with hide=result refuses its figure quoted above it, not below") {
    TempTree t;
    const std::string figure = "{{1.5 @lesson_probe:n times lr ±0.05}}", kScalarKey = "scalar=\"n times lr\"";
    // hide: whether check c4 (line 41) holds its demo's result back; above / below: where the figure stands.
    const auto lesson = [&](const std::string& lang, bool hide, bool above) {
        std::string l = tree_lesson(lang, "a", "0.5", lang == "en" ? "cold" : "차가운");
        if (hide) l.replace(l.find(kScalarKey), kScalarKey.size(), kScalarKey + " hide=result");
        if (above) l.replace(l.find("Text.\n"), 6, "Text " + figure + ".\n");
        else l += "\nAfter the check: " + figure + ".\n";
        return l;
    };
    const auto lint = [&](bool hide, bool above) {
        t.write("en/01-first.md", lesson("en", hide, above));
        t.write("ko/01-first.md", lesson("ko", hide, above));
        return icl::load_lesson_set(t.root.string());
    };
    const icl::LessonSet quoted_above = lint(true, true);
    REQUIRE_MESSAGE(quoted_above.errors() == 2, problems_text(quoted_above));  // en and ko
    CHECK(icl::to_string(quoted_above.problems[0]) ==
          (t.root / "en" / "01-first.md").string() +
              ":7: figure 1.5 (lesson_probe:n times lr) stands above check 'c4' (line 41), which asks the learner to "
              "predict lesson_probe:n times lr: move it after the check");
    const icl::LessonSet quoted_below = lint(true, false);
    CHECK_MESSAGE(quoted_below.problems.empty(), problems_text(quoted_below));
    const icl::LessonSet not_held = lint(false, true);  // without hide=result the check makes no such promise
    CHECK_MESSAGE(not_held.problems.empty(), problems_text(not_held));
    // A figure of the same scalar from a run with other parameters gives the answer away too.
    std::string changed = tree_lesson("en");
    changed.replace(changed.find(kScalarKey), kScalarKey.size(), kScalarKey + " hide=result");
    changed.replace(changed.find("Text.\n"), 6, "Text {{2.5 @lesson_probe[n=5]:n times lr ±0.05}}.\n");
    auto parsed = icl::parse_lesson(changed, "f.md");
    REQUIRE(parsed);
    const auto away = icl::figures_giving_answers_away(parsed.value(), "f.md");
    REQUIRE(away.size() == 1);
    CHECK(away[0].line == 7);
}

#endif  // ICL_WASM
