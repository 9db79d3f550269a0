// One tiny-GPT training step (forward, backward, AdamW) timed for the configs of
// TOOLCHAIN.md: S V=64 T=64 d=64 L=2 H=4 B=16; M V=64 T=128 d=128 L=4 H=4 B=8;
// L V=96 T=256 d=192 L=6 H=6 B=8. Natively it times the best ISA and SSE4.1 (what
// wasm lowers to SIMD128); in wasm the one ISA it has. Each figure is the median
// of the samples. Two clocks: `ms` is the process's CPU time natively (this shared
// machine deschedules long samples; bench/train_torch.py uses the same clock for
// PyTorch), and `wall_ms` is the fastest sample by the wall clock, the one clock
// wasm has (node's CPU clock also counts V8's compiler and GC threads); the wasm
// ratios compare wall_ms with wall_ms. Output lines are parsed by bench/run:
//   train config=S isa=avx512 ms=1.23 wall_ms=1.25     (wasm: ms is wall_ms)
//   icl_bench_train [S M L ...]   (default: S M L natively, S M in wasm)
// With --profile (a build configured with -DICL_PROFILE=ON, as bench/run's are) it
// prints instead, per config at the best ISA, where one step spends its time: every
// phase of icl/profile.h with its µs (the fastest of the profiled steps) and its % of
// the step, largest first, then the phases summed by kind (% of the step, the sum of the phases' medians):
//   profile config=S isa=avx512 B=16 T=64 C=64 L=2 H=4 F=256 V=64 step_us=8612 steps=31
//   profile S     812.3 us   9.4 %  fwd fc matmul_nt_add
//   profile_kind config=S matmul=61.2 attention=9.8 elementwise=14.1 copies=3.0 optimizer=8.0 setup_other=3.9
// With --phase-change it runs the induction_heads demo (default parameters, seed 1)
// through the worker's JSON API as the page does — slices of about 25 ms, a Result as
// JSON at most every 250 ms — and prints the core's wall time until a result first shows
// the phase change (phase_step >= 0), natively or in wasm (--sse4.1: natively at
// SSE4.1; --profile: then where the time went, by phase of icl/profile.h):
//   phase_change ms=8512 step=960 slices=341
// With --lane0 as well, the 1-layer control is offloaded (icl/demo.h's lanes) and never
// trained: the time of the model's own worker, as the page has it when a second worker
// trains the control side by side:
//   phase_change lanes=offloaded ms=5830 step=960 slices=...
// With --ceiling, per config at the best ISA the least time its step could take on this
// machine: the floating-point operations of its products divided by one core's ceiling
// for that ISA, measured (bench/peak.h) — everything else (softmax, GELU, LayerNorm,
// AdamW, memory) taken as free. bench/run train divides PyTorch's step by it: the
// largest speedup any code doing the step's arithmetic could show here.
//   ceiling config=M isa=avx2+fma gflop=5.288 peak_gflops=37.1 ms=142.68
// With --pair (an ICL_PROFILE build), per config at the best ISA the trial switch of
// icl/profile.h measured: a candidate written as `if (ICL_TRIAL) ... else ...` against
// the code beside it, step by step in one process (pair() says how; in wasm, where
// bench/run pair --wasm runs it under node, by the wall clock):
//   pair config=M isa=avx512 pairs=200 off_ms=31.20 on_ms=31.25 diff_median=+0.16% diff_iqr=-0.92%..+1.20% on_faster=96 sign_p=0.62 params_differing=0/817920
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if !defined(ICL_WASM)
#include <ctime>
#endif

#include "icl/assets.h"
#include "icl/gpt.h"
#include "icl/gpt_train.h"
#include "icl/kernels.h"
#include "icl/profile.h"
#include "icl/rng.h"
#include "icl/run_slices.h"
#include "icl/worker_api.h"
#include "peak.h"

#include <nlohmann/json.hpp>

