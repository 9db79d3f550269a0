#include "progress_store.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

// Reads the JSON form. A file whose frame is wrong (not an object, version, lang,
// last_lesson, checks) is an Error naming it; single records that are malformed are
// skipped, counted and the first one named, so the learner keeps every readable answer.
struct Read {
    Progress progress;
    int skipped = 0;
    std::string first_skipped;
};
icl::Expected<Read> from_json(const nlohmann::json& j) {
    if (!j.is_object()) return icl::make_error("the top level is not a JSON object");
    if (!j.contains("version") || j["version"] != 1) return icl::make_error("\"version\" is missing or not 1");
    Read r;
    Progress& p = r.progress;
    if (!j.contains("lang") || !j["lang"].is_string() || (j["lang"] != "en" && j["lang"] != "ko"))
        return icl::make_error("\"lang\" must be \"en\" or \"ko\"");
    p.lang = j["lang"].get<std::string>();
    if (j.contains("last_lesson")) {
        if (!j["last_lesson"].is_string()) return icl::make_error("\"last_lesson\" is not a string");
        p.last_lesson = j["last_lesson"].get<std::string>();
    }
    if (!j.contains("checks") || !j["checks"].is_object()) return icl::make_error("\"checks\" is missing or not an object");
    const auto skip = [&r](const std::string& what) {
        if (r.skipped++ == 0) r.first_skipped = what;
    };
    for (const auto& [lesson, checks] : j["checks"].items()) {
        if (!checks.is_object()) {
            skip("checks of lesson \"" + lesson + "\" are not an object");
            continue;
        }
        for (const auto& [check, record] : checks.items()) {
            if (!record.is_object() || !record.contains("correct") || !record["correct"].is_boolean() ||
                !record.contains("answer")) {
                skip("check \"" + lesson + "/" + check + "\" needs \"correct\" (bool) and \"answer\"");
                continue;
            }
            p.checks[lesson][check] = CheckRecord{record["correct"].get<bool>(), record["answer"]};
        }
    }
    return r;
}

nlohmann::json to_json(const Progress& p) {
    nlohmann::json checks = nlohmann::json::object();
    for (const auto& [lesson, records] : p.checks)
        for (const auto& [check, record] : records)
            checks[lesson][check] = {{"correct", record.correct}, {"answer", record.answer}};
    return {{"version", 1}, {"lang", p.lang}, {"last_lesson", p.last_lesson}, {"checks", checks}};
}

}  // namespace

std::string default_progress_path() {
    const char* state_home = std::getenv("XDG_STATE_HOME");
    if (state_home && *state_home && fs::path(state_home).is_absolute())
        return (fs::path(state_home) / "icl-lab" / "progress.json").string();
    const char* home = std::getenv("HOME");
    if (home && *home) return (fs::path(home) / ".local" / "state" / "icl-lab" / "progress.json").string();
    return "";
}

LoadedProgress load_progress(const std::string& path) {
    LoadedProgress loaded;
    std::error_code ec;
    if (path.empty() || !fs::exists(path, ec)) return loaded;  // first run
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in.good() && !in.eof()) {
        loaded.notice = "could not read the progress file " + path + "; starting with no progress";
        return loaded;
    }
    const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    auto parsed = j.is_discarded() ? icl::Expected<Read>(icl::make_error("it is not valid JSON")) : from_json(j);
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::system_clock::now().time_since_epoch()).count();
    const std::string aside = path + ".corrupt-" + std::to_string(seconds);
    if (parsed && parsed.value().skipped == 0) {
        loaded.progress = parsed.value().progress;
        return loaded;
    }
    if (parsed) {  // readable but for some records: keep those, copy the file aside
        const Read& r = parsed.value();
        loaded.progress = r.progress;
        fs::copy_file(path, aside, ec);
        loaded.notice = std::to_string(r.skipped) + " saved answer" + (r.skipped == 1 ? "" : "s") +
                        " could not be read (" + r.first_skipped + "); the others are kept and " +
                        (ec ? "the file could not be copied aside (" + ec.message() + ")" : "the file was copied to " + aside);
        return loaded;
    }
    fs::rename(path, aside, ec);
    loaded.notice = "the progress file was not valid (" + parsed.error().message + "); " +
                    (ec ? "it could not be moved aside (" + ec.message() + ")" : "it was moved to " + aside) +
                    " and progress starts afresh";
    return loaded;
}

icl::Status save_progress(const Progress& progress, const std::string& path) {
    if (path.empty()) return icl::make_error("no place for the progress file: neither XDG_STATE_HOME nor HOME is set");
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) return icl::make_error("cannot create " + fs::path(path).parent_path().string() + ": " + ec.message());
    const std::string temp = path + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << to_json(progress).dump(2) << "\n";
        out.flush();
        if (!out) return icl::make_error("cannot write " + temp);
    }
    fs::rename(temp, path, ec);
    if (ec) return icl::make_error("cannot replace " + path + ": " + ec.message());
    return icl::Ok{};
}
