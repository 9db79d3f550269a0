// The wasm module's API for the web worker: the functions of icl::WorkerApi
// (core/api/icl/worker_api.h, JSON strings in, JSON strings out), one to one.
// The API lives in core so the fuzz target tests/fuzz/fuzz_worker_json.cpp runs the
// very code the worker calls. Only the JS side of put_asset (a Uint8Array) is here.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "icl/worker_api.h"

namespace {

icl::WorkerApi& api() {
    static icl::WorkerApi the_api;
    return the_api;
}

std::string version() { return api().version(); }
std::string demos(const std::string& lang) { return api().demos(lang); }
std::string put_asset(const std::string& name, const emscripten::val& bytes) {
    if (!bytes.instanceof(emscripten::val::global("Uint8Array")))
        return nlohmann::json{{"error", "asset '" + name + "' must be a Uint8Array"}}.dump(
            -1, ' ', false, nlohmann::json::error_handler_t::replace);
    return api().put_asset(name, emscripten::convertJSArrayToNumberVector<uint8_t>(bytes));
}
std::string parse_params(const std::string& id, const std::string& key_values, const std::string& lang) {
    return api().parse_params(id, key_values, lang);
}
std::string start(const std::string& id, const std::string& params, const std::string& lang, double seed) {
    return api().start(id, params, lang, seed);
}
std::string step(int handle, int budget, bool snapshot) { return api().step(handle, budget, snapshot); }
std::string drop(int handle) { return api().drop(handle); }
std::string offload(int handle, int lane) { return api().offload(handle, lane); }
std::string start_lane(const std::string& id, const std::string& params, const std::string& lang, double seed,
                       int lane) {
    return api().start_lane(id, params, lang, seed, lane);
}
std::string take_lane(int handle, int lane, const std::string& state) { return api().take_lane(handle, lane, state); }
std::string checkpoint(int handle) { return api().checkpoint(handle); }
std::string resume(int handle, const std::string& c) { return api().resume(handle, c); }
std::string grade(const std::string& check, const std::string& answer, const std::string& result,
                  const std::string& lang) {
    return api().grade(check, answer, result, lang);
}

std::string progress_read(const std::string& text, double now) { return api().progress_read(text, now); }
std::string progress_record(const std::string& text, const std::string& lesson, const std::string& check,
                            const std::string& answer, bool correct, double now) {
    return api().progress_record(text, lesson, check, answer, correct, now);
}
std::string progress_merge(const std::string& text, const std::string& imported, double now) {
    return api().progress_merge(text, imported, now);
}
std::string progress_due(const std::string& text, double now) { return api().progress_due(text, now); }
std::string progress_fit(const std::string& text, const std::string& lesson, const std::string& checks) {
    return api().progress_fit(text, lesson, checks);
}
std::string progress_csv(const std::string& text) { return api().progress_csv(text); }

}  // namespace

EMSCRIPTEN_BINDINGS(icl_core) {
    emscripten::function("version", &version);
    emscripten::function("demos", &demos);
    emscripten::function("put_asset", &put_asset);
    emscripten::function("parse_params", &parse_params);
    emscripten::function("start", &start);
    emscripten::function("step", &step);
    emscripten::function("drop", &drop);
    emscripten::function("offload", &offload);
    emscripten::function("start_lane", &start_lane);
    emscripten::function("take_lane", &take_lane);
    emscripten::function("checkpoint", &checkpoint);
    emscripten::function("resume", &resume);
    emscripten::function("grade", &grade);
    emscripten::function("progress_read", &progress_read);
    emscripten::function("progress_record", &progress_record);
    emscripten::function("progress_merge", &progress_merge);
    emscripten::function("progress_due", &progress_due);
    emscripten::function("progress_fit", &progress_fit);
    emscripten::function("progress_csv", &progress_csv);
}
