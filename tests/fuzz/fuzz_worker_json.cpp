// libFuzzer target: the JSON API the web worker calls (icl::WorkerApi, the code behind
// web/wasm/bindings.cpp). The input is a short script of calls, each a line
//   <fn>\t<arg>\t<arg>...     fn: demos | parse_params | start | step | drop | grade |
//                              offload | start_lane | take_lane (a run's lanes)
// numbers (seed, handle, budget) are read from their text; a step's budget is capped
// at 2 so one input stays fast, and its third argument "false" (or "0", or empty) asks
// for no snapshot. Every call's answer must be a JSON text: an object
// with "error", or the documented shape.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "icl/worker_api.h"

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out(1);
    for (char c : s) {
        if (c == sep) out.emplace_back();
        else out.back().push_back(c);
    }
    return out;
}

double number(const std::vector<std::string>& args, size_t i) {
    if (i >= args.size()) return 0;
    char* end = nullptr;
    const double v = std::strtod(args[i].c_str(), &end);
    return end == args[i].c_str() ? 0 : v;
}

int small_int(double v) { return v >= -1e6 && v <= 1e6 ? static_cast<int>(v) : 0; }

const std::string& arg(const std::vector<std::string>& args, size_t i) {
    static const std::string empty;
    return i < args.size() ? args[i] : empty;
}

nlohmann::json must_parse(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) std::abort();
    return j;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    icl::WorkerApi api;
    const std::string script(reinterpret_cast<const char*>(data), size);
    int calls = 0;
    for (const std::string& line : split(script, '\n')) {
        if (++calls > 16) break;
        const std::vector<std::string> a = split(line, '\t');
        const std::string& fn = a[0];
        if (fn == "demos") {
            const auto j = must_parse(api.demos(arg(a, 1)));
            if (!j.is_array() && !j.contains("error")) std::abort();
        } else if (fn == "parse_params") {
            const auto j = must_parse(api.parse_params(arg(a, 1), arg(a, 2)));
            if (!j.contains("error") && !j.at("params").is_object()) std::abort();
        } else if (fn == "start") {
            const auto j = must_parse(api.start(arg(a, 1), arg(a, 2), arg(a, 3), number(a, 4)));
            if (!j.contains("error") && !j.at("handle").is_number_integer()) std::abort();
        } else if (fn == "step") {
            const int budget = small_int(number(a, 2));
            // a third argument that is true (or none): a snapshot; false: only where the run is
            const bool snapshot = a.size() < 4 || (!a[3].empty() && a[3] != "false" && a[3] != "0");
            const auto j = must_parse(api.step(small_int(number(a, 1)), budget > 2 ? 2 : budget, snapshot));
            if (j.contains("error")) {
            } else if (j.contains("lane")) {  // a lane session: its state, no panels
                if (!j.at("lane").is_number_integer() || !j.at("done").is_boolean()) std::abort();
                if ((snapshot || j.at("done") == true) && !j.at("state").is_object()) std::abort();
            } else if (j.contains("panels")) {
                if (!j.at("panels").is_array()) std::abort();
            } else if (snapshot || j.at("done") != false || !j.at("progress").is_number()) {
                std::abort();  // without a snapshot only a run still going may leave its panels out
            }
        } else if (fn == "offload") {
            const auto j = must_parse(api.offload(small_int(number(a, 1)), small_int(number(a, 2))));
            if (!j.is_object() || (!j.empty() && !j.contains("error"))) std::abort();
        } else if (fn == "start_lane") {
            const auto j = must_parse(api.start_lane(arg(a, 1), arg(a, 2), arg(a, 3), number(a, 4), small_int(number(a, 5))));
            if (!j.contains("error") && !j.at("handle").is_number_integer()) std::abort();
        } else if (fn == "take_lane") {
            const auto j = must_parse(api.take_lane(small_int(number(a, 1)), small_int(number(a, 2)), arg(a, 3)));
            if (!j.is_object() || (!j.empty() && !j.contains("error"))) std::abort();
        } else if (fn == "drop") {
            must_parse(api.drop(small_int(number(a, 1))));
        } else if (fn == "grade") {
            const auto j = must_parse(api.grade(arg(a, 1), arg(a, 2), arg(a, 3)));
            if (!j.contains("error") && !j.at("correct").is_boolean()) std::abort();
        } else if (fn == "version") {
            must_parse(api.version());
        }
    }
    return 0;
}
