// Where the app keeps the learner's progress: the document of icl/progress.h (one
// format for the lesson pages, the desktop app and /lab/), stored
//   natively   in $XDG_STATE_HOME/icl-lab/progress.json (else ~/.local/state/icl-lab/);
//   at /lab/   in the browser's localStorage under "icl-lab.progress" (the key the
//              lesson pages use), so it survives a reload.
// Every save is read-merge-write under an exclusive lock (flock on progress.json.lock):
// the file's records are merged in first (the later answer per check wins), so two app
// windows answering at once never drop each other's answers. The file is written
// atomically (temp file + rename). Only a regular file of at most 1 MiB is read: a
// FIFO, a device, a file over the bounds of icl/progress.h or one that is not a valid
// document is set aside as progress.json.corrupt-<seconds>-<n> (n makes every name
// new) with a notice; a file with some unreadable answers keeps the readable ones and
// is copied aside first.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <icl/expected.h>
#include <icl/progress.h>

using Progress = icl::progress::Document;

struct LoadedProgress {
    Progress progress;
    std::string notice;   // non-empty when the file was set aside or could not be read
};

// $XDG_STATE_HOME/icl-lab/progress.json (or ~/.local/state/...); "" if neither is set.
std::string default_progress_path();
// Milliseconds since the epoch; ICL_NOW_MS in the environment fixes it (for tests).
int64_t progress_now_ms();
LoadedProgress load_progress(const std::string& path);
// Under the lock: reads the stored document, merges it into `progress`, applies
// `change` (if any) and writes the result — unless the result would not read back
// (icl::progress::fits: past the bounds on bytes, records or an answer's size), which is
// an error: the file is left as it was and `change` is dropped. A stored document that
// cannot be read is set aside and its notice appended to `notices`. Times are bounded
// to the present (icl::progress::bound_times).
icl::Status update_progress(Progress& progress, const std::string& path,
                            const std::function<void(Progress&)>& change = nullptr,
                            std::vector<std::string>* notices = nullptr);
inline icl::Status save_progress(Progress& progress, const std::string& path) { return update_progress(progress, path); }
// Merges a progress file (from the lesson pages' export, or another machine) into the
// stored progress; a damaged file, or one whose merge would not read back, is refused
// whole and nothing changes.
icl::Expected<icl::progress::MergeCount> import_progress(Progress& progress, const std::string& path,
                                                         const std::string& file);
// Writes the progress document, or the CSV summary, to a file.
icl::Status export_progress(const Progress& progress, const std::string& file);
icl::Status export_summary_csv(const Progress& progress, const std::string& file);
