// The progress file: a round trip, the XDG location, every kind of bad file set aside
// with a notice under a name of its own (never a crash, a hang or a half-read state),
// concurrent writers that keep every answer, import and export.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>

#include "progress_store.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        char name[] = "/tmp/icl-app-test-XXXXXX";
        path = mkdtemp(name);
    }
    ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

int files_starting_with(const fs::path& dir, const std::string& prefix) {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind(prefix, 0) == 0) ++n;
    return n;
}

}  // namespace

TEST_CASE("progress survives a save and a load") {
    TempDir dir;
    const std::string path = (dir.path / "icl-lab" / "progress.json").string();
    Progress p;
    p.lang = "ko";
    p.last_lesson = "dual-form";
    icl::progress::record_answer(p, "dual-form", "q1", "b", true, 1000);
    icl::progress::record_answer(p, "dual-form", "q2", nlohmann::json::array({"a", "c"}), false, 2000);
    REQUIRE(save_progress(p, path).ok());
    CHECK_FALSE(fs::exists(path + ".tmp"));
    const LoadedProgress loaded = load_progress(path);
    CHECK(loaded.notice.empty());
    CHECK(loaded.progress.lang == "ko");
    CHECK(loaded.progress.last_lesson == "dual-form");
    CHECK(loaded.progress.checks.at("dual-form").at("q1").correct);
    CHECK(loaded.progress.checks.at("dual-form").at("q2").answer == nlohmann::json::array({"a", "c"}));
    CHECK(loaded.progress.checks.at("dual-form").at("q2").at == 2000);
}

TEST_CASE("a missing file is a first run, not an error") {
    TempDir dir;
    const LoadedProgress loaded = load_progress((dir.path / "none.json").string());
    CHECK(loaded.notice.empty());
    CHECK(loaded.progress.checks.empty());
}

TEST_CASE("the file lives under XDG_STATE_HOME, else ~/.local/state") {
    const char* old_state = std::getenv("XDG_STATE_HOME");
    const char* old_home = std::getenv("HOME");
    const std::string saved = old_state ? old_state : "", saved_home = old_home ? old_home : "";
    setenv("XDG_STATE_HOME", "/somewhere/state", 1);
    CHECK(default_progress_path() == "/somewhere/state/icl-lab/progress.json");
    setenv("XDG_STATE_HOME", "relative/is/ignored", 1);  // the spec says: absolute paths only
    setenv("HOME", "/home/learner", 1);
    CHECK(default_progress_path() == "/home/learner/.local/state/icl-lab/progress.json");
    if (old_state) setenv("XDG_STATE_HOME", saved.c_str(), 1); else unsetenv("XDG_STATE_HOME");
    if (old_home) setenv("HOME", saved_home.c_str(), 1); else unsetenv("HOME");
}

TEST_CASE("every bad file is moved aside with a notice naming the problem") {
    const std::pair<std::string, const char*> cases[] = {
        {"{\"version\": 1, \"lang\": ", "not valid JSON"},
        {"[1, 2]", "not a JSON object"},
        {"{\"version\": 3, \"lang\": \"en\", \"checks\": {}}", "\"version\""},
        {"{\"version\": 1, \"lang\": \"en\", \"checks\": []}", "\"checks\""},
        {"{\"version\": 1, \"lang\": \"en\", \"last_lesson\": 3, \"checks\": {}}", "\"last_lesson\""},
        // Past the bounds: 100,000 deep (it used to crash every start), and 1 MiB.
        {"{\"version\": 2, \"checks\": {\"l\": {\"q\": {\"answer\": " + std::string(100000, '[') +
             std::string(100000, ']') + "}}}}", "nested 100004 deep"},
        {std::string((1 << 20) + 1, ' '), "more than the 1048576"},
    };
    for (const auto& [text, problem] : cases) {
        CAPTURE(text.substr(0, 60));
        TempDir dir;
        const fs::path path = dir.path / "progress.json";
        write(path, text);
        const LoadedProgress loaded = load_progress(path.string());
        CHECK(loaded.notice.find(problem) != std::string::npos);
        CHECK(loaded.notice.find("moved to") != std::string::npos);
        CHECK(loaded.progress.checks.empty());
        CHECK(loaded.progress.lang == "en");
        CHECK_FALSE(fs::exists(path));
        CHECK(files_starting_with(dir.path, "progress.json.corrupt-") == 1);
    }
}

