// The lesson format's smaller pieces: the Reproduce box, an order with a letter (a lesson
// split off another sorts right after it), a check's from= and the saved answers that
// move with it, and the lint that refuses prose pointing at texts a learner cannot open.
// Native only (md4c and files).
#ifndef ICL_WASM
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "icl/lesson.h"
#include "icl/lesson_prose.h"
#include "icl/lesson_set.h"
#include "icl/progress.h"
#include "icl/worker_api.h"

using nlohmann::json;
namespace fs = std::filesystem;
namespace pg = icl::progress;

namespace {

std::string fmt_lesson(const std::string& body, const std::string& order = "1", const std::string& id = "x") {
    return "---\nid: " + id + "\ntitle: T\norder: " + order + "\nsummary: S\n---\n" + body;
}

std::string fmt_error(const std::string& text, const std::string& file = "lessons/en/01-x.md") {
    auto parsed = icl::parse_lesson(text, file);
    return parsed ? std::string("(parsed)") : parsed.error().message;
}

// Four checks, no demo: a lesson the lint accepts, with `extra` prose first.
std::string fmt_full_lesson(const std::string& id, const std::string& order, const std::string& extra = "Text.",
                        const std::string& from = "") {
    const std::string f = from.empty() ? "" : " from=" + from;
    // The text, the lesson's opening boxes, four checks and its closing box (the lint wants the frame).
    std::string body = extra + "\n\n```box in-short\n- a\n```\n\n```box you-need\n- b\n```\n\n";
    for (int k = 1; k <= 4; ++k)
        body += "```check id=" + id + "-c" + std::to_string(k) + " type=choice answer=a" + f + "\nQ\na) x\nb) y\n---\nF\n```\n\n";
    body += "```box take-away\n- c\n```\n";
    return fmt_lesson(body, order, id);
}

struct FmtTree {
    fs::path root = fs::temp_directory_path() / ("icl_lesson_format_" + std::to_string(getpid()));
    FmtTree() { fs::remove_all(root); }
    ~FmtTree() { fs::remove_all(root); }
    void write(const std::string& rel, const std::string& text) const {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel, std::ios::binary) << text;
    }
};

std::string fmt_problems(const icl::LessonSet& set) {
    std::string out;
    for (const auto& d : set.problems) out += icl::to_string(d) + "\n";
    return out;
}

}  // namespace

TEST_CASE("lesson: a reproduce box (```box reproduce, or ```reproduce) — prose of its own, marked for the front ends to fold") {
    for (const char* fence : {"````box reproduce", "````reproduce"}) {
        CAPTURE(fence);
        const std::string text = fmt_lesson(
            "Before.\n\n" + std::string(fence) + "\nRun it:\n\n```\nicl run gpt_scaling\n```\n\nOn *any* machine.\n````\n\nAfter.\n");
        auto parsed = icl::parse_lesson(text, "lessons/en/01-x.md");
        REQUIRE(parsed);
        const auto& blocks = parsed.value().blocks;
        REQUIRE(blocks.size() == 3);
        const auto& before = std::get<icl::HtmlBlock>(blocks[0]);
        const auto& box = std::get<icl::HtmlBlock>(blocks[1]);
        const auto& after = std::get<icl::HtmlBlock>(blocks[2]);
        CHECK(before.box.empty());
        CHECK(box.box == "reproduce");
        CHECK(after.box.empty());
        CHECK(box.line == 9);  // the fence's line, as every box's
        CHECK(box.html == "<p>Run it:</p>\n<pre><code>icl run gpt_scaling\n</code></pre>\n<p>On <em>any</em> machine.</p>\n");
        CHECK(after.html == "<p>After.</p>\n");
        const json j = icl::to_json(parsed.value());
        CHECK(j["blocks"][1]["box"] == "reproduce");
        CHECK_FALSE(j["blocks"][0].contains("box"));
    }
    // any number of them, and no lesson needs one
    auto two = icl::parse_lesson(fmt_lesson("```box reproduce\na\n```\n\n```reproduce\nb\n```\n"), "lessons/en/01-x.md");
    REQUIRE(two);
    CHECK(two.value().blocks.size() == 2);

    CHECK(fmt_error(fmt_lesson("```reproduce\n\n```\n")) == "lessons/en/01-x.md:7: reproduce block is empty");
    CHECK(fmt_error(fmt_lesson("```box reproduce\n\n```\n")) == "lessons/en/01-x.md:7: the 'reproduce' box is empty");
    CHECK(fmt_error(fmt_lesson("```box replay\nx\n```\n")).find("```box reproduce") != std::string::npos);
    CHECK(fmt_error(fmt_lesson("```reproduce now\nx\n```\n")).find(":7: reproduce block: unexpected 'now'") != std::string::npos);
    CHECK(fmt_error(fmt_lesson("```Reproduce\nx\n```\n")).find("unknown directive 'Reproduce' (did you mean reproduce?") !=
          std::string::npos);
    CHECK(fmt_error(fmt_lesson("```reproduce\nx\n")).find("reproduce block is not closed") != std::string::npos);
}

