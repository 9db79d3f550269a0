// An unfinished run of a demo that keeps checkpoints (icl/demo_checkpoint.h), kept on disk
// so that it survives closing the app: <state>/icl-lab/runs/<demo>.json, where <state> is
// $XDG_STATE_HOME (else ~/.local/state), beside progress.json. The file holds
//   {"format": "icl-lab-kept-run", "demo", "params", "seed", "step", "checkpoint"}
// and is written atomically (temp file + rename). A file that cannot be read, or whose
// checkpoint the core refuses, is moved aside to <file>.bad with a notice; the run then
// starts afresh.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <icl/expected.h>

struct KeptRun {
    std::string demo;
    nlohmann::json params;
    uint64_t seed = 1;
    long step = 0;               // where it goes on from: training steps done, over all seeds
    nlohmann::json checkpoint;
};

struct LoadedKeptRun {
    std::optional<KeptRun> run;  // none when there is no file, or it was set aside
    std::string notice;          // non-empty when the file was set aside
};

// <dir of the progress file>/runs/<demo>.json; "" where there is no place for it.
std::string kept_run_path(const std::string& demo_id);
// Writes the checkpoint with the run's parameters; a null checkpoint (a demo that keeps
// none) writes nothing.
icl::Status write_kept_run(const std::string& path, const std::string& demo_id, const nlohmann::json& params,
                           uint64_t seed, const nlohmann::json& checkpoint);
LoadedKeptRun load_kept_run(const std::string& path);
// Moves the file to <path>.bad (replacing an older one); the notice says why and where to.
std::string set_kept_run_aside(const std::string& path, const std::string& why);
void discard_kept_run(const std::string& path);
