// Generation with a KV cache: each new token runs one position through the model,
// attending to the keys and values cached for the earlier ones. The logits equal
// the full forward's at the same position (to float rounding; tested).
#pragma once
#include <vector>

#include "icl/expected.h"
#include "icl/gpt.h"
#include "icl/rng.h"

namespace icl::gpt {

// Softmax layers cache every position's keys and values; linear and delta layers keep
// one fast-weight state per head instead (gpt.h AttentionKind), whose size does not
// grow with the sequence.
struct KvCache {
    int length = 0;            // positions cached so far
    std::vector<float> k, v;   // (Ls,H,T,hs) each for the Ls softmax layers, T = the context
    std::vector<float> fw;     // (H, rows, hs) per linear or delta layer, rows = fast_weight_rows
    std::vector<size_t> slot;  // per layer: its offset into k and v, or into fw
    std::vector<float> work;   // one position's activations
    size_t state_bytes() const { return sizeof(float) * (k.size() + v.size() + fw.size()); }
};
KvCache make_cache(const Config& config);

// Runs `token` at position cache.length and writes logits (V). Errors: a token id
// outside [0, V), the cache full (the sequence would be longer than the context),
// hooks out of range. On error the cache is unchanged.
Status step(const Model& model, KvCache& cache, int token, float* logits, const Hooks* hooks = nullptr);

// temperature 0: greedy (argmax). Otherwise sample from softmax(logits / temperature),
// restricted to the top_k largest logits when top_k > 0.
struct Sampling {
    float temperature = 0.0f;
    int top_k = 0;
};
Status validate(const Sampling& sampling, const Config& config);

// Picks a token from logits (V) as `sampling` says; rng is drawn only when sampling.
int sample(const float* logits, int V, const Sampling& sampling, Rng& rng);

// The prompt followed by n_new generated tokens. Errors: an empty prompt, a token
// outside [0, V), prompt + n_new longer than the context, a bad Sampling.
Expected<std::vector<int>> generate(const Model& model, const std::vector<int>& prompt, int n_new,
                                    const Sampling& sampling, Rng& rng, const Hooks* hooks = nullptr);

}  // namespace icl::gpt
