// One tiny-GPT training step (forward, backward, AdamW) timed for the configs of
// TOOLCHAIN.md: S V=64 T=64 d=64 L=2 H=4 B=16; M V=64 T=128 d=128 L=4 H=4 B=8;
// L V=96 T=256 d=192 L=6 H=6 B=8. Natively it times the best ISA and SSE4.1 (what
// wasm lowers to SIMD128); in wasm the one ISA it has. Each figure is the median
// of the samples. Output lines are parsed by bench/run:
//   train config=S isa=avx512 ms=1.23
//   icl_bench_train [S M L ...]   (default: S M L natively, S M in wasm)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "icl/gpt.h"
#include "icl/gpt_train.h"
#include "icl/kernels.h"
#include "icl/rng.h"

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

// Median milliseconds of one training step.
double time_step(const BenchConfig& bc, int samples) {
    icl::gpt::Config c;
    c.vocab = bc.V; c.context = bc.T; c.width = bc.C; c.layers = bc.L; c.heads = bc.H;
    icl::gpt::Model model = icl::gpt::make_model(c, 1).value();
    icl::OptimizerConfig oc;
    oc.lr = 1e-4f;
    oc.weight_decay = 0.1f;
    icl::gpt::Trainer trainer = icl::gpt::Trainer::make(model, oc).value();
    icl::Rng rng(2);
    std::vector<int> tokens((size_t)bc.B * bc.T), targets(tokens.size());
    for (int& t : tokens) t = (int)rng.below((uint32_t)bc.V);
    for (int& t : targets) t = (int)rng.below((uint32_t)bc.V);
    auto step = [&] {
        if (!trainer.step(tokens.data(), targets.data(), bc.B, bc.T).ok()) std::fprintf(stderr, "step failed\n");
    };
    step();  // warm-up: allocations, caches
    std::vector<double> ms;
    for (int s = 0; s < samples; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        step();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> wanted;
    for (int i = 1; i < argc; ++i) wanted.push_back(argv[i]);
#if defined(ICL_WASM)
    if (wanted.empty()) wanted = {"S", "M"};
    const std::vector<icl::Isa> isas = {icl::best_isa()};
#else
    if (wanted.empty()) wanted = {"S", "M", "L"};
    std::vector<icl::Isa> isas = {icl::best_isa()};
    if (icl::best_isa() != icl::Isa::sse41) isas.push_back(icl::Isa::sse41);
#endif
    for (const std::string& w : wanted)
        for (const BenchConfig& bc : kConfigs) {
            if (w != bc.name) continue;
            const int samples = bc.name[0] == 'L' ? 7 : 15;
            for (icl::Isa isa : isas) {
                icl::set_isa(isa);
                std::printf("train config=%s isa=%s ms=%.3f\n", bc.name, icl::isa_name(isa),
                            time_step(bc, samples));
                std::fflush(stdout);
            }
        }
    return 0;
}