namespace {

struct BenchConfig {
    const char* name;
    int V, T, C, L, H, B;
};
const BenchConfig kConfigs[] = {
    {"S", 64, 64, 64, 2, 4, 16},
    {"M", 64, 128, 128, 4, 4, 8},
    {"L", 96, 256, 192, 6, 6, 8},
};

double wall_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_ms() {
#if defined(ICL_WASM)
    return wall_ms();
#else
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
#endif
}

struct StepTime {
    double cpu_median_ms, wall_min_ms;
};

icl::gpt::Config config_of(const BenchConfig& bc) {
    icl::gpt::Config c;
    c.vocab = bc.V; c.context = bc.T; c.width = bc.C; c.layers = bc.L; c.heads = bc.H;
    return c;
}

// GFLOP of one step's products: per layer each linear layer's forward and its two
// backward products (input and weight gradient), and each head's six causal products
// (q kᵀ, P v; dO vᵀ, Pᵀ dO, dS k, dSᵀ q) over the T (T+1) / 2 pairs of its triangle;
// the tied LM head's three once.
double step_product_gflop(const BenchConfig& bc) {
    const icl::gpt::Config c = config_of(bc);
    const double BT = (double)bc.B * bc.T, C = c.width, F = c.ffn_width(), hs = C / c.heads;
    const double linear = 2.0 * BT * C * (3 * C + C + F + F);  // qkv, wo, fc, fc2
    const double head = 2.0 * (bc.T * (bc.T + 1.0) / 2.0) * hs;   // one causal product
    const double layer = 3.0 * linear + 6.0 * head * bc.B * c.heads;
    return (c.layers * layer + 3.0 * 2.0 * BT * C * c.vocab) * 1e-9;
}

// One config's model (seed 1), its AdamW trainer and a batch of random tokens and targets
// (seed 2): what every timed step here trains on (bench/train_torch.py draws its own
// batch of the same shape).
struct Run {
    const BenchConfig& bc;
    icl::gpt::Model model;
    std::unique_ptr<icl::gpt::Trainer> trainer;  // holds a reference to model: Run stays put
    std::vector<int> tokens, targets;

