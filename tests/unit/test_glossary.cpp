// The lesson frame (In short / You need / Take away boxes), the glossary, term links,
// reading time and the lint rules over them (native only: md4c and files).
#ifndef ICL_WASM
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "icl/glossary.h"
#include "icl/lesson.h"
#include "icl/lesson_set.h"

namespace fs = std::filesystem;

namespace {

std::string all_problems(const std::vector<icl::Diagnostic>& problems) {
    std::string out;
    for (const auto& d : problems) out += icl::to_string(d) + "\n";
    return out;
}

const char* kHead = "---\nid: g\ntitle: T\norder: 1\nsummary: S\n---\n";

}  // namespace

TEST_CASE("lesson frame: box fences become framed text blocks, each kind once") {
    const std::string src = std::string(kHead) +
                            "```box in-short\n- one\n- two\n```\n\nBody.\n\n```box take-away\nKeep *this*.\n```\n";
    const auto parsed = icl::parse_lesson_collect(src, "lessons/en/01-g.md");
    REQUIRE(parsed.problems.empty());
    REQUIRE(parsed.lesson.blocks.size() == 3);
    const auto& first = std::get<icl::HtmlBlock>(parsed.lesson.blocks[0]);
    CHECK(first.box == "in-short");
    CHECK(first.line == 7);
    CHECK(first.html == "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n");
    CHECK(std::get<icl::HtmlBlock>(parsed.lesson.blocks[1]).box.empty());
    CHECK(std::get<icl::HtmlBlock>(parsed.lesson.blocks[2]).box == "take-away");
    const auto j = icl::to_json(parsed.lesson);
    CHECK(j["blocks"][0]["box"] == "in-short");
    CHECK_FALSE(j["blocks"][1].contains("box"));

    const auto bad = icl::parse_lesson_collect(std::string(kHead) + "```box summary\nx\n```\n\n```box in-short\n```\n\n"
                                               "```box take-away\na\n```\n\n```box take-away\nb\n```\n", "x.md");
    const std::string text = all_problems(bad.problems);
    CHECK(text.find("x.md:7: box: expected ```box in-short") != std::string::npos);
    CHECK(text.find("x.md:11: the 'in-short' box is empty") != std::string::npos);
    CHECK(text.find("x.md:18: a second 'take-away' box (the first is at line 14)") != std::string::npos);
    // a near miss of the new directive is an error, not silent code
    CHECK(all_problems(icl::parse_lesson_collect(std::string(kHead) + "```bax in-short\nx\n```\n", "y.md").problems)
              .find("unknown directive 'bax' (did you mean box?") != std::string::npos);
}

TEST_CASE("glossary links: term: targets are allowed and recorded with their lines; other schemes stay refused") {
    const std::string src = std::string(kHead) + "A [nat](term:nat) here.\n\n"
                            "```check id=c type=truefalse answer=true\nIs [$\\Delta W$](term:delta-w-icl) a sum?\n---\nYes.\n```\n";
    const auto parsed = icl::parse_lesson_collect(src, "x.md");
    REQUIRE(parsed.problems.empty());
    REQUIRE(parsed.lesson.term_links.size() == 2);
    CHECK(parsed.lesson.term_links[0].id == "nat");
    CHECK(parsed.lesson.term_links[0].line == 7);
    CHECK(parsed.lesson.term_links[1].id == "delta-w-icl");
    CHECK(parsed.lesson.term_links[1].line == 10);
    CHECK(std::get<icl::HtmlBlock>(parsed.lesson.blocks[0]).html == "<p>A <a href=\"term:nat\">nat</a> here.</p>\n");
    const auto js = icl::parse_lesson_collect(std::string(kHead) + "[x](javascript:alert(1))\n", "x.md");
    CHECK(all_problems(js.problems).find("is not allowed") != std::string::npos);
}

