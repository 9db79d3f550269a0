// attention: time per training step (forward, backward, AdamW) of an all-dense tiny GPT
// against the same model with alternating dense / locally banded layers (GPT-3's
// pattern), as the context T grows. Banded layers compute only their band, so the
// gap should widen with T; dense is the anchor. One process, the two models' steps
// interleaved, process-CPU-time medians. The model is attention_patterns' (width 32,
// 2 heads, 2 layers, batch 16, window 8) on random tokens.
// Prints: T=<T> window=<w> dense_ms=<x> alternating_ms=<y> ratio=<y/x>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#include "icl/gpt.h"
#include "icl/gpt_train.h"
#include "icl/rng.h"

namespace {

double cpu_ms() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main() {
    const int B = 16, V = 64, window = 8, rounds = 15;
    for (int T : {65, 256, 512}) {
        icl::gpt::Model models[2];  // the trainers point at these
        std::vector<icl::gpt::Trainer> trainers;
        for (int alternating = 0; alternating < 2; ++alternating) {
            icl::gpt::Config c;
            c.vocab = V;
            c.context = T;
            c.width = 32;
            c.heads = 2;
            c.layers = 2;
            if (alternating) c.attention = icl::gpt::alternating_dense_banded(c.layers, window);
            auto model = icl::gpt::make_model(c, 1);
            if (!model) {
                std::fprintf(stderr, "attention bench: %s\n", model.error().message.c_str());
                return 1;
            }
            models[alternating] = std::move(model.value());
            icl::OptimizerConfig oc;
            oc.lr = 3e-3f;
            oc.clip_norm = 1.0f;
            auto trainer = icl::gpt::Trainer::make(models[alternating], oc);
            if (!trainer) {
                std::fprintf(stderr, "attention bench: %s\n", trainer.error().message.c_str());
                return 1;
            }
            trainers.push_back(std::move(trainer.value()));
        }
        icl::Rng rng(2);
        std::vector<int> tokens((size_t)B * T), targets(tokens.size());
        for (int& t : tokens) t = (int)rng.below(V);
        for (int& t : targets) t = (int)rng.below(V);
        std::vector<double> ms[2];
        for (int r = 0; r <= rounds; ++r)
            for (int i = 0; i < 2; ++i) {
                const double t0 = cpu_ms();
                trainers[(size_t)i].step(tokens.data(), targets.data(), B, T);
                if (r > 0) ms[i].push_back(cpu_ms() - t0);  // round 0 warms up
            }
        const double dense = median(ms[0]), alternating = median(ms[1]);
        std::printf("T=%d window=%d dense_ms=%.2f alternating_ms=%.2f ratio=%.2f\n", T, window, dense, alternating,
                    alternating / dense);
    }
    return 0;
}
