#include "icl/generate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace icl::gpt {

KvCache make_cache(const Config& c) {
    KvCache cache;
    const int hs = c.width / c.heads;
    size_t kv = 0, fw = 0;
    for (int l = 0; l < c.layers; ++l) {
        if (c.kind(l) == AttentionKind::softmax) {
            cache.slot.push_back(kv);
            kv += (size_t)c.context * c.width;  // H*T*hs
        } else {
            cache.slot.push_back(fw);
            fw += (size_t)c.heads * fast_weight_rows(c.kind(l), hs) * hs;
        }
    }
    cache.k.assign(kv, 0.0f);
    cache.v.assign(kv, 0.0f);
    cache.fw.assign(fw, 0.0f);
    const size_t F = (size_t)c.mlp_ratio * c.width;
    // x, h, qkv (3C), atty, F, F, scores (T), fast-weight scratch (4 hs + 2), β (H)
    cache.work.assign(6 * (size_t)c.width + 2 * F + (size_t)c.context + 4 * (size_t)hs + 2 +
                          (size_t)c.heads, 0.0f);
    return cache;
}

Status step(const Model& model, KvCache& cache, int token, float* logits, const Hooks* hooks) {
    const Config& c = model.config;
    const int C = c.width, H = c.heads, hs = C / H, F = c.mlp_ratio * C, Tm = c.context;
    const int t = cache.length;
    if (!c.is_token_lm())
        return make_error("gpt step: generation needs a transformer with a token input and the softmax head "
                          "(this model is a " + std::string(arch_name(c.arch)) + ", token_input " +
                          std::to_string((int)c.token_input) + ", token_output " + std::to_string((int)c.token_output) + ")");
    if (token < 0 || token >= c.vocab)
        return make_error("gpt step: token id " + std::to_string(token) + " at position " +
                          std::to_string(t) + " is outside [0, " + std::to_string(c.vocab - 1) + "]");
    if (t >= Tm)
        return make_error("gpt step: the sequence would be longer than the context of " +
                          std::to_string(Tm) + " positions");
    if (hooks)
        if (Status s = validate(*hooks, c); !s) return s;
    if (c.momentum != 0.0f)
        return make_error("gpt step: momentum attention is not implemented in the KV-cache step; use forward");
    if (hooks && !hooks->head_patches.empty())
        return make_error("gpt step: head patches are not implemented in the KV-cache step; use forward");
    const Layout& lay = model.layout;
    float* x = cache.work.data();
    float* h = x + C;
    float* qkv = h + C;
    float* atty = qkv + 3 * C;
    float* fc = atty + C;
    float* fc_gelu = fc + F;
    float* scores = fc_gelu + F;
    float* fw_scratch = scores + Tm;
    float* beta = fw_scratch + 4 * hs + 2;
    float mean, rstd;
    auto add_residual = [&](int layer) {
        if (!hooks) return;
        for (const ResidualAdd& a : hooks->residual_adds)
            if (a.layer == layer && a.position == t)
                for (int i = 0; i < C; ++i) x[i] += a.vector[(size_t)i];
    };

    const float* te = model.at(lay.wte) + (size_t)token * C;
    const float* pe = model.at(lay.wpe) + (size_t)t * C;
    for (int i = 0; i < C; ++i) x[i] = te[i] + pe[i];
    add_residual(0);
    const float scale = 1.0f / std::sqrt((float)hs);
    for (int l = 0; l < c.layers; ++l) {
        const BlockSlots& p = lay.blocks[(size_t)l];
        const AttentionMask mask = c.mask(l);
        layernorm_forward(h, &mean, &rstd, x, model.at(p.ln1_w), model.at(p.ln1_b), 1, C, kLayerNormEps);
        linear_forward("qkv", qkv, h, model.at(p.wq), model.at(p.bq), 1, C, 3 * C);
        const AttentionKind kind = c.kind(l);
        if (kind == AttentionKind::delta) {
            linear_forward("beta", beta, h, model.at(p.wb), model.at(p.bb), 1, C, H);
            for (int hd = 0; hd < H; ++hd) beta[hd] = 1.0f / (1.0f + std::exp(-beta[hd]));
        }
        for (int hd = 0; hd < H; ++hd) {
            float* o = atty + hd * hs;
            bool ablate = false;
            if (hooks)
                for (const HeadAblation& a : hooks->ablations) ablate = ablate || (a.layer == l && a.head == hd);
            if (kind != AttentionKind::softmax) {  // the fast-weight form: one state per head
                const int rows = fast_weight_rows(kind, hs);
                float* W = cache.fw.data() + cache.slot[(size_t)l] + (size_t)hd * rows * hs;
                fast_weight_token(kind, W, o, qkv + hd * hs, qkv + C + hd * hs, qkv + 2 * C + hd * hs,
                                  kind == AttentionKind::delta ? beta[hd] : 1.0f, fw_scratch, hs);
                if (ablate) std::fill_n(o, hs, 0.0f);
                continue;
            }
            float* K = cache.k.data() + cache.slot[(size_t)l] + ((size_t)hd * Tm) * hs;  // (T,hs)
            float* V = cache.v.data() + cache.slot[(size_t)l] + ((size_t)hd * Tm) * hs;
            std::memcpy(K + (size_t)t * hs, qkv + C + hd * hs, sizeof(float) * hs);
            std::memcpy(V + (size_t)t * hs, qkv + 2 * C + hd * hs, sizeof(float) * hs);
            if (ablate) {
                std::fill_n(o, hs, 0.0f);
                continue;
            }
            // scores (t+1) = q · Kᵀ, masked softmax as attention_softmax does for row t
            matmul_nt(scores, qkv + hd * hs, K, 1, hs, t + 1, false);
            float mx = -INFINITY;
            for (int j = 0; j <= t; ++j)
                if (mask.allows(t, j)) mx = std::fmax(mx, scale * scores[j]);
            float sum = 0.0f;
            for (int j = 0; j <= t; ++j) {
                scores[j] = mask.allows(t, j) ? std::exp(scale * scores[j] - mx) : 0.0f;
                sum += scores[j];
            }
            for (int j = 0; j <= t; ++j) scores[j] /= sum;
            matmul_nn(o, scores, V, 1, t + 1, hs, false);  // o (hs) = p · V
        }
        linear_forward("proj", h, atty, model.at(p.wo), model.at(p.bo), 1, C, C);
        for (int i = 0; i < C; ++i) x[i] += h[i];
        if (!c.attention_only) {
            layernorm_forward(h, &mean, &rstd, x, model.at(p.ln2_w), model.at(p.ln2_b), 1, C, kLayerNormEps);
            linear_forward("fc", fc, h, model.at(p.w1), model.at(p.b1), 1, C, F);
            gelu_forward(fc_gelu, fc, (size_t)F);
            linear_forward("fc2", h, fc_gelu, model.at(p.w2), model.at(p.b2), 1, F, C);
            for (int i = 0; i < C; ++i) x[i] += h[i];
        }
        add_residual(l + 1);
    }
    layernorm_forward(h, &mean, &rstd, x, model.at(lay.lnf_w), model.at(lay.lnf_b), 1, C, kLayerNormEps);
    matmul_nt(logits, h, model.at(lay.wte), 1, C, c.vocab, false);
    cache.length = t + 1;
    return Ok{};
}