TEST_CASE("reading time: words of the prose, a math span one word, code left out; 200 words a minute") {
    // 3 words + 1 math span + "and" = 5 in the text; the code block's words do not count;
    // the check: prompt 2, options 1 + 1, feedback 3
    const std::string src = std::string(kHead) + "One two three $x^2$ and `code`.\n\n    not read\n\n"
                            "```check id=c type=choice answer=a\nWhich one?\na) this\nb) that\n---\nIt is this.\n```\n";
    const auto parsed = icl::parse_lesson_collect(src, "x.md");
    REQUIRE(parsed.problems.empty());
    // "One two three", the math, "and", "." after the code span stands alone
    CHECK(icl::reading_words(parsed.lesson) == 6 + 2 + 2 + 3);
    CHECK(icl::reading_minutes(0) == 1);
    CHECK(icl::reading_minutes(299) == 1);
    CHECK(icl::reading_minutes(300) == 2);
    CHECK(icl::reading_minutes(6855) == 34);  // lesson 3 before its split, as measured by hand
    CHECK(icl::to_json(parsed.lesson)["minutes"] == 1);
}

TEST_CASE("glossary: prose leaves out code and math; a form is found only as a whole word") {
    const std::string prose = icl::prose_of("Weights는 `weights` and $weights$ but not weightsX; 가중치로\n");
    CHECK(icl::find_word(prose, "Weights").size() == 1);
    CHECK(icl::find_word(prose, "weights").empty());
    CHECK(icl::find_word(prose, "가중치").size() == 1);
    CHECK(icl::find_word("examples는 예시", "examples").size() == 1);
    CHECK(icl::find_word("counterexamples", "examples").empty());
    // '~': only before a Hangul syllable (a particle), so an English title keeps its words
    CHECK(icl::find_word("Role of Demonstrations: What", "Demonstrations~").empty());
    CHECK(icl::find_word("Demonstrations는 네 가지", "Demonstrations~").size() == 1);
    CHECK(icl::find_word("weights 는", "weights~").empty());

    std::vector<icl::Diagnostic> problems;
    const auto g = icl::parse_glossary(R"({"terms": [
        {"id": "weight", "term": "weight", "gloss": "A *parameter*.", "avoid": ["Weights", "가중치"]},
        {"id": "Bad Id", "term": "x", "gloss": "y"},
        {"id": "nat", "term": "nat", "gloss": "A unit.", "colour": "red"},
        {"id": "weight", "term": "again", "gloss": "z"},
        {"id": "self", "term": "tiny GPT", "gloss": "g", "avoid": ["tiny GPT"]}]})", "g.json", problems);
    const std::string text = all_problems(problems);
    CHECK(g.find("weight") != nullptr);
    CHECK(g.find("weight")->gloss_html == "A <em>parameter</em>.");
    CHECK(g.find("nat") != nullptr);
    CHECK(text.find("id 'Bad Id' must use only") != std::string::npos);
    CHECK(text.find("term 'nat': unknown key 'colour'") != std::string::npos);
    CHECK(text.find("term 'weight' is listed twice") != std::string::npos);
    CHECK(text.find("'tiny GPT', is its own form") != std::string::npos);
    problems.clear();
    icl::parse_glossary("[1, 2]", "h.json", problems);
    CHECK(all_problems(problems).find("h.json:1: a glossary is a JSON object") != std::string::npos);
}

namespace {

struct GlossTree {
    fs::path root = fs::temp_directory_path() / ("icl_glossary_tree_" + std::to_string(getpid()));
    GlossTree() { fs::remove_all(root); }
    ~GlossTree() { fs::remove_all(root); }
    void write(const std::string& rel, const std::string& text) const {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel, std::ios::binary) << text;
    }
};

// A lesson with its three boxes around four checks; `body` is its text.
std::string framed(const std::string& body, const std::string& take_away = "```box take-away\nKeep.\n```\n") {
    std::string checks;
    for (int n = 1; n <= 4; ++n) checks += "```check id=c" + std::to_string(n) + " type=truefalse answer=true\nQ\n---\nF\n```\n\n";
    return std::string(kHead) + "```box in-short\n- a\n```\n\n```box you-need\n- b\n```\n\n" + body + "\n\n" + checks + take_away;
}

const char* kEnGlossary = R"({"terms": [{"id": "weight", "term": "weight", "gloss": "A parameter."},
                                        {"id": "nat", "term": "nat", "gloss": "A unit."}]})";
const char* kKoGlossary = R"({"terms": [{"id": "weight", "term": "weight", "gloss": "parameter다.", "avoid": ["Weights~", "가중치"]},
                                        {"id": "nat", "term": "fixed Weights", "gloss": "단위다."}]})";

}  // namespace

