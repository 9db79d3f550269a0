// labs: milliseconds per update of each lab demo, as a page pays it — the worker's JSON
// API (icl/worker_api.h): start with the edited parameters, step to done, the Result
// as JSON text, drop. An update is one edit (a point moved, a slider nudged); each lab
// runs kUpdates of them after one warm-up run (which also trains what the lab keeps
// for the process), and the median wall time is printed, natively and (the same
// source built by emscripten) in wasm under node; bench/run labs puts them side by side.
// Prints: lab=<id> warmup_ms=<x> update_ms=<median> updates=<n>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/assets.h"
#include "icl/demo.h"
#include "icl/worker_api.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kUpdates = 41;

struct Lab {
    std::string id;
    std::function<json(int)> params;  // the k-th edit's parameters
};

// One update: what the worker does for a run of an analytic demo.
bool update(icl::WorkerApi& api, const std::string& id, const json& params) {
    const json started = json::parse(api.start(id, params.dump(), "en", 1));
    if (!started.contains("handle")) {
        std::fprintf(stderr, "%s: %s\n", id.c_str(), started.dump().c_str());
        return false;
    }
    const int handle = started["handle"].get<int>();
    for (int guard = 0; guard < 100000; ++guard) {
        const std::string text = api.step(handle, 1000);
        const json result = json::parse(text);
        if (result.contains("error") && !result.contains("demo")) return false;
        if (result.value("done", false)) break;
    }
    api.drop(handle);
    return true;
}

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

int main() {
    // A learner dragging the third of five points up and down the plot.
    const std::vector<Lab> labs = {
        {"regression_lab",
         [](int k) {
             const double y = -3.0 + 6.0 * (k % 13) / 12.0;
             return json{{"points", {{-1.5, -0.8}, {-0.8, -0.1}, {0.0, y}, {0.6, 0.8}, {1.3, 1.9}}}};
         }},
        // A learner nudging the probes' ridge strength: the forward passes are kept, the
        // probes refitted.
        {"algorithm_probe", [](int k) { return json{{"probe_lambda", 0.5 + 0.25 * (k % 20)}}; }},
        // A learner typing a prompt: the lecture's, then its query words one by one.
        {"prompt_lab",
         [](int k) {
             const char* const prompts[] = {"hot → cold ; big → small ; fast →", "hot → cold ; big → small ; slow →",
                                            "hot → cold ; big → small ; fast → slow ; small →",
                                            "dog → Paris ; cat → Tokyo ; horse → Rome ; dog →"};
             return json{{"prompt", prompts[k % 4]}};
         }},
        // A learner typing symbols: the sequence grows by one token per edit.
        {"sequence_lab",
         [](int k) {
             const char* const syms[] = {"c", "c", "d", "c", "a", "e", ";"};
             std::string seq = syms[0];
             for (int j = 1; j <= k % 20; ++j) seq += std::string(" ") + syms[j % 7];
             return json{{"sequence", seq}};
         }},
    };
    icl::set_asset_dir(ICL_BENCH_LESSONS);  // the shipped checkpoints (wasm: NODERAWFS)
    for (const Lab& lab : labs) {
        if (!icl::find_demo(lab.id)) continue;  // a lab this tree does not have yet
        icl::WorkerApi api;
        auto t0 = Clock::now();
        if (!update(api, lab.id, lab.params(0))) return 1;
        const double warmup = ms_since(t0);
        std::vector<double> ms;
        for (int k = 1; k <= kUpdates; ++k) {
            t0 = Clock::now();
            if (!update(api, lab.id, lab.params(k))) return 1;
            ms.push_back(ms_since(t0));
        }
        std::sort(ms.begin(), ms.end());
        std::printf("lab=%s warmup_ms=%.1f update_ms=%.2f updates=%d\n", lab.id.c_str(), warmup, ms[ms.size() / 2],
                    kUpdates);
    }
    return 0;
}
