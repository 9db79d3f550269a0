// The progress file: a round trip, the XDG location, and every kind of bad file set
// aside with a notice (never a crash, never a half-read state).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

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
    p.checks["dual-form"]["q1"] = CheckRecord{true, "b"};
    p.checks["dual-form"]["q2"] = CheckRecord{false, nlohmann::json::array({"a", "c"})};
    REQUIRE(save_progress(p, path).ok());
    CHECK_FALSE(fs::exists(path + ".tmp"));
    const LoadedProgress loaded = load_progress(path);
    CHECK(loaded.notice.empty());
    CHECK(loaded.progress.lang == "ko");
    CHECK(loaded.progress.last_lesson == "dual-form");
    CHECK(loaded.progress.checks.at("dual-form").at("q1").correct);
    CHECK(loaded.progress.checks.at("dual-form").at("q2").answer == nlohmann::json::array({"a", "c"}));
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
    const std::pair<const char*, const char*> cases[] = {
        {"{\"version\": 1, \"lang\": ", "not valid JSON"},
        {"[1, 2]", "not a JSON object"},
        {"{\"version\": 2, \"lang\": \"en\", \"checks\": {}}", "\"version\""},
        {"{\"version\": 1, \"lang\": \"fr\", \"checks\": {}}", "\"lang\""},
        {"{\"version\": 1, \"lang\": \"en\", \"checks\": []}", "\"checks\""},
        {"{\"version\": 1, \"lang\": \"en\", \"last_lesson\": 3, \"checks\": {}}", "\"last_lesson\""},
    };
    for (const auto& [text, problem] : cases) {
        CAPTURE(text);
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

TEST_CASE("saving where no directory can be made is an error value") {
    TempDir dir;
    write(dir.path / "file", "x");
    auto saved = save_progress(Progress{}, (dir.path / "file" / "sub" / "progress.json").string());
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
