#include "icl/finetune.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "icl/checkpoint.h"
#include "icl/gpt_train.h"
#include "icl/tasks.h"

namespace icl::finetune {

Expected<Losses> finetune(gpt::Model& model, const std::vector<Example>& examples, const Options& options) {
    if (examples.empty()) return make_error("fine-tuning needs at least one example");
    const int n = (int)examples.size(), T = 3;
    if (options.steps < 0) return make_error("fine-tuning: steps = " + std::to_string(options.steps) + " is negative");
    if (options.batch < 0 || options.batch > n)
        return make_error("fine-tuning: batch = " + std::to_string(options.batch) + " is outside [0, " +
                          std::to_string(n) + "] (the number of examples; 0 = all)");
    auto trainer = gpt::Trainer::make(model, options.optimizer, options.trainable);
    if (!trainer) return trainer.error();
    // Each example is its own zero-shot prompt "BOS x →", scored on y at the arrow.
    std::vector<int> tokens, targets;
    for (const Example& e : examples) {
        const tasks::Sequence p = tasks::format_prompt({}, e.x);
        tokens.insert(tokens.end(), p.tokens.begin(), p.tokens.end());
        targets.insert(targets.end(), {-1, -1, -1});
        targets[targets.size() - T + (size_t)p.query.arrow] = e.y;
    }
    auto mean_loss = [&](float& out) -> Status {
        gpt::Activations acts;
        if (Status st = gpt::forward(model, acts, tokens.data(), targets.data(), n, T); !st) return st;
        out = acts.loss;
        return Ok{};
    };
    Losses losses;
    if (!options.losses) losses.before = losses.after = std::nanf("");
    const int B = options.batch == 0 ? n : options.batch;
    if (options.losses && (B < n || options.steps == 0))
        if (Status st = mean_loss(losses.before); !st) return st.error();
    std::vector<int> tk, tg;
    for (int s = 0; s < options.steps; ++s) {
        const int* step_tokens = tokens.data();
        const int* step_targets = targets.data();
        if (B < n) {  // examples s·B .. s·B + B − 1, wrapping around
            tk.clear();
            tg.clear();
            for (int i = 0; i < B; ++i) {
                const size_t e = (size_t)(((long long)s * B + i) % n) * T;
                tk.insert(tk.end(), tokens.begin() + (long)e, tokens.begin() + (long)e + T);
                tg.insert(tg.end(), targets.begin() + (long)e, targets.begin() + (long)e + T);
            }
            step_tokens = tk.data();
            step_targets = tg.data();
        }
        Expected<float> loss = trainer.value().step(step_tokens, step_targets, B, T);
        if (!loss) return loss.error();
        if (s == 0 && B == n && options.losses) losses.before = loss.value();  // the full batch's, before the first step
    }
    if (options.losses)
        if (Status st = mean_loss(losses.after); !st) return st.error();
    return losses;
}

double delta_norm(const float* a, const float* b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    return std::sqrt(s);
}

double delta_norm(const std::vector<float>& a, const std::vector<float>& b) {
    return delta_norm(a.data(), b.data(), std::min(a.size(), b.size()));
}

std::string weights_hash(const std::vector<float>& params) {
    const uint64_t h = checkpoint::fnv1a64(reinterpret_cast<const uint8_t*>(params.data()), params.size() * sizeof(float));
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
    return buf;
}

}  // namespace icl::finetune
