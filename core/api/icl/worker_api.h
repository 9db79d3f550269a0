// The web worker's API to the core: JSON strings in, JSON strings out. Portable (no
// emscripten): web/wasm/bindings.cpp exposes these one to one, and the fuzz target
// tests/fuzz/fuzz_worker_json.cpp calls the same functions natively.
// Every function returns a JSON text; a failure is {"error": "<readable message>"},
// never an exception escaping into JS and never an abort.
//
//   version()                            -> {"version": "0.1.0"}
//   demos(lang)                          -> [DemoInfo, ...]            (icl/demo.h)
//   put_asset(name, bytes)               -> {}                         a file a demo lists in "assets",
//                                                                      or a catalogue, <lang>/catalogue/<file>.json
//   parse_params(id, ["k=v", ...], lang) -> {"params": {...}}          typed and validated by the specs
//   start(id, params, lang, seed)        -> {"handle": n, "lanes": L}  its texts from the catalogues put
//                                                                      (load_texts, icl/demo.h); L > 1: lanes
//                                                                      1..L-1 may train in other workers
//   step(handle, budget, snapshot)       -> Result                     (a slice of work, then a snapshot;
//                                           snapshot false: {"done": false, "progress": p} until
//                                           the run is done, then the Result; "waiting": true
//                                           while its own work is done and an offloaded lane's
//                                           last state is not in)
//   drop(handle)                         -> {}
// Lanes (Session::lanes, icl/demo.h), for a second worker training side by side:
//   offload(handle, k)                   -> {}                         before the first step: lane k
//                                                                      is trained elsewhere
//   start_lane(id, params, lang, seed, k) -> {"handle": n}             a session of lane k only; its
//                                           step answers {"lane": k, "done", "progress", "state"}
//                                           ("state" on a snapshot and at the end)
//   take_lane(handle, k, state)          -> {}                         a state of lane k, from step above
// Checkpoints (icl/demo_checkpoint.h), so that a long run survives a reload:
//   checkpoint(handle)                   -> Checkpoint, or null        (a whole or lane session; null where
//                                                                      the demo keeps none)
//   resume(handle, checkpoint)           -> {}                         before the first step (after the same
//                                                                      offloads); a refused one is an Error
//                                                                      naming what differs: start afresh
//   grade(check, answer, demo_result, lang) -> {"correct", "feedback_html", "correct_answer"}
// A mistake a learner can make (a parameter out of range, an answer that is not a number)
// comes back in `lang`, from lessons/<lang>/catalogue/common.json's "error.*" texts (the
// worker puts that file and English's before these calls); any other error in English.
//
// The learner's progress document (icl/progress.h), kept by the page as text (`text`
// in every answer is what to store; `progress` the same document as JSON; now in ms):
//   progress_read(text, now)             -> {text, progress, skipped, first_skipped, due}
//                                           (an Error: the text is not a progress document)
//   progress_record(text, lesson, check, answer, correct, now) -> {text, progress}; an
//                                           answer past the bounds is an Error
//   progress_merge(text, imported, now)  -> {text, progress, added, updated}; a damaged
//                                           import, or one whose result would not read
//                                           back (progress::fits), is an Error and
//                                           nothing changes
// Times are bounded to `now` (progress::bound_times) before records are compared.
//   progress_due(text, now)              -> {due: [{lesson, check, due}, ...]}
//   progress_fit(text, lesson, checks)   -> {text, progress, dropped: ["...", ...], moved: n}
//                                           (records of checks with "from" moved here first,
//                                           progress::move_checks)
//   progress_csv(text)                   -> {csv}
#pragma once
#include <map>
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "icl/demo.h"

namespace icl {

class WorkerApi {
public:
    // Live sessions are bounded so a page that leaks handles is told, not OOM-killed.
    static constexpr size_t kMaxSessions = 64;
    // Every JSON argument nests at most this deep, checked before it is parsed.
    static constexpr int kMaxJsonDepth = 64;

    std::string version() const;
    std::string demos(const std::string& lang) const;
    // The worker fetches the files a demo lists in DemoInfo.assets and hands them over
    // here before starting it (wasm has no file system; see icl/assets.h).
    std::string put_asset(const std::string& name, std::vector<uint8_t> bytes);
    std::string parse_params(const std::string& id, const std::string& key_values_json,
                             const std::string& lang = "en") const;
    std::string start(const std::string& id, const std::string& params_json, const std::string& lang,
                      double seed);
    std::string step(int handle, int budget, bool snapshot = true);
    std::string drop(int handle);
    std::string offload(int handle, int lane);
    std::string start_lane(const std::string& id, const std::string& params_json, const std::string& lang,
                           double seed, int lane);
    std::string take_lane(int handle, int lane, const std::string& state_json);
    std::string checkpoint(int handle) const;
    std::string resume(int handle, const std::string& checkpoint_json);
    std::string grade(const std::string& check_json, const std::string& answer_json, const std::string& result_json,
                      const std::string& lang = "en") const;

    std::string progress_read(const std::string& text, double now) const;
    std::string progress_record(const std::string& text, const std::string& lesson, const std::string& check,
                                const std::string& answer_json, bool correct, double now) const;
    std::string progress_merge(const std::string& text, const std::string& imported, double now) const;
    std::string progress_due(const std::string& text, double now) const;
    std::string progress_fit(const std::string& text, const std::string& lesson, const std::string& checks_json) const;
    std::string progress_csv(const std::string& text) const;

private:
    std::map<int, std::unique_ptr<Session>> sessions_;
    int next_handle_ = 1;
};

}  // namespace icl