TEST_CASE("a 20 KB file nested 10,000 deep is set aside as it is, and the new file stays small") {
    TempDir dir;
    const fs::path path = dir.path / "progress.json";
    const std::string text = "{\"version\": 1, \"lang\": \"en\", \"checks\": {\"l\": {\"q\": {\"correct\": true, \"answer\": " +
                             std::string(10000, '[') + std::string(10000, ']') + "}}}}";
    write(path, text);
    LoadedProgress loaded = load_progress(path.string());
    CHECK(loaded.notice.find("moved to") != std::string::npos);
    REQUIRE(save_progress(loaded.progress, path.string()).ok());
    CHECK(fs::file_size(path) < 200);
    for (const auto& e : fs::directory_iterator(dir.path))
        if (e.path().filename().string().rfind("progress.json.corrupt-", 0) == 0) CHECK(fs::file_size(e.path()) == text.size());
}

TEST_CASE("a FIFO, a link to /dev/zero and a 4 GB file are set aside, never read") {
    TempDir dir;
    const fs::path path = dir.path / "progress.json";
    REQUIRE(mkfifo(path.c_str(), 0600) == 0);
    LoadedProgress fifo = load_progress(path.string());   // used to hang here
    CHECK(fifo.notice.find("not a regular file") != std::string::npos);
    fs::create_symlink("/dev/zero", path);
    LoadedProgress zero = load_progress(path.string());   // used to end in bad_alloc
    CHECK(zero.notice.find("not a regular file") != std::string::npos);
    { std::ofstream(path.string()); }
    fs::resize_file(path, std::uintmax_t(4) << 30);        // sparse: no disk used
    LoadedProgress huge = load_progress(path.string());
    CHECK(huge.notice.find("more than the 1048576") != std::string::npos);
    // Three set aside within the same second: three names (they used to overwrite each other).
    CHECK(files_starting_with(dir.path, "progress.json.corrupt-") == 3);
}

TEST_CASE("saving where no directory can be made is an error value") {
    TempDir dir;
    write(dir.path / "file", "x");
    Progress p;
    auto saved = save_progress(p, (dir.path / "file" / "sub" / "progress.json").string());
    REQUIRE_FALSE(saved.ok());
    CHECK(saved.error().message.find("cannot create") != std::string::npos);
}

TEST_CASE("a file with some unreadable answers keeps the readable ones and is copied aside") {
    TempDir dir;
    const fs::path path = dir.path / "progress.json";
    write(path, "{\"version\": 1, \"lang\": \"ko\", \"last_lesson\": \"l\", \"checks\": {"
                "\"l\": {\"good\": {\"correct\": true, \"answer\": \"b\"}, \"q\": {\"correct\": 1, \"answer\": \"a\"}},"
                "\"m\": [1], \"n\": {\"ok\": {\"correct\": false, \"answer\": [1, 2]}}}}");
    const LoadedProgress loaded = load_progress(path.string());
    CHECK(loaded.notice.find("2 saved answers could not be read") != std::string::npos);
    CHECK(loaded.notice.find("l/q") != std::string::npos);
    CHECK(loaded.progress.lang == "ko");
    CHECK(loaded.progress.last_lesson == "l");
    CHECK(loaded.progress.checks.at("l").at("good").correct);
    CHECK(loaded.progress.checks.at("n").at("ok").answer == nlohmann::json::array({1, 2}));
    CHECK(loaded.progress.checks.at("l").count("q") == 0);
    CHECK(loaded.progress.checks.count("m") == 0);
    CHECK(fs::exists(path));  // still there: the next save rewrites it with the kept answers
    CHECK(files_starting_with(dir.path, "progress.json.corrupt-") == 1);
}

