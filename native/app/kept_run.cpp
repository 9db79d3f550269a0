#include "kept_run.h"

#include <filesystem>
#include <fstream>

#include <icl/file_read.h>

#include "progress_store.h"

namespace fs = std::filesystem;

namespace {
// A checkpoint holds the models of every seed; bounded so a wrong file cannot exhaust memory.
const size_t kMaxBytes = size_t(256) << 20;
const char* kFormat = "icl-lab-kept-run";
}  // namespace

std::string kept_run_path(const std::string& demo_id) {
    const std::string progress = default_progress_path();
    if (progress.empty() || demo_id.empty()) return "";
    return (fs::path(progress).parent_path() / "runs" / (demo_id + ".json")).string();
}

icl::Status write_kept_run(const std::string& path, const std::string& demo_id, const nlohmann::json& params,
                           uint64_t seed, const nlohmann::json& checkpoint) {
    if (checkpoint.is_null() || path.empty()) return icl::Ok{};
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) return icl::make_error("cannot create " + fs::path(path).parent_path().string() + ": " + ec.message());
    // The units done, counted over the seeds trained one after another.
    long step = 0;
    if (checkpoint.contains("state") && checkpoint["state"].is_object()) {
        const nlohmann::json& state = checkpoint["state"];
        long steps = 0;
        if (checkpoint.contains("params") && checkpoint["params"].is_object())
            steps = checkpoint["params"].value("steps", 0L);
        step = state.value("seed_index", 0L) * steps + state.value("step", 0L);
    }
    const nlohmann::json doc = {{"format", kFormat}, {"demo", demo_id}, {"params", params}, {"seed", seed},
                                {"step", step},      {"checkpoint", checkpoint}};
    const std::string temp = path + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << doc.dump();
        out.flush();
        if (!out) return icl::make_error("cannot write " + temp);
    }
    fs::rename(temp, path, ec);
    if (ec) return icl::make_error("cannot replace " + path + ": " + ec.message());
    return icl::Ok{};
}

std::string set_kept_run_aside(const std::string& path, const std::string& why) {
    std::error_code ec;
    fs::rename(path, path + ".bad", ec);
    return why + "; " + (ec ? "the file could not be moved aside (" + ec.message() + ")" : "the file was moved to " + path + ".bad");
}

LoadedKeptRun load_kept_run(const std::string& path) {
    LoadedKeptRun out;
    if (path.empty()) return out;
    bool missing = false;
    auto text = icl::read_regular_file(path, kMaxBytes, &missing);
    if (missing) return out;
    if (!text) {
        out.notice = set_kept_run_aside(path, text.error().message);
        return out;
    }
    const nlohmann::json doc = nlohmann::json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
    std::string problem;
    if (doc.is_discarded()) problem = "it is not JSON";
    else if (!doc.is_object() || doc.value("format", nlohmann::json()) != kFormat) problem = "it is not a kept run";
    else if (!doc.contains("demo") || !doc["demo"].is_string() || !doc.contains("params") || !doc["params"].is_object() ||
             !doc.contains("seed") || !doc["seed"].is_number_unsigned() || !doc.contains("step") ||
             !doc["step"].is_number_integer() || !doc.contains("checkpoint") || !doc["checkpoint"].is_object())
        problem = "a field is missing or of the wrong type";
    if (!problem.empty()) {
        out.notice = set_kept_run_aside(path, problem);
        return out;
    }
    out.run = KeptRun{doc["demo"].get<std::string>(), doc["params"], doc["seed"].get<uint64_t>(),
                      doc["step"].get<long>(), doc["checkpoint"]};
    return out;
}

void discard_kept_run(const std::string& path) {
    std::error_code ec;
    if (!path.empty()) fs::remove(path, ec);
}