    explicit Run(const BenchConfig& b) : bc(b), model(icl::gpt::make_model(config_of(b), 1).value()) {
        icl::OptimizerConfig oc;
        oc.lr = 1e-4f;
        oc.weight_decay = 0.1f;
        trainer = std::make_unique<icl::gpt::Trainer>(icl::gpt::Trainer::make(model, oc).value());
        icl::Rng rng(2);
        tokens.resize((size_t)b.B * b.T);
        targets.resize(tokens.size());
        for (int& t : tokens) t = (int)rng.below((uint32_t)b.V);
        for (int& t : targets) t = (int)rng.below((uint32_t)b.V);
    }
    Run(const Run&) = delete;
    void step() {
        if (!trainer->step(tokens.data(), targets.data(), bc.B, bc.T).ok()) std::fprintf(stderr, "step failed\n");
    }
};

// Times `samples` steps after a warm-up; with `profile`, each step between
// profile::start() and stop(), its phases appended to *phases (one vector per step).
StepTime time_step(const BenchConfig& bc, int samples,
                   std::vector<std::vector<icl::profile::Phase>>* phases = nullptr) {
    Run run(bc);
    run.step();  // warm-up: allocations, caches
    std::vector<double> cpu, wall;
    icl::profile::take();  // drop what the warm-up charged
    for (int s = 0; s < samples; ++s) {
        const double c0 = cpu_ms(), w0 = wall_ms();
        if (phases) icl::profile::start();
        run.step();
        if (phases) {
            icl::profile::stop();
            phases->push_back(icl::profile::take());
        }
        cpu.push_back(cpu_ms() - c0);
        wall.push_back(wall_ms() - w0);
    }
    std::sort(cpu.begin(), cpu.end());
    return {cpu[cpu.size() / 2], *std::min_element(wall.begin(), wall.end())};
}

using icl_bench::median;

// The trial switch measured (icl/profile.h, ICL_TRIAL). First the bits: two models from
// one seed trained three steps each, one with the switch off and one with it on, their
// parameters compared float for float (a candidate that changes them changes what the
// lessons show). Then the time: one model trained 2 × `pairs` steps, off and on in
// turn, the order swapped every pair, each step by the process's CPU clock. A minute
// of a shared machine then slows both sides of a pair alike, which two processes run
// one after the other cannot promise (bench/run train's rounds move by ±5 % here).
// Printed: the medians of each side, the median and the middle half of the paired
// differences (on − off) / off, how many pairs `on` won, and a two-sided sign test of
// that count (sign_p: how often the same code both ways would split at least as
// unevenly; ties are left out).
void pair(const BenchConfig& bc, int pairs) {
    size_t differing = 0, params = 0;
    {
        Run off(bc), on(bc);
        for (int s = 0; s < 3; ++s) {
            icl::profile::set_trial(false);
            off.step();
            icl::profile::set_trial(true);
            on.step();
        }
        params = off.model.params.size();
        for (size_t i = 0; i < params; ++i)
            differing += std::memcmp(&off.model.params[i], &on.model.params[i], sizeof(float)) != 0;
    }
    Run run(bc);
    auto timed = [&](bool trial) {
        icl::profile::set_trial(trial);
        const double c0 = cpu_ms();
        run.step();
        return cpu_ms() - c0;
    };
    timed(false);  // warm-up, both ways
    timed(true);
    std::vector<double> off, on, diff;
    int faster = 0, slower = 0;
    for (int p = 0; p < pairs; ++p) {
        double a, b;
        if (p % 2 == 0) {
            a = timed(false);
            b = timed(true);
        } else {
            b = timed(true);
            a = timed(false);
        }
        off.push_back(a);
        on.push_back(b);
        diff.push_back(100.0 * (b - a) / a);
        faster += b < a;
        slower += b > a;
    }
    icl::profile::set_trial(false);
    // two-sided sign test: 2 P(X <= min(faster, slower)), X ~ Binomial(n, 1/2)
    const int n = faster + slower, k = std::min(faster, slower);
    double tail = 0.0;
    for (int i = 0; i <= k; ++i)
        tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
    std::sort(diff.begin(), diff.end());
    std::printf("pair config=%s isa=%s pairs=%d off_ms=%.2f on_ms=%.2f diff_median=%+.2f%% "
                "diff_iqr=%+.2f%%..%+.2f%% on_faster=%d sign_p=%.3g params_differing=%zu/%zu\n",
                bc.name, icl::isa_name(icl::current_isa()), pairs, median(off), median(on),
                diff[diff.size() / 2], diff[diff.size() / 4], diff[diff.size() * 3 / 4], faster,
                std::min(1.0, 2.0 * tail), differing, params);
    std::fflush(stdout);
}

// The kind a phase's name belongs to, for the summary line.
// A kernel's phase is "<context> [<role>] <kernel>" (icl/profile.h); the GELU's backward with fc2's
// weight gradient is mostly that product, so it counts as a matmul.
const char* kind_of(const std::string& name) {
    auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
    if (has("matmul") || has("linear_weight_grad") || has("gelu_linear_backward")) return "matmul";
    if (has("attn") || has("attention")) return "attention";
    if (has("copy")) return "copies";
    if (has("opt ") || name == "opt" || has("zero grads")) return "optimizer";
    if (has("setup") || name == "other" || name == "fwd" || name == "bwd") return "setup_other";
    return "elementwise";
}

// Per phase the fastest of the profiled steps (the wall clock is the only one cheap
// enough to read around every kernel, and on this shared machine most samples of a
// phase are stretched by other processes; the minimum is the undisturbed time). The
// step is the sum of those minima, so the % add up to 100.
void print_profile(const BenchConfig& bc, int steps) {
    std::vector<std::vector<icl::profile::Phase>> per_step;
    time_step(bc, steps, &per_step);
    const size_t n = per_step.back().size();  // phases registered by the last step
    struct Row { std::string name; double us; };
    std::vector<Row> rows;
    double step_us = 0.0;
    for (size_t i = 0; i < n; ++i) {
        std::vector<double> us;
        for (const auto& st : per_step) us.push_back(i < st.size() ? st[i].us : 0.0);
        const double m = *std::min_element(us.begin(), us.end());
        step_us += m;
        if (m > 0.0) rows.push_back({per_step.back()[i].name, m});
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.us > b.us; });
    std::printf("profile config=%s isa=%s B=%d T=%d C=%d L=%d H=%d F=%d V=%d step_us=%.0f steps=%d\n", bc.name,
                icl::isa_name(icl::current_isa()), bc.B, bc.T, bc.C, bc.L, bc.H, 4 * bc.C, bc.V, step_us, steps);
    const char* kinds[] = {"matmul", "attention", "elementwise", "copies", "optimizer", "setup_other"};
    double by_kind[6] = {};
    for (const Row& r : rows) {
        std::printf("profile %s %9.1f us %5.1f %%  %s\n", bc.name, r.us, 100.0 * r.us / step_us, r.name.c_str());
        for (int k = 0; k < 6; ++k)
            if (std::string(kinds[k]) == kind_of(r.name)) by_kind[k] += r.us;
    }
    std::printf("profile_kind config=%s", bc.name);
    for (int k = 0; k < 6; ++k) std::printf(" %s=%.1f", kinds[k], 100.0 * by_kind[k] / step_us);
    std::printf("\n");
    std::fflush(stdout);
}