TEST_CASE("two writers answering at once keep every answer (read-merge-write under the lock)") {
    TempDir dir;
    const std::string path = (dir.path / "progress.json").string();
    const auto writer = [&path](const std::string& lesson) {
        Progress mine;   // each writer's own view, like two app windows
        for (int k = 0; k < 20; ++k)
            REQUIRE(update_progress(mine, path, [&](Progress& p) {
                icl::progress::record_answer(p, k % 2 ? lesson : "shared", "q" + std::to_string(k % 4), "a", false, 1000 + k);
            }).ok());
    };
    std::thread a(writer, "left"), b(writer, "right");
    a.join();
    b.join();
    const LoadedProgress loaded = load_progress(path);
    int64_t attempts = 0;
    for (const auto& [lesson, records] : loaded.progress.checks)
        for (const auto& [check, r] : records) attempts += r.attempts;
    CHECK(attempts == 40);
    CHECK(loaded.progress.checks.at("left").size() == 2);
    CHECK(loaded.progress.checks.at("right").size() == 2);
}

TEST_CASE("import merges a progress file; a damaged one is refused and nothing changes; export round-trips") {
    TempDir dir;
    const std::string path = (dir.path / "progress.json").string();
    Progress mine;
    icl::progress::record_answer(mine, "l", "a", "x", false, 10);
    REQUIRE(save_progress(mine, path).ok());
    Progress other;
    icl::progress::record_answer(other, "l", "a", "b", true, 20);
    icl::progress::record_answer(other, "m", "c", "y", true, 5);
    const std::string file = (dir.path / "export.json").string();
    REQUIRE(export_progress(other, file).ok());
    auto merged = import_progress(mine, path, file);
    REQUIRE(merged);
    CHECK(merged.value().added == 1);
    CHECK(merged.value().updated == 1);
    CHECK(load_progress(path).progress.checks.at("l").at("a").answer == "b");
    const auto before = fs::file_size(path);
    write(dir.path / "damaged.json", "{\"version\": 2, \"checks\": {\"l\": {\"a\": {\"correct\": 7}}}}");
    auto refused = import_progress(mine, path, (dir.path / "damaged.json").string());
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("damaged") != std::string::npos);
    CHECK_FALSE(import_progress(mine, path, (dir.path / "none.json").string()));
    CHECK(fs::file_size(path) == before);
    CHECK(load_progress(path).progress.checks.at("m").count("c") == 1);
}

TEST_CASE("an import whose merged file would not read back is refused, and the stored file stays readable") {
    // 10,500 records import under 1 MiB, but the merged file is written past it: the next
    // start used to set the whole file aside.
    TempDir dir;
    const std::string path = (dir.path / "progress.json").string();
    Progress mine;
    icl::progress::record_answer(mine, "dual-form", "q", "b", true, 10);
    REQUIRE(save_progress(mine, path).ok());
    std::string big = R"({"version":2,"checks":{"l":{)";
    for (int i = 0; i < 10500; ++i)
        big += std::string(i ? "," : "") + "\"c" + std::to_string(i) +
               R"(":{"answer":"a","correct":true,"attempts":1,"at":1764590400000,"box":1,"due":1764590400000})";
    big += "}}}";
    REQUIRE(big.size() <= icl::progress::Bounds{}.max_bytes);
    write(dir.path / "big.json", big);
    const auto before = fs::file_size(path);
    auto refused = import_progress(mine, path, (dir.path / "big.json").string());
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("would not read back") != std::string::npos);
    CHECK(refused.error().message.find("nothing was imported") != std::string::npos);
    CHECK(fs::file_size(path) == before);
    const LoadedProgress loaded = load_progress(path);
    CHECK(loaded.notice.empty());
    CHECK(loaded.progress.checks.at("dual-form").count("q") == 1);
    CHECK(files_starting_with(dir.path, "progress.json.corrupt") == 0);
}

TEST_CASE("a progress file written in an added language is read, not set aside") {
    TempDir dir;
    const std::string path = (dir.path / "progress.json").string();
    Progress p;
    p.lang = "fr";   // the app opened once in lessons/fr/
    icl::progress::record_answer(p, "dual-form", "q", "b", true, 10);
    REQUIRE(save_progress(p, path).ok());
    for (int start = 0; start < 2; ++start) {
        const LoadedProgress loaded = load_progress(path);
        CHECK(loaded.notice.empty());
        CHECK(loaded.progress.lang == "fr");
        CHECK(loaded.progress.checks.at("dual-form").count("q") == 1);
    }
    CHECK(files_starting_with(dir.path, "progress.json.corrupt") == 0);
}
