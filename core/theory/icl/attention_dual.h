// Causal linear attention and its fast-weight (dual) form (Irie et al. 2022; Dai et al.
// 2023). Without softmax and scaling, attention at position t is
//     y_t = Σ_{i≤t} v_i (k_i · q_t)                      (attention form)
// and the same numbers come from a weight matrix written one token at a time:
//     W_t = W_{t−1} + v_t ⊗ k_t,   y_t = W_t q_t          (fast-weight form).
// Split at a query, W = W_ZSL + ΔW_ICL: the query's own tokens give W_ZSL, the
// demonstrations before them give ΔW_ICL = Σ_i v_i ⊗ k_i — Dai et al.'s "implicit
// fine-tuning" update. Rows of q, k, v are positions.
#pragma once
#include <vector>

#include "icl/linalg.h"

namespace icl {

// q, k: T × d_k, v: T × d_v -> T × d_v
Matrix linear_attention_causal(const Matrix& q, const Matrix& k, const Matrix& v);
// Same shapes. If history is given it receives W_t (d_v × d_k) after each position t.
Matrix fast_weight_causal(const Matrix& q, const Matrix& k, const Matrix& v, std::vector<Matrix>* history = nullptr);
// Softmax attention with scores (k_i · q_t)/√d_k over i ≤ t. Same shapes.
Matrix softmax_attention_causal(const Matrix& q, const Matrix& k, const Matrix& v);
// Σ_{begin ≤ i < end} v_i ⊗ k_i. k: T × d_k, v: T × d_v -> d_v × d_k
Matrix outer_product_sum(const Matrix& v, const Matrix& k, int begin, int end);

}  // namespace icl
