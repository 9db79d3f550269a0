#include "icl/finetune.h"

#include <cmath>
#include <cstdio>

#include "icl/checkpoint.h"
#include "icl/gpt_train.h"
#include "icl/tasks.h"

namespace icl::finetune {

Expected<Losses> finetune(gpt::Model& model, const std::vector<Example>& examples, const Options& options) {
    if (examples.empty()) return make_error("fine-tuning needs at least one example");
    auto trainer = gpt::Trainer::make(model, options.optimizer, options.trainable);
    if (!trainer) return trainer.error();
    const int B = (int)examples.size(), T = 3;
    std::vector<int> tokens, targets;
    for (const Example& e : examples) {
        const std::vector<int> p = tasks::format_prompt({}, e.x).tokens;  // BOS x →
        tokens.insert(tokens.end(), p.begin(), p.end());
        targets.insert(targets.end(), {-1, -1, e.y});
    }
    Losses losses;
    for (int s = 0; s < options.steps; ++s) {
        Expected<float> loss = trainer.value().step(tokens.data(), targets.data(), B, T);
        if (!loss) return loss.error();
        if (s == 0) losses.before = loss.value();
    }
    gpt::Activations acts;
    if (Status st = gpt::forward(model, acts, tokens.data(), targets.data(), B, T); !st) return st.error();
    losses.after = acts.loss;
    return losses;
}

double delta_norm(const std::vector<float>& a, const std::vector<float>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    return std::sqrt(s);
}

std::string weights_hash(const std::vector<float>& params) {
    const uint64_t h = checkpoint::fnv1a64(reinterpret_cast<const uint8_t*>(params.data()), params.size() * sizeof(float));
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
    return buf;
}

}  // namespace icl::finetune
