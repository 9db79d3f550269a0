// What a learner has done, kept between runs: the language, the last lesson, and each
// check's last answer and whether it was right. A JSON file under the XDG state
// directory ($XDG_STATE_HOME/icl-lab/progress.json, else ~/.local/state/icl-lab/),
// written atomically (temp file + rename) and validated on read: a file that is not
// valid is set aside as progress.json.corrupt-<unix time> and the app starts afresh
// with a notice saying so; a file with some unreadable answers keeps the readable ones
// (the file is copied aside first, and the notice says how many were lost).
//
//   {"version": 1, "lang": "ko", "last_lesson": "dual-form",
//    "checks": {"dual-form": {"dual-form-softmax": {"correct": true, "answer": "b"}}}}
#pragma once
#include <map>
#include <string>

#include <icl/expected.h>
#include <nlohmann/json.hpp>

struct CheckRecord {
    bool correct = false;
    nlohmann::json answer;   // as given to icl::grade
};

struct Progress {
    std::string lang = "en";
    std::string last_lesson;
    std::map<std::string, std::map<std::string, CheckRecord>> checks;  // lesson id -> check id -> record
};

struct LoadedProgress {
    Progress progress;
    std::string notice;   // non-empty when the file was set aside or could not be read
};

// $XDG_STATE_HOME/icl-lab/progress.json (or ~/.local/state/...); "" if neither is set.
std::string default_progress_path();
LoadedProgress load_progress(const std::string& path);
icl::Status save_progress(const Progress& progress, const std::string& path);