TEST_CASE("lesson: an order may carry one letter (3b); the lint wants it in the file name and sorts it after 3") {
    auto parsed = icl::parse_lesson(fmt_lesson("x\n", "3b"), "lessons/en/03b-x.md");
    REQUIRE(parsed);
    CHECK(parsed.value().order == 3);
    CHECK(parsed.value().part == "b");
    CHECK(parsed.value().number() == "3b");
    CHECK(icl::to_json(parsed.value())["number"] == "3b");
    for (const std::string bad : {"3B", "b", "3bb", "-3", "3.5"})
        CHECK(fmt_error(fmt_lesson("x\n", bad)).find("front matter order '" + bad + "' is not a non-negative integer") != std::string::npos);

    FmtTree t;
    for (const std::string lang : {"en", "ko"}) {
        t.write(lang + "/04-d.md", fmt_full_lesson("d", "4"));
        t.write(lang + "/03b-c.md", fmt_full_lesson("c", "3b"));
        t.write(lang + "/03-b.md", fmt_full_lesson("b", "3"));
    }
    const icl::LessonSet set = icl::load_lesson_set(t.root.string());
    CHECK(fmt_problems(set) == "");
    REQUIRE(set.lessons.at("en").size() == 3);
    CHECK(set.lessons.at("en")[0].id == "b");
    CHECK(set.lessons.at("en")[1].id == "c");
    CHECK(set.lessons.at("en")[2].id == "d");
    const json index = icl::lesson_index_json(set);
    CHECK(index["en"][1]["number"] == "3b");

    t.write("en/03b-e.md", fmt_full_lesson("e", "3b"));  // a second 3b, and a file name without the letter
    t.write("ko/03b-e.md", fmt_full_lesson("e", "3b"));
    t.write("en/03-f.md", fmt_full_lesson("f", "3c"));
    t.write("ko/03c-f.md", fmt_full_lesson("f", "3c"));
    const std::string p = fmt_problems(icl::load_lesson_set(t.root.string()));
    CHECK(p.find("order 3b is also used by") != std::string::npos);
    CHECK(p.find("03-f.md:1: file name should be 03c-f.md") != std::string::npos);
}

TEST_CASE("lesson: from= names the lesson a check was in; its JSON carries it") {
    auto parsed = icl::parse_lesson(fmt_full_lesson("x", "1", "Text.", "old-lesson"), "lessons/en/01-x.md");
    REQUIRE(parsed);
    const json j = icl::to_json(parsed.value());
    CHECK(j["blocks"][3]["kind"] == "check");  // after the text and the two opening boxes
    CHECK(j["blocks"][3]["from"] == "old-lesson");
    CHECK_FALSE(icl::to_json(icl::parse_lesson(fmt_full_lesson("x", "1"), "lessons/en/01-x.md").value())["blocks"][3].contains("from"));
    CHECK(fmt_error(fmt_lesson("```check id=q type=truefalse answer=true from=\"a b\"\nQ\n---\nF\n```\n"))
              .find("check from= 'a b' must be a lesson id") != std::string::npos);
}

