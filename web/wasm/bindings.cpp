// The wasm module's API for the web worker: JSON strings in, JSON strings out.
#include <emscripten/bind.h>

#include <string>

static std::string version() { return ICL_VERSION; }

EMSCRIPTEN_BINDINGS(icl_core) {
    emscripten::function("version", &version);
}
