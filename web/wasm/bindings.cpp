// The wasm module's API for the web worker: the functions of icl::WorkerApi
// (core/include/icl/worker_api.h, JSON strings in, JSON strings out), one to one.
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
std::string parse_params(const std::string& id, const std::string& key_values) {
    return api().parse_params(id, key_values);
}
std::string start(const std::string& id, const std::string& params, const std::string& lang, double seed) {
    return api().start(id, params, lang, seed);
}
std::string step(int handle, int budget) { return api().step(handle, budget); }
std::string drop(int handle) { return api().drop(handle); }
std::string grade(const std::string& check, const std::string& answer, const std::string& result) {
    return api().grade(check, answer, result);
}

}  // namespace

EMSCRIPTEN_BINDINGS(icl_core) {
    emscripten::function("version", &version);
    emscripten::function("demos", &demos);
    emscripten::function("put_asset", &put_asset);
    emscripten::function("parse_params", &parse_params);
    emscripten::function("start", &start);
    emscripten::function("step", &step);
    emscripten::function("drop", &drop);
    emscripten::function("grade", &grade);
}