TEST_CASE("lessons lint: prose that points at a source text (lecture, slide, professor, reading note; 강의, 교수 …) is refused") {
    auto lines = [](const std::string& md) {
        std::string out;
        for (const auto& m : icl::source_text_mentions(md, 10)) out += std::to_string(m.line) + ":" + m.phrase + " ";
        return out;
    };
    CHECK(lines("The Lecture's slide says so.\nThe professor and the reading notes agree.") ==
          "10:Lecture 10:slide 11:professor 11:reading notes ");
    CHECK(lines("Move the slider; `lecture_prompt` and ``the lecture`` are code; electures, slideshow.") == "");
    CHECK(lines("첫 줄.\n강의는 이렇게 말한다. 교수님과 슬라이드, 읽기 노트, 수업 규모.") == "11:강의 11:교수 11:슬라이드 11:읽기 노트 11:수업 ");
    CHECK(lines("이 lesson은 attention을 다룬다.") == "");

    FmtTree t;
    t.write("en/01-x.md", fmt_full_lesson("x", "1", "Line seven.\n\nAs the lecture slide shows."));
    t.write("ko/01-x.md", fmt_full_lesson("x", "1", "일곱째 줄.\n\n강의 노트가 말하듯이."));
    const auto set = icl::load_lesson_set(t.root.string());
    const std::string p = fmt_problems(set);
    CHECK(p.find("en/01-x.md:9: the text refers to 'lecture', a source text the learner cannot open") != std::string::npos);
    CHECK(p.find("en/01-x.md:9: the text refers to 'slide'") != std::string::npos);
    CHECK(p.find("ko/01-x.md:9: the text refers to '강의'") != std::string::npos);
    CHECK(set.errors() == 3);

    // In a check's feedback too, reported at the check's line.
    t.write("en/01-x.md", fmt_lesson("Text.\n\n```check id=q1 type=choice answer=a\nQ\na) x\nb) y\n---\nThe professor says x.\n```\n"));
    CHECK(fmt_problems(icl::load_lesson_set(t.root.string())).find("en/01-x.md:9: the text refers to 'professor'") != std::string::npos);
}

TEST_CASE("progress: a check's saved record moves with it to the lesson that took it over (from=), once") {
    pg::Document doc;
    pg::record_answer(doc, "old", "moved", "a", true, 1000);
    pg::record_answer(doc, "old", "moved", "a", true, 2000);
    pg::record_answer(doc, "old", "stays", "b", false, 1000);
    // A check as the lesson JSON gives it: choice, options a and b.
    const json moved_check = {{"id", "moved"}, {"type", "choice"}, {"from", "old"}, {"feedback_html", ""},
                              {"options", {{{"key", "a"}, {"html", "A"}}, {{"key", "b"}, {"html", "B"}}}},
                              {"grading", {{"answer", "b"}}}};
    const json plain_check = {{"id", "stays"}};
    CHECK(pg::move_checks(doc, "new", {moved_check, plain_check}) == 1);
    REQUIRE(doc.checks["new"].count("moved") == 1);
    CHECK(doc.checks["new"]["moved"].attempts == 2);
    CHECK(doc.checks["new"]["moved"].answer == "a");
    CHECK(doc.checks["old"].count("moved") == 0);
    CHECK(doc.checks["old"].count("stays") == 1);
    CHECK(pg::move_checks(doc, "new", {moved_check}) == 0);  // nothing left to move

    // Both hold a record (an old copy merged back): the later answer wins, attempts the larger.
    pg::record_answer(doc, "old", "moved", "b", false, 5000);
    CHECK(pg::move_checks(doc, "new", {moved_check}) == 1);
    CHECK(doc.checks["new"]["moved"].answer == "b");
    CHECK(doc.checks["new"]["moved"].attempts == 2);
    CHECK(doc.checks["old"].count("moved") == 0);

    // Through the page's call: the fitted document holds the record under the new lesson.
    pg::Document page;
    pg::record_answer(page, "old", "moved", "a", true, 1000);
    const json fit = json::parse(icl::WorkerApi().progress_fit(pg::write(page), "new", json::array({moved_check}).dump()));
    CHECK(fit["moved"] == 1);
    CHECK(fit["progress"]["checks"]["new"]["moved"]["answer"] == "a");
    CHECK_FALSE(fit["progress"]["checks"].contains("old"));
}