TEST_CASE("lessons lint: boxes, glossary links, the same terms in each language, avoided forms in lessons and catalogues") {
    GlossTree t;
    t.write("en/01-g.md", framed("The [weight](term:weight) stays."));
    t.write("ko/01-g.md", framed("[weight](term:weight)는 그대로다. `Weights는` 코드와 *Fixed Weights and Biases*라는 제목과 Weights (W), 그리고 course가 쓰는 fixed Weights는 괜찮다."));
    t.write("en/glossary.json", kEnGlossary);
    t.write("ko/glossary.json", kKoGlossary);
    t.write("en/catalogue/site.json", R"({"page.home": "All lessons"})");
    t.write("ko/catalogue/site.json", R"({"page.home": "모든 강의"})");
    const icl::LessonSet clean = icl::load_lesson_set(t.root.string());
    CHECK(all_problems(clean.problems) == "");
    REQUIRE(clean.glossaries.count("ko") == 1);
    CHECK(clean.glossaries.at("ko").find("weight")->avoid.size() == 2);

    // a link to no term, an avoided form in text and in a check, in a catalogue; a term ko lacks
    t.write("ko/01-g.md", framed("Weights는 그대로다. [x](term:nope)\n\n```check id=c0 type=truefalse answer=true\n가중치가 바뀌는가?\n---\nF\n```"));
    t.write("en/01-g.md", framed("The [weight](term:weight) stays.\n\n```check id=c0 type=truefalse answer=true\nQ\n---\nF\n```"));
    t.write("ko/catalogue/site.json", R"({"page.home": "Weights를 본다"})");
    t.write("ko/glossary.json", R"({"terms": [{"id": "weight", "term": "weight", "gloss": "g", "avoid": ["Weights~", "가중치"]}]})");
    const std::string text = all_problems(icl::load_lesson_set(t.root.string()).problems);
    const std::string ko = (t.root / "ko").string();
    CHECK(text.find(ko + "/01-g.md:15: glossary link 'term:nope' names no term of " + ko + "/glossary.json") != std::string::npos);
    CHECK_MESSAGE(text.find(ko + "/01-g.md:15: 'Weights' (in \"…Weights는 그대로…") != std::string::npos, text);
    CHECK(text.find("the course writes 'weight' (glossary term 'weight'") != std::string::npos);
    CHECK(text.find(ko + "/01-g.md:17: check 'c0': '가중치'") != std::string::npos);
    CHECK(text.find(ko + "/catalogue/site.json:1: 'page.home': 'Weights'") != std::string::npos);
    CHECK(text.find(ko + "/glossary.json:1: term 'nat' of " + (t.root / "en").string() + "/glossary.json is missing here") != std::string::npos);

    // a lesson without its boxes, or with Take away before its last check: errors, warnings as a draft
    t.write("ko/glossary.json", kKoGlossary);
    t.write("ko/catalogue/site.json", R"({"page.home": "모든 강의"})");
    t.write("ko/01-g.md", framed("x", ""));
    t.write("en/01-g.md", std::string(kHead) + "```box take-away\nK\n```\n\n" +
                              "```check id=c1 type=truefalse answer=true\nQ\n---\nF\n```\n\n```check id=c2 type=truefalse answer=true\nQ\n---\nF\n```\n\n"
                              "```check id=c3 type=truefalse answer=true\nQ\n---\nF\n```\n\n```check id=c4 type=truefalse answer=true\nQ\n---\nF\n```\n\n"
                              "```box in-short\n- late\n```\n\n```box you-need\n- b\n```\n");
    const icl::LessonSet framed_badly = icl::load_lesson_set(t.root.string());
    const std::string frame = all_problems(framed_badly.problems);
    const std::string en = (t.root / "en").string();
    CHECK(frame.find(ko + "/01-g.md:1: the lesson has no 'take-away' box") != std::string::npos);
    CHECK(frame.find(en + "/01-g.md:7: the 'take-away' box stands before the lesson's last demo or check") != std::string::npos);
    CHECK(frame.find(en + "/01-g.md:35: the 'in-short' box stands after the lesson's first demo or check") != std::string::npos);
    CHECK(framed_badly.errors() == 4);
    const icl::LessonSet draft = icl::load_lesson_set(t.root.string(), icl::LintOptions{true});
    CHECK(draft.errors() == 0);
    CHECK(draft.warnings() >= 4);
}

