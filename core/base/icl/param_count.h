// Parameter count of a GPT-2-architecture decoder (pre-LN blocks, learned position
// embeddings, GELU MLP, final LayerNorm, LM head tied to the token embedding).
//
// Per layer: LayerNorm 1 (2d) + QKV (3d² + 3d) + attention output (d² + d)
//          + LayerNorm 2 (2d) + MLP in (r d² + r d) + MLP out (r d² + d)
//          = (4 + 2r) d² + (9 + r) d              (r = 4: 12 d² + 13 d)
// Whole model: V d (tokens) + T d (positions) + L · per-layer + 2d (final LayerNorm).
#pragma once
#include <cstdint>

namespace icl {

struct ParamCount {
    int64_t token_embedding = 0;     // V·d (also the tied LM head)
    int64_t position_embedding = 0;  // T·d
    int64_t attention = 0;           // L·(4d² + 4d)
    int64_t mlp = 0;                 // L·(2r d² + (r + 1) d)
    int64_t layernorm = 0;           // L·4d + 2d
    int64_t total() const { return token_embedding + position_embedding + attention + mlp + layernorm; }
};

inline ParamCount gpt_param_count(int64_t layers, int64_t width, int64_t vocab, int64_t context,
                                  int64_t mlp_ratio = 4) {
    const int64_t L = layers, d = width, r = mlp_ratio;
    ParamCount c;
    c.token_embedding = vocab * d;
    c.position_embedding = context * d;
    c.attention = L * (4 * d * d + 4 * d);
    c.mlp = L * (2 * r * d * d + (r + 1) * d);
    c.layernorm = L * 4 * d + 2 * d;
    return c;
}

}  // namespace icl