TEST_CASE("lessons: every check lesson 3 had before its split keeps a learner's saved answer") {
    // The check ids of lesson 3 (implicit-finetuning) before it was split in two.
    const std::vector<std::string> before = {
        "implicit-ft-predict-split", "implicit-ft-predict-softmax", "implicit-ft-predict-trained", "implicit-ft-predict-simaou",
        "implicit-ft-predict-simam", "implicit-ft-kendall", "implicit-ft-predict-untrained", "implicit-ft-predict-order",
        "implicit-ft-momentum", "implicit-ft-predict-linear", "implicit-ft-tokens", "implicit-ft-exact-step",
        "implicit-ft-setup", "implicit-ft-rec2ftp", "implicit-ft-simaou", "implicit-ft-accuracy", "implicit-ft-own-split"};
    const icl::LessonSet set = icl::load_lesson_set(ICL_SOURCE_DIR "/lessons");
    for (const std::string lang : {"en", "ko"}) {
        CAPTURE(lang);
        pg::Document doc;
        for (const auto& id : before) pg::record_answer(doc, "implicit-finetuning", id, "a", true, 1000);
        // What each front end does on opening the lessons: fit the saved answers to each lesson's checks.
        std::map<std::string, std::string> holder;  // check id -> the lesson that holds it now
        for (const icl::Lesson& l : set.lessons.at(lang)) {
            std::vector<json> checks;
            for (const auto& b : l.blocks)
                if (const auto* c = std::get_if<icl::CheckBlock>(&b)) {
                    checks.push_back(icl::to_json(*c));
                    holder[c->id] = l.id;
                }
            pg::move_checks(doc, l.id, checks);
        }
        for (const auto& id : before) {
            CAPTURE(id);
            REQUIRE(holder.count(id) == 1);
            CHECK(doc.checks[holder[id]].count(id) == 1);
        }
        CHECK(holder["implicit-ft-rec2ftp"] != "implicit-finetuning");  // the split did move checks
    }
}
TEST_CASE("demo block: show= or hide= picks the controls a lesson shows; the lint refuses a name that is no parameter") {
    auto shown = icl::parse_lesson(fmt_lesson("```demo dual_form show=lr,n_train\nlr: 0.1\n```\n"), "lessons/en/01-x.md");
    REQUIRE(shown);
    const auto& d = std::get<icl::DemoBlock>(shown.value().blocks[0]);
    CHECK(d.show == std::vector<std::string>{"lr", "n_train"});
    CHECK(d.shows("lr"));
    CHECK_FALSE(d.shows("optimizer"));
    CHECK(icl::to_json(shown.value())["blocks"][0]["show"] == json({"lr", "n_train"}));
    auto hidden = icl::parse_lesson(fmt_lesson("```demo dual_form hide=optimizer\n```\n"), "lessons/en/01-x.md");
    REQUIRE(hidden);
    const auto& h = std::get<icl::DemoBlock>(hidden.value().blocks[0]);
    CHECK(h.shows("lr"));
    CHECK_FALSE(h.shows("optimizer"));
    CHECK_FALSE(icl::to_json(hidden.value())["blocks"][0].contains("show"));
    CHECK(fmt_error(fmt_lesson("```demo dual_form show=lr hide=noise\n```\n")).find("one show= or hide= list, not two") != std::string::npos);
    CHECK(fmt_error(fmt_lesson("```demo dual_form show=lr,,noise\n```\n")).find("show= takes parameter names separated by commas") != std::string::npos);

    FmtTree t;
    t.write("en/01-x.md", fmt_full_lesson("x", "1", "```demo dual_form show=lr,nope\n```"));
    t.write("ko/01-x.md", fmt_full_lesson("x", "1", "```demo dual_form hide=lr\n```"));
    const std::string p = fmt_problems(icl::load_lesson_set(t.root.string()));
    CHECK_MESSAGE(p.find("en/01-x.md:7: demo dual_form: show= names 'nope', which is not one of its parameters (d_in, d_out, n_train") != std::string::npos, p);
    CHECK(p.find("ko/01-x.md:7: demo dual_form name=dual_form hide=lr {} differs from dual_form name=dual_form show=lr,nope {}") != std::string::npos);
}

#endif