TEST_CASE("lessons build: glossary.json holds each language's terms with their glosses as HTML; the index the minutes") {
    GlossTree t;
    t.write("en/01-g.md", framed("The [weight](term:weight) stays."));
    t.write("en/glossary.json", R"({"terms": [{"id": "weight", "term": "weight", "gloss": "A *parameter*."}]})");
    const icl::LessonSet set = icl::load_lesson_set(t.root.string());
    REQUIRE(all_problems(set.problems) == "");
    const fs::path out = t.root / "out";
    REQUIRE(icl::write_lesson_json(set, out.string()).ok());
    std::ifstream in(out / "glossary.json");
    const auto j = nlohmann::json::parse(in);
    CHECK(j["en"]["weight"]["term"] == "weight");
    CHECK(j["en"]["weight"]["html"] == "A <em>parameter</em>.");
    const auto index = icl::lesson_index_json(set);
    CHECK(index["en"][0]["minutes"] == 1);
    CHECK(index["en"][0]["words"] == icl::reading_words(set.lessons.at("en")[0]));
}
TEST_CASE("glossary: '#' forms after a number, capitalised English before a particle, the language's own avoided forms") {
    // "#강" stands after a number (digits, perhaps one letter): the offset is the number's
    CHECK(icl::find_word("3강의 결과와 3b강은", "#강") == std::vector<size_t>{0, 18});
    CHECK(icl::find_word("강의 x3강 강", "#강").empty());
    // capitalised words right before Hangul; a listed name, an acronym, a mixed-case word,
    // lowercase, and the last word of an English title are not
    const auto caps = icl::capitalised_before_hangul("Softmax는 Adam은 GPT는 ReLU는 softmax는 Fixed Weights and Biases라는 (Query를)",
                                                     {"Adam"});
    REQUIRE(caps.size() == 2);
    CHECK(caps[0] == std::pair<size_t, std::string>{0, "Softmax"});
    CHECK(caps[1].second == "Query");

    std::vector<icl::Diagnostic> problems;
    icl::parse_glossary(R"({"terms": [], "names": ["Adam", 3], "avoid": [{"form": "x"}], "extra": 1})", "g.json", problems);
    const std::string bad = all_problems(problems);
    CHECK(bad.find("\"names\" is a list of strings") != std::string::npos);
    CHECK(bad.find("\"avoid\" is a list of {\"form\", \"use\"}") != std::string::npos);
    CHECK(bad.find("unknown key 'extra'") != std::string::npos);

    GlossTree t;
    t.write("en/01-g.md", framed("The [weight](term:weight) stays; see lesson 3."));
    t.write("en/glossary.json", kEnGlossary);
    t.write("ko/glossary.json", R"({"terms": [{"id": "weight", "term": "weight", "gloss": "g"},
        {"id": "nat", "term": "nat", "gloss": "단위다.", "avoid": ["nats"]}],
        "names": ["Adam"], "avoid": [{"form": "#강", "use": "write lesson N"}, {"form": "가요?", "use": "not 해요체"}]})");
    t.write("ko/01-g.md", framed("Adam은 weight를 바꾼다. lesson 3의 loss는 0.3 nat이다."));
    t.write("ko/catalogue/site.json", R"({"page.home": "모든 lesson"})");
    CHECK(all_problems(icl::load_lesson_set(t.root.string()).problems) == "");
    t.write("ko/01-g.md", framed("Softmax는 크다. 3강의 loss는 0.3 nats이다."));
    t.write("ko/catalogue/site.json", R"({"page.home": "Demo를 볼까요", "x": "너무 큰가요?"})");
    const std::string text = all_problems(icl::load_lesson_set(t.root.string()).problems);
    const std::string ko = (t.root / "ko").string();
    CHECK_MESSAGE(text.find(ko + "/01-g.md:15: 'Softmax' (in \"…Softmax는 크다") != std::string::npos, text);
    CHECK(text.find("written lowercase ('softmax')") != std::string::npos);
    CHECK(text.find(ko + "/01-g.md:15: 'N강' (in \"…") != std::string::npos);
    CHECK(text.find("write lesson N") != std::string::npos);
    CHECK(text.find(ko + "/01-g.md:15: 'nats'") != std::string::npos);
    CHECK(text.find(ko + "/catalogue/site.json:1: 'page.home': 'Demo'") != std::string::npos);
    CHECK(text.find(ko + "/catalogue/site.json:1: 'x': '가요?'") != std::string::npos);
}

#endif
