// Files a hostile or clumsy user hands the program: FIFOs, device links, huge
// files, link loops in the lessons folder, a learner's own file in the build folder.
// Native only: the wasm tests under node cannot make FIFOs or links.
#ifndef ICL_WASM
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include "icl/assets.h"
#include "icl/checkpoint.h"
#include "icl/file_read.h"
#include "icl/lesson.h"
#include "icl/lesson_set.h"

namespace fs = std::filesystem;

namespace {

struct Scratch {
    fs::path root = fs::temp_directory_path() / ("icl_hostile_" + std::to_string(getpid()));
    Scratch() {
        fs::remove_all(root);
        fs::create_directories(root);
    }
    ~Scratch() { fs::remove_all(root); }
    fs::path write(const std::string& rel, const std::string& text) const {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel, std::ios::binary) << text;
        return root / rel;
    }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("file read: a FIFO, a /dev/zero link, a folder and a file past the limit are refused at once") {
    Scratch s;
    const auto t0 = std::chrono::steady_clock::now();
    const std::string fifo = (s.root / "progress.json").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    bool missing = true;
    auto r = icl::read_regular_file(fifo, 1 << 20, &missing);
    REQUIRE_FALSE(r.ok());
    CHECK(contains(r.error().message, "FIFO"));
    CHECK(contains(r.error().message, fifo));
    CHECK_FALSE(missing);  // there, but not a regular file

    fs::create_symlink("/dev/zero", s.root / "zero.icl");
    auto z = icl::read_regular_file_bytes((s.root / "zero.icl").string(), 1 << 20);
    REQUIRE_FALSE(z.ok());
    CHECK(contains(z.error().message, "character device"));

    auto d = icl::read_regular_file(s.root.string(), 1 << 20);
    REQUIRE_FALSE(d.ok());
    CHECK(contains(d.error().message, "directory"));

    // A sparse file of 5 MiB against a 4 MiB limit: refused from its size, not read.
    const fs::path big = s.write("big.md", "x");
    fs::resize_file(big, 5u << 20);
    auto b = icl::read_regular_file(big.string(), 4u << 20);
    REQUIRE_FALSE(b.ok());
    CHECK(contains(b.error().message, "5.0 MiB, larger than the 4.0 MiB"));
    CHECK(contains(b.error().message, "5242880 bytes, more than the 4194304"));

    auto m = icl::read_regular_file((s.root / "missing.json").string(), 1 << 20, &missing);
    REQUIRE_FALSE(m.ok());
    CHECK(contains(m.error().message, "cannot open"));
    CHECK(missing);  // a first run, for a caller that keeps a file of its own
    // a missing folder on the way is missing too; a file used as a folder is not (ENOTDIR)
    CHECK_FALSE(icl::read_regular_file((s.root / "no" / "p.json").string(), 1 << 20, &missing).ok());
    CHECK(missing);
    CHECK_FALSE(icl::read_regular_file((big / "p.json").string(), 1 << 20, &missing).ok());
    CHECK_FALSE(missing);

    auto ok = icl::read_regular_file(s.write("a.md", std::string("a\0b", 3)).string(), 3);
    REQUIRE(ok.ok());
    CHECK(ok.value() == std::string("a\0b", 3));
    CHECK_FALSE(icl::read_regular_file((s.root / "a.md").string(), 2).ok());
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
}

TEST_CASE("file read: checkpoints and demo assets that are FIFOs or device links are errors, not hangs") {
    Scratch s;
    const std::string fifo = (s.root / "checkpoints" / "tasks.icl").string();
    fs::create_directories(s.root / "checkpoints");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto m = icl::checkpoint::load_file(fifo);
    REQUIRE_FALSE(m.ok());
    CHECK(contains(m.error().message, "FIFO"));

    // (names no other test puts into the store, which keeps what it read by name)
    fs::create_symlink("/dev/zero", s.root / "checkpoints" / "zero-link.icl");
    fs::create_symlink("tasks.icl", s.root / "checkpoints" / "fifo-link.icl");
    icl::set_asset_dir(s.root.string());
    auto a = icl::get_asset("checkpoints/zero-link.icl");
    REQUIRE_FALSE(a.ok());
    CHECK(contains(a.error().message, "character device"));
    auto f = icl::get_asset("checkpoints/fifo-link.icl");
    REQUIRE_FALSE(f.ok());
    CHECK(contains(f.error().message, "FIFO"));
    auto missing = icl::get_asset("checkpoints/none-such.icl");
    REQUIRE_FALSE(missing.ok());
    CHECK(contains(missing.error().message, "icl train"));
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");  // what the other tests read
}

TEST_CASE("lessons lint: a link loop, a dangling link, a FIFO and a folder named .md are file: messages; the rest is read") {
    Scratch s;
    const std::string good = "---\nid: first\ntitle: T\norder: 1\nsummary: S\n---\nText.\n";
    s.write("en/01-first.md", good);
    s.write("ko/01-first.md", good);
    fs::create_symlink("02-loop.md", s.root / "en" / "02-loop.md");
    fs::create_symlink("nowhere.md", s.root / "en" / "03-dangling.md");
    REQUIRE(::mkfifo((s.root / "ko" / "04-fifo.md").c_str(), 0600) == 0);
    fs::create_directories(s.root / "ko" / "05-folder.md");
    icl::LintOptions draft;
    draft.draft = true;
    const icl::LessonSet set = icl::load_lesson_set(s.root.string(), draft);
    std::string text;
    for (const auto& d : set.problems) text += icl::to_string(d) + "\n";
    const std::string dir = s.root.string();
    CHECK_MESSAGE(contains(text, dir + "/en/02-loop.md: cannot read the file: "), text);
    CHECK_MESSAGE(contains(text, "(a link that loops or leads nowhere?)"), text);
    CHECK_MESSAGE(contains(text, dir + "/en/03-dangling.md: cannot read the file: "), text);
    CHECK_MESSAGE(contains(text, dir + "/ko/04-fifo.md: not a regular file"), text);
    CHECK_MESSAGE(contains(text, dir + "/ko/05-folder.md: not a regular file"), text);
    REQUIRE(set.lessons.count("en"));
    CHECK(set.lessons.at("en").size() == 1);
    CHECK(set.lessons.at("ko").size() == 1);
}

namespace {
std::string lesson_text(const std::string& id, int order) {
    return "---\nid: " + id + "\ntitle: T\norder: " + std::to_string(order) + "\nsummary: S\n---\nText.\n";
}
std::string problems_of(const std::string& dir) {
    icl::LintOptions draft;
    draft.draft = true;
    std::string text;
    for (const auto& d : icl::load_lesson_set(dir, draft).problems) text += icl::to_string(d) + "\n";
    return text;
}
}  // namespace

TEST_CASE("lessons lint: a language folder named like the site's own folders is refused") {
    Scratch s;
    s.write("en/01-first.md", lesson_text("first", 1));
    s.write("lab/01-first.md", lesson_text("first", 1));
    s.write("ko/01-first.md", lesson_text("first", 1));
    const std::string text = problems_of(s.root.string());
    CHECK_MESSAGE(contains(text, (s.root / "lab").string() + ": 'lab' cannot name a language: the site keeps its own pages in /lab/"), text);
    icl::LintOptions draft;
    draft.draft = true;
    const icl::LessonSet set = icl::load_lesson_set(s.root.string(), draft);
    CHECK(set.errors() == 1);
    CHECK(std::find(set.languages.begin(), set.languages.end(), "lab") == set.languages.end());
    CHECK(std::find(set.languages.begin(), set.languages.end(), "ko") != set.languages.end());
}

TEST_CASE("lessons lint: ids that differ only in case, and Review, are refused") {
    Scratch s;
    for (const char* lang : {"en", "ko"}) {
        s.write(std::string("a/") + lang + "/01-dual-form.md", lesson_text("dual-form", 1));
        s.write(std::string("a/") + lang + "/02-Dual-Form.md", lesson_text("Dual-Form", 2));
        s.write(std::string("a/") + lang + "/03-Review.md", lesson_text("Review", 3));
        // ids that differ in more than case stay fine
        s.write(std::string("b/") + lang + "/01-dual-form.md", lesson_text("dual-form", 1));
        s.write(std::string("b/") + lang + "/02-Dual-Forms.md", lesson_text("Dual-Forms", 2));
    }
    const std::string text = problems_of((s.root / "a").string());
    CHECK_MESSAGE(contains(text, "02-Dual-Form.md:1: lesson id 'Dual-Form' differs from 'dual-form' of "), text);
    CHECK_MESSAGE(contains(text, "only in case"), text);
    CHECK_MESSAGE(contains(text, "03-Review.md:2: front matter id 'Review' is taken: <lang>/review.html is the review page"), text);
    CHECK(problems_of((s.root / "b").string()).find("only in case") == std::string::npos);
}

TEST_CASE("lessons lint: a link to a file outside the lessons folder is not read") {
    Scratch s;
    s.write("lessons/en/01-first.md", lesson_text("first", 1));
    s.write("lessons/ko/01-first.md", lesson_text("first", 1));
    s.write("lessons/en/shared.txt", lesson_text("second", 2));
    const fs::path secret = s.write("secret.md", "---\nTOP-SECRET first line\n");
    fs::create_symlink(secret, s.root / "lessons" / "en" / "02-secret.md");
    fs::create_symlink("shared.txt", s.root / "lessons" / "en" / "02-second.md");  // a link inside is fine
    fs::create_symlink("../en/shared.txt", s.root / "lessons" / "ko" / "02-second.md");
    const std::string dir = (s.root / "lessons").string();
    const std::string text = problems_of(dir);
    CHECK_MESSAGE(contains(text, dir + "/en/02-secret.md: a link to a file outside " + dir), text);
    CHECK_MESSAGE(!contains(text, "TOP-SECRET"), text);
    CHECK_MESSAGE(!contains(text, "02-second.md: a link"), text);
    icl::LintOptions draft;
    draft.draft = true;
    const icl::LessonSet set = icl::load_lesson_set(dir + "/", draft);  // the same with a trailing slash
    CHECK(set.lessons.at("en").size() == 2);
    CHECK(set.errors() == 1);
}

TEST_CASE("lessons build: removes only the files a previous build wrote, never a file of someone else's") {
    Scratch s;
    const auto lesson = [](const std::string& id, int order) {
        return "---\nid: " + id + "\ntitle: T\norder: " + std::to_string(order) + "\nsummary: S\n---\nText.\n";
    };
    s.write("src/en/01-first.md", lesson("first", 1));
    s.write("src/ko/01-first.md", lesson("first", 1));
    s.write("src/en/02-second.md", lesson("second", 2));
    s.write("src/ko/02-second.md", lesson("second", 2));
    const fs::path out = s.root / "out";
    const fs::path mine = s.write("out/en/my-notes.json", "{\"mine\": true}");
    const fs::path theirs = s.write("out/ko/teacher.json", "{}");
    icl::LintOptions draft;
    draft.draft = true;
    REQUIRE(icl::write_lesson_json(icl::load_lesson_set((s.root / "src").string(), draft), out.string()));
    CHECK(fs::exists(out / "en" / "second.json"));
    CHECK(fs::exists(mine));
    CHECK(fs::exists(theirs));
    // The lesson "second" is removed from the sources: its page goes, the others' files stay.
    fs::remove(s.root / "src/en/02-second.md");
    fs::remove(s.root / "src/ko/02-second.md");
    REQUIRE(icl::write_lesson_json(icl::load_lesson_set((s.root / "src").string(), draft), out.string()));
    CHECK_FALSE(fs::exists(out / "en" / "second.json"));
    CHECK_FALSE(fs::exists(out / "ko" / "second.json"));
    CHECK(fs::exists(out / "en" / "first.json"));
    CHECK(fs::exists(mine));
    CHECK(fs::exists(theirs));
    // A hand-edited manifest cannot make the build remove a file outside its folders.
    const fs::path outside = s.write("precious.json", "{}");
    s.write("out/.icl-lessons-build.json", "{\"files\": [\"../precious.json\", \"en/../../precious.json\", \"index.json\"]}");
    REQUIRE(icl::write_lesson_json(icl::load_lesson_set((s.root / "src").string(), draft), out.string()));
    CHECK(fs::exists(outside));
}

namespace {
std::string many_blocks(int checks, int demos) {
    std::string text = "---\nid: big\ntitle: T\norder: 1\nsummary: S\n---\nText.\n\n";
    for (int i = 0; i < demos; ++i) text += "```demo lesson_probe name=p" + std::to_string(i) + "\n```\n\n";
    for (int i = 0; i < checks; ++i)
        text += "```check id=c" + std::to_string(i) + " type=choice answer=a\nQ\na) x\nb) y\n---\nF\n```\n\n";
    return text;
}
// CPU seconds (not wall time: the machine may be busy), the best of three.
double parse_seconds(const std::string& text) {
    double best = 1e9;
    for (int r = 0; r < 3; ++r) {
        const std::clock_t t0 = std::clock();
        (void)icl::parse_lesson_collect(text, "en/01-big.md");
        best = std::min(best, double(std::clock() - t0) / CLOCKS_PER_SEC);
    }
    return best;
}
}  // namespace

TEST_CASE("lesson: parsing is linear in the number of blocks, and a lesson holds at most 200 checks") {
    const icl::LessonParse over = icl::parse_lesson_collect(many_blocks(250, 0), "en/01-big.md");
    REQUIRE(over.problems.size() == 1);
    CHECK(contains(over.problems[0].message, "more than 200 checks"));
    size_t checks = 0;
    for (const auto& b : over.lesson.blocks) checks += std::holds_alternative<icl::CheckBlock>(b);
    CHECK(checks == 200);
    // Ten times the blocks, about ten times the time (it was a hundred: every new check
    // and demo was compared with every earlier one).
    const double small = parse_seconds(many_blocks(1000, 200));
    const double large = parse_seconds(many_blocks(10000, 2000));
    CHECK_MESSAGE(large < 30 * small, "1,200 blocks ", small, " s; 24,000 blocks ", large, " s");
}

namespace {
// A lesson quoting one demo instance's scalar `n` times in one paragraph (a line each).
std::string many_figures(int n) {
    std::string text = "---\nid: big\ntitle: T\norder: 1\nsummary: S\n---\n```demo lesson_probe name=d0\n```\n\n";
    for (int i = 0; i < n; ++i) text += "Here {{0.74 @d0:rel_diff \xC2\xB1" "0.03}} and {{x^{{2}} }}.\n";
    return text;
}
}  // namespace

TEST_CASE("lesson: quoted figures parse in linear time") {
    const icl::LessonParse parsed = icl::parse_lesson_collect(many_figures(3), "en/01-big.md");
    REQUIRE(parsed.lesson.figures.size() == 3);
    CHECK(parsed.lesson.figures[2].line == 12);  // six lines of front matter, the demo, a blank line, a line each
    CHECK(parsed.lesson.figures[2].instance == "d0");
    // Eight times the figures, about eight times the time (it was sixty-four: each figure
    // counted the lines from the start of its paragraph).
    const double small = parse_seconds(many_figures(2000));
    const double large = parse_seconds(many_figures(16000));
    CHECK_MESSAGE(large < 24 * small + 0.02, "2,000 figures ", small, " s; 16,000 figures ", large, " s");
}

TEST_CASE("lessons lint: a demo instance or a check id named like a JavaScript object's member is refused") {
    const std::string head = "---\nid: x\ntitle: T\norder: 1\nsummary: S\n---\n";
    for (const char* name : {"__proto__", "constructor", "toString", "__defineGetter__", "hasOwnProperty"}) {
        const auto demo = icl::parse_lesson_collect(head + "```demo lesson_probe name=" + name + "\n```\n", "en/01-x.md");
        REQUIRE(demo.problems.size() == 1);
        CHECK(contains(demo.problems[0].message, std::string("demo instance name '") + name + "' is reserved"));
        const auto check = icl::parse_lesson_collect(head + "```check id=" + name + " type=truefalse answer=true\nQ\n---\nF\n```\n",
                                                     "en/01-x.md");
        REQUIRE(check.problems.size() == 1);
        CHECK(contains(check.problems[0].message, std::string("check id '") + name + "' is reserved"));
    }
    const auto fine = icl::parse_lesson_collect(head + "```demo lesson_probe name=proto\n```\n", "en/01-x.md");
    CHECK(fine.problems.empty());
}
#endif