// Where a whole run's time went: every phase of icl/profile.h summed over the run, as
// ms and % of the core's time, largest first ("other": outside every scope, here the
// worker API, each Result's JSON included, and the demo's own code).
void print_run_profile(double total_ms) {
    icl::profile::stop();
    std::vector<icl::profile::Phase> phases = icl::profile::take();
    std::sort(phases.begin(), phases.end(), [](const auto& a, const auto& b) { return a.us > b.us; });
    for (const auto& p : phases)
        if (p.us > 0.0)
            std::printf("phase_profile %9.1f ms %5.1f %%  %s\n", p.us / 1e3, 100.0 * p.us / 1e3 / total_ms,
                        p.name.c_str());
}

// The wall time until the induction_heads demo first reports its phase change, stepped
// as web/src/worker.js steps it (the budget aimed at 25 ms slices).
int phase_change(bool profiled, bool lane0) {
    using nlohmann::json;
    icl::set_asset_dir(ICL_BENCH_LESSONS);  // the catalogues the demo's panels are worded from
    icl::WorkerApi api;
    icl::profile::take();
    if (profiled) icl::profile::start();
    // The core's time only, as the worker's clock sees it: the page parses each slice's
    // JSON with the browser's JSON.parse, not with this process's parser, which in wasm
    // cost more than a quarter of the run when it was counted.
    double t0 = wall_ms();
    const json started = json::parse(api.start("induction_heads", "{}", "en", 1));
    double core_ms = wall_ms() - t0;
    if (!started.contains("handle")) {
        std::fprintf(stderr, "induction_heads: %s\n", started.dump().c_str());
        return 1;
    }
    const int handle = started["handle"].get<int>();
    if (lane0) {
        const json off = json::parse(api.offload(handle, 1));
        if (off.contains("error")) {
            std::fprintf(stderr, "induction_heads: %s\n", off.dump().c_str());
            return 1;
        }
    }
    icl::SliceClock clock = icl::slice_clock(1, 25.0, 250.0);  // web/src/worker.js's SLICE_MS and POST_MS
    for (int slice = 1;; ++slice) {
        const double s0 = wall_ms();
        const bool snapshot = icl::snapshot_due(clock, s0);
        const std::string text = api.step(handle, clock.budget, snapshot);
        const double ms = wall_ms() - s0;
        core_ms += ms;
        icl::slice_took(clock, ms);
        if (profiled) icl::profile::stop();
        const json result = json::parse(text);
        if (profiled) icl::profile::start();
        if (!snapshot && !result.contains("panels") && !result.contains("error")) continue;  // where the run is
        clock.posted_ms = wall_ms();
        if (!result.contains("panels")) {
            std::fprintf(stderr, "induction_heads: %s\n", result.dump().c_str());
            return 1;
        }
        for (const json& panel : result["panels"])
            if (panel.value("kind", "") == "scalars")
                for (const json& item : panel["items"])
                    if (item.value("name", "") == "phase_step" && item["value"].is_number() &&
                        item["value"].get<double>() >= 0) {
                        std::printf("phase_change%s ms=%.0f step=%.0f slices=%d isa=%s result_bytes=%zu\n",
                                    lane0 ? " lanes=offloaded" : "", core_ms,
                                    item["value"].get<double>(), slice, icl::isa_name(icl::current_isa()),
                                    text.size());
                        if (profiled) print_run_profile(core_ms);
                        return 0;
                    }
        if (result.value("done", false)) {
            std::printf("phase_change ms=-1 step=-1 slices=%d\n", slice);  // never reached
            return 0;
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> wanted;
    bool profile = false, phase = false, ceiling = false, lane0 = false, paired = false;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--phase-change")
            phase = true;
        else if (std::string(argv[i]) == "--sse4.1")
            icl::set_isa(icl::Isa::sse41);
        else if (std::string(argv[i]) == "--profile")
            profile = true;
        else if (std::string(argv[i]) == "--lane0")
            lane0 = true;
        else if (std::string(argv[i]) == "--ceiling")
            ceiling = true;
        else if (std::string(argv[i]) == "--pair")
            paired = true;
        else
            wanted.push_back(argv[i]);
    }
    for (const std::string& w : wanted)
        if (std::none_of(std::begin(kConfigs), std::end(kConfigs), [&](const BenchConfig& bc) { return w == bc.name; })) {
            std::fprintf(stderr, "icl_bench_train: no config or option '%s' (configs S M L; options --profile, "
                                 "--pair, --ceiling, --phase-change [--lane0] [--sse4.1])\n", w.c_str());
            return 2;
        }
    if (phase) return phase_change(profile && icl::profile::compiled_in(), lane0);
#if defined(ICL_WASM)
    if (wanted.empty()) wanted = {"S", "M"};
#else
    if (wanted.empty()) wanted = {"S", "M", "L"};
#endif
    if (ceiling) {
        const double peak = icl_bench::peak_gflops(icl::best_isa());
        for (const std::string& w : wanted)
            for (const BenchConfig& bc : kConfigs)
                if (w == bc.name)
                    std::printf("ceiling config=%s isa=%s gflop=%.3f peak_gflops=%.1f ms=%.2f\n", bc.name,
                                icl::isa_name(icl::best_isa()), step_product_gflop(bc), peak,
                                step_product_gflop(bc) / peak * 1e3);
        return 0;
    }
    if (paired || profile) {  // both need the ICL_PROFILE build
        if (!icl::profile::compiled_in()) {
            std::fprintf(stderr, "icl_bench_train %s: this build has neither timers nor the trial switch "
                                 "(configure with -DICL_PROFILE=ON)\n", paired ? "--pair" : "--profile");
            return 1;
        }
        for (const std::string& w : wanted)
            for (const BenchConfig& bc : kConfigs) {
                if (w != bc.name) continue;
                const bool large = bc.name[0] == 'L';
                if (paired)
                    pair(bc, large ? 40 : 200);
                else
                    print_profile(bc, large ? 9 : 31);
            }
        return 0;
    }
#if defined(ICL_WASM)
    const std::vector<icl::Isa> isas = {icl::best_isa()};
#else
    std::vector<icl::Isa> isas = {icl::best_isa()};
    if (icl::best_isa() != icl::Isa::sse41) isas.push_back(icl::Isa::sse41);
#endif
    for (const std::string& w : wanted)
        for (const BenchConfig& bc : kConfigs) {
            if (w != bc.name) continue;
            const int samples = bc.name[0] == 'L' ? 7 : 15;
            for (icl::Isa isa : isas) {
                icl::set_isa(isa);
                const StepTime t = time_step(bc, samples);
#if defined(ICL_WASM)
                std::printf("train config=%s isa=%s ms=%.3f\n", bc.name, icl::isa_name(isa), t.wall_min_ms);
#else
                std::printf("train config=%s isa=%s ms=%.3f wall_ms=%.3f\n", bc.name, icl::isa_name(isa),
                            t.cpu_median_ms, t.wall_min_ms);
#endif
                std::fflush(stdout);
            }
        }
    return 0;
}