Status validate(const Sampling& s, const Config& c) {
    if (!(s.temperature >= 0.0f) || !std::isfinite(s.temperature))
        return make_error("sampling: temperature " + std::to_string(s.temperature) +
                          " must be a finite number >= 0 (0 = greedy)");
    if (s.top_k < 0 || s.top_k > c.vocab)
        return make_error("sampling: top_k " + std::to_string(s.top_k) + " is outside [0, " +
                          std::to_string(c.vocab) + "] (0 = no limit)");
    return Ok{};
}

int sample(const float* logits, int V, const Sampling& s, Rng& rng) {
    if (s.temperature == 0.0f) return (int)(std::max_element(logits, logits + V) - logits);
    std::vector<int> order((size_t)V);
    std::iota(order.begin(), order.end(), 0);
    // largest first; ties by lower id, so the choice is deterministic
    std::stable_sort(order.begin(), order.end(), [logits](int a, int b) { return logits[a] > logits[b]; });
    const int k = s.top_k > 0 ? std::min(s.top_k, V) : V;
    std::vector<double> w((size_t)k);
    double sum = 0.0;
    for (int i = 0; i < k; ++i) {
        w[(size_t)i] = std::exp(((double)logits[order[(size_t)i]] - logits[order[0]]) / s.temperature);
        sum += w[(size_t)i];
    }
    double u = rng.uniform() * sum;
    for (int i = 0; i < k; ++i) {
        u -= w[(size_t)i];
        if (u < 0.0) return order[(size_t)i];
    }
    return order[(size_t)k - 1];
}

Expected<std::vector<int>> generate(const Model& model, const std::vector<int>& prompt, int n_new,
                                    const Sampling& sampling, Rng& rng, const Hooks* hooks) {
    const Config& c = model.config;
    if (prompt.empty()) return make_error("generate: the prompt is empty");
    if (n_new < 0) return make_error("generate: n_new " + std::to_string(n_new) + " must be >= 0");
    if (prompt.size() + (size_t)n_new > (size_t)c.context)
        return make_error("generate: prompt (" + std::to_string(prompt.size()) + ") + new tokens (" +
                          std::to_string(n_new) + ") is longer than the context of " +
                          std::to_string(c.context));
    if (Status s = validate(sampling, c); !s) return s.error();
    KvCache cache = make_cache(c);
    std::vector<float> logits((size_t)c.vocab);
    std::vector<int> out = prompt;
    for (int tok : prompt)
        if (Status s = step(model, cache, tok, logits.data(), hooks); !s) return s.error();
    for (int i = 0; i < n_new; ++i) {
        const int next = sample(logits.data(), c.vocab, sampling, rng);
        out.push_back(next);
        if (i + 1 < n_new)
            if (Status s = step(model, cache, next, logits.data(), hooks); !s) return s.error();
    }
    return out;
}

}  // namespace icl::gpt
