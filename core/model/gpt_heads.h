// Internal to the transformer's passes (gpt.cpp, gpt_attention.cpp): one head's slice of
// a row copied, and all heads of a linear or delta layer in their parallel form.
#pragma once
#include <cstring>

#include "icl/gpt.h"

namespace icl::gpt::detail {

// dst (hs) = src (hs), one head's slice of a row. A memcpy of a constant size compiles
// to a few vector moves; a call with a run-time size costs more than these copies.
inline void copy_head(float* dst, const float* src, int hs) {
    switch (hs) {
        case 8: std::memcpy(dst, src, 8 * sizeof(float)); return;
        case 16: std::memcpy(dst, src, 16 * sizeof(float)); return;
        case 32: std::memcpy(dst, src, 32 * sizeof(float)); return;
        case 64: std::memcpy(dst, src, 64 * sizeof(float)); return;
        default: std::memcpy(dst, src, sizeof(float) * hs);
    }
}

// All heads of a linear or delta layer (parallel form): att (B,H,T,T), atty (B,T,C),
// u (B,H,T,hs) and beta (B,H,T) for delta; q, k, v (B,H,T,hs); scratch: T*T + 3*T*hs.
void fast_attention_forward(AttentionKind kind, float* att, float* atty, float* u, const float* q,
                            const float* k, const float* v, const float* beta, float* scratch, int B,
                            int T, int C, int H);
// dq, dk, dv (B,H,T,hs) and dbeta (B,H,T, delta only) WRITTEN; scratch as delta_head_backward.
void fast_attention_backward(AttentionKind kind, float* dq, float* dk, float* dv, float* dbeta,
                             const float* dO, const float* q, const float* k, const float* v,
                             const float* beta, const float* att, const float* u, float* scratch,
                             int B, int T, int C, int H);

}  // namespace icl::gpt::detail
