#include "icl/function_vector.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "icl/gpt_probe.h"
#include "icl/metrics.h"

namespace icl {

Status last_position_probs(const gpt::Model& model, gpt::Activations& acts, const std::vector<std::vector<int>>& prompts,
                           const gpt::Hooks* hooks, std::vector<float>& out) {
    const int B = (int)prompts.size(), T = (int)prompts[0].size(), V = model.config.vocab;
    std::vector<int> tokens;
    for (const auto& p : prompts) tokens.insert(tokens.end(), p.begin(), p.end());
    if (Status s = gpt::forward(model, acts, tokens.data(), nullptr, B, T, hooks); !s) return s;
    out.assign((size_t)B * V, 0.0f);
    for (int b = 0; b < B; ++b) {
        const float* l = acts.logits_ptr() + ((size_t)b * T + T - 1) * V;
        const float mx = *std::max_element(l, l + V);
        double z = 0;
        for (int v = 0; v < V; ++v) z += std::exp((double)l[v] - mx);
        for (int v = 0; v < V; ++v) out[(size_t)b * V + v] = (float)(std::exp((double)l[v] - mx) / z);
    }
    return Ok{};
}

Expected<FunctionVector> function_vector(const gpt::Model& model, const tasks::Task& task,
                                         const FunctionVectorOptions& o, Rng& rng) {
    const int k = o.shots, n = o.prompts, top = o.top_heads;
    const int L = model.config.layers, H = model.config.heads, C = model.config.width, hs = C / H, V = model.config.vocab;
    if (top < 1 || top > L * H) return make_error("top_heads = " + std::to_string(top) + " is outside [1, " + std::to_string(L * H) + "]");
    FunctionVector fv;
    gpt::Activations acts;
    // training pairs split in two: A builds the function vector, B is held back
    std::vector<int> idx;
    for (size_t i = 0; i < task.pairs.size(); ++i)
        if (!task.pairs[i].held_out) idx.push_back((int)i);
    tasks::shuffle(idx, rng);
    std::vector<tasks::Pair>& A = fv.built_from;
    for (size_t i = 0; i < idx.size(); ++i) (i % 2 ? fv.held_back : A).push_back(task.pairs[(size_t)idx[i]]);
    if ((int)A.size() < k + 1) return make_error("task " + task.id + " has too few pairs for " + std::to_string(k) + " shots");
    enum class Prompts { clean, shuffled_labels, zero_shot };
    auto draw = [&](Prompts kind, std::vector<int>& targets) {
        std::vector<std::vector<int>> prompts;
        for (int p = 0; p < n; ++p) {
            std::vector<int> order((size_t)A.size());
            std::iota(order.begin(), order.end(), 0);
            tasks::shuffle(order, rng);
            std::vector<tasks::Pair> demos;
            for (int j = 0; j < k; ++j) demos.push_back(A[(size_t)order[(size_t)j]]);
            if (kind == Prompts::shuffled_labels) {  // Todd et al.'s corrupted prompts: the labels permuted
                std::vector<int> ys;
                for (const auto& d : demos) ys.push_back(d.y);
                tasks::shuffle(ys, rng);
                for (size_t j = 0; j < demos.size(); ++j) demos[j].y = ys[j];
            }
            const tasks::Pair& q = A[(size_t)order[(size_t)k]];
            if (kind == Prompts::zero_shot) demos.clear();  // the task is left for the model to guess
            prompts.push_back(tasks::format_prompt(demos, q.x).tokens);
            targets.push_back(q.y);
        }
        return prompts;
    };
    std::vector<int> clean_t, corrupt_t;
    const auto clean = draw(Prompts::clean, clean_t);
    const auto corrupt = draw(o.shuffled_labels ? Prompts::shuffled_labels : Prompts::zero_shot, corrupt_t);
    const int T = (int)clean[0].size(), Tc = (int)corrupt[0].size();
    // mean head outputs at the last token over the clean prompts
    std::vector<float> p;
    if (Status st = last_position_probs(model, acts, clean, nullptr, p); !st) return st.error();
    for (int b = 0; b < n; ++b) fv.p_clean += p[(size_t)b * V + clean_t[(size_t)b]] / n;
    fv.mean.assign((size_t)L * C, 0.0f);
    for (int l = 0; l < L; ++l)
        for (int b = 0; b < n; ++b) {
            const gpt::View o = gpt::heads_output(acts, l, b).value();  // (T,C)
            for (int c = 0; c < C; ++c) fv.mean[(size_t)l * C + c] += o(T - 1, c) / n;
        }
    // indirect effect of each head: its mean patched into the corrupted prompts
    std::vector<float> pc;
    if (Status st = last_position_probs(model, acts, corrupt, nullptr, pc); !st) return st.error();
    double base = 0;
    for (int b = 0; b < n; ++b) base += pc[(size_t)b * V + corrupt_t[(size_t)b]] / n;
    fv.p_corrupt = base;
    fv.cie.assign((size_t)L * H, 0.0);
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
            gpt::Hooks hooks;
            hooks.head_patches = {{l, h, Tc - 1, std::vector<float>(fv.mean.begin() + (size_t)l * C + h * hs,
                                                                   fv.mean.begin() + (size_t)l * C + (h + 1) * hs)}};
            std::vector<float> pp;
            if (Status st = last_position_probs(model, acts, corrupt, &hooks, pp); !st) return st.error();
            double patched = 0;
            for (int b = 0; b < n; ++b) patched += pp[(size_t)b * V + corrupt_t[(size_t)b]] / n;
            fv.cie[(size_t)l * H + h] = metrics::indirect_effect(patched, base);
        }
    // the function vector: Σ over the top heads of W_O[:, head] · mean
    std::vector<int> order((size_t)L * H);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return fv.cie[(size_t)a] > fv.cie[(size_t)b]; });
    fv.vector.assign((size_t)C, 0.0f);
    for (int i = 0; i < top; ++i) {
        const int l = order[(size_t)i] / H, h = order[(size_t)i] % H;
        fv.top.push_back(gpt::head_name(l, h));
        const float* wo = model.at(model.layout.blocks[(size_t)l].wo);  // (C,C) out × in
        for (int r = 0; r < C; ++r)
            for (int e = 0; e < hs; ++e) fv.vector[(size_t)r] += wo[(size_t)r * C + h * hs + e] * fv.mean[(size_t)l * C + h * hs + e];
    }
    return fv;
}

}  // namespace icl
