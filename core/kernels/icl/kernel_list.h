// The kernel list, written once. Each entry is
//     ICL_KERNEL(name, (parameters), (arguments))
// with a shape comment above it; every place that needs the list defines ICL_KERNEL
// and includes this file:
//   kernels.h        declares each kernel twice: icl::name (the dispatcher) and
//                    icl::ref::name (the scalar reference, kernels_ref.cpp);
//   kernels_table.h  makes KernelTable, one function pointer per kernel;
//   kernels.cpp      fills the scalar table with icl::ref and defines each dispatcher
//                    as a call through the current instruction set's table;
//   kernels_simd.h   fills each instruction set's table with Kernels<Arch>::name.
// Adding a kernel: a line here, its reference in kernels_ref.cpp, its fast version in
// the kernels_simd_*.h of its concept and a test against the reference in the
// tests/unit/test_kernels*.cpp of its concept.
// No include guard: included once per expansion.

// ---- matmul --------------------------------------------------------------------
// C (M,N) = A (M,K) · B (K,N)            [+= C if accumulate]
ICL_KERNEL(matmul_nn, (float* C, const float* A, const float* B, int M, int K, int N, bool accumulate),
           (C, A, B, M, K, N, accumulate))
// C (M,N) = A (M,K) · B(N,K)ᵀ            [+= C if accumulate]
ICL_KERNEL(matmul_nt, (float* C, const float* A, const float* B, int M, int K, int N, bool accumulate),
           (C, A, B, M, K, N, accumulate))
// A linear layer's forward: C (M,N) = A (M,K) · B(N,K)ᵀ + (R (M,N) + bias (N)), the sum
// added in the product's own pass over C (each tile as it leaves the registers) instead
// of a pass of its own; R (the residual the layer adds to, rows N floats apart) and bias
// may each be null. C is written as the separate passes would write it, bit for bit.
ICL_KERNEL(matmul_nt_add, (float* C, const float* A, const float* B, const float* bias, const float* R, int M, int K, int N),
           (C, A, B, bias, R, M, K, N))
// C (M,N) = A(K,M)ᵀ · B (K,N)            [+= C if accumulate]
ICL_KERNEL(matmul_tn, (float* C, const float* A, const float* B, int M, int K, int N, bool accumulate),
           (C, A, B, M, K, N, accumulate))
// A linear layer's weight and bias gradients in one pass over dY:
// dW (OC,IC) (+)= dY(N,OC)ᵀ · X (N,IC);  db (OC) (+)= Σ_n dY(n, :)   (db may be null)
// [+= if accumulate; otherwise both are written, their old contents never read]
ICL_KERNEL(linear_weight_grad,
           (float* dW, float* db, const float* dY, const float* X, int N, int IC, int OC, bool accumulate),
           (dW, db, dY, X, N, IC, OC, accumulate))

// ---- causal matmuls: one attention head's (T,T) products, on and below the diagonal ----
// (every attention mask allows only j <= i, so the other half is never needed)
// The (T,K) / (T,N) operands are a head's slice of wider rows (its q, k, v inside the
// model's (B,T,3C) qkv rows, its output inside (B,T,C)): lda, ldb, ldc are their row
// strides in floats (K or N when contiguous). The (T,T) ones are contiguous.
// S (T,T) = A (T,K) · B(T,K)ᵀ for j <= i                                 (q kᵀ, dO vᵀ)
// Above the diagonal S is unspecified (not even finite): its readers, the softmax and its
// backward, use only j <= i.
ICL_KERNEL(matmul_nt_lower, (float* S, const float* A, const float* B, int T, int K, int lda, int ldb),
           (S, A, B, T, K, lda, ldb))
// C (T,N) = L (T,T) · B (T,N) for L lower-triangular (0 above the diagonal, as a
// softmax's P and its dS are): the work skips the zero half       (P v, dS k)
ICL_KERNEL(matmul_nn_lower, (float* C, const float* L, const float* B, int T, int N, int ldb, int ldc),
           (C, L, B, T, N, ldb, ldc))
// C (T,N) = L(T,T)ᵀ · B (T,N), L lower-triangular as above          (Pᵀ dO, dSᵀ q)
ICL_KERNEL(matmul_tn_lower, (float* C, const float* L, const float* B, int T, int N, int ldb, int ldc),
           (C, L, B, T, N, ldb, ldc))

// ---- softmax over attention scores ----------------------------------------------
// P (T,T) = softmax_row(scale * S (T,T)) over the positions `mask` allows; entries
// it forbids are exactly 0. Row i is query position i. S is read on and below the
// diagonal only (matmul_nt_lower leaves the rest unspecified).
ICL_KERNEL(attention_softmax, (float* P, const float* S, int T, float scale, AttentionMask mask),
           (P, S, T, scale, mask))
// In place: d (T,T) holds dP on entry and dS = scale * P ∘ (dP − rowsum(dP ∘ P)) on
// return (the one buffer serves both, so the step zeroes no (T,T) dS per head). P is a
// masked softmax, 0 above the diagonal (j > i): dP is read on and below it only (as
// matmul_nt_lower leaves it), and dS is 0 above it, every entry.
ICL_KERNEL(attention_softmax_backward, (float* d, const float* P, int T, float scale), (d, P, T, scale))

// ---- banded attention: one head whose mask keeps the last w keys ----------------
// A banded layer with window w < T scores only the pairs t−w < j <= t: O(T·w·hs) work
// instead of the dense path's O(T²·hs) matmuls over a (T,T) matrix that is then
// masked. P is still written whole, zeros outside the band: every reader of att
// indexes it as (T,T), and zeroing T² floats costs hs times less than the score
// matmul the band skips.
// P (T,T) = softmax over row t's band j in [max(0, t−w+1), t] of scale · q_t · k_j,
// 0 outside it; O (T,hs) = P v; q, k, v (T,hs) read in place, rows ld apart (a head's
// slice of the (B,T,3C) qkv rows), O's rows ldo apart; w >= 1
ICL_KERNEL(banded_attention_forward,
           (float* P, float* O, size_t ldo, const float* q, const float* k, const float* v, size_t ld,
            int T, int hs, int w, float scale),
           (P, O, ldo, q, k, v, ld, T, hs, w, scale))
// Over the band (pairs outside it have P = 0 and pass nothing), with dO (T,hs) (rows ldo
// apart), q, k, v (T,hs) (rows ld apart), P (T,T) from the forward, dp scratch (w):
//   dv_j = Σ_t P_tj dO_t,   dP_tj = dO_t · v_j,   dS_tj = scale P_tj (dP_tj − Σ_i P_ti dP_ti),
//   dq_t = Σ_j dS_tj k_j,   dk_j = Σ_t dS_tj q_t          (dq, dk, dv (T,hs), rows ldg apart,
// written: what they held before is not read)
ICL_KERNEL(banded_attention_backward,
           (float* dq, float* dk, float* dv, size_t ldg, float* dp, const float* dO, size_t ldo,
            const float* q, const float* k, const float* v, size_t ld, const float* P, int T, int hs,
            int w, float scale),
           (dq, dk, dv, ldg, dp, dO, ldo, q, k, v, ld, P, T, hs, w, scale))

// ---- layernorm ------------------------------------------------------------------
// y (N,C) = (x − mean) * rstd * gamma (C) + beta (C); writes mean (N), rstd (N)
// (GPT-2 and PyTorch use eps = 1e-5)
ICL_KERNEL(layernorm_forward,
           (float* y, float* mean, float* rstd, const float* x, const float* gamma,
            const float* beta, int N, int C, float eps),
           (y, mean, rstd, x, gamma, beta, N, C, eps))
// dx (N,C) +=, dgamma (C) +=, dbeta (C) +=
ICL_KERNEL(layernorm_backward,
           (float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
            const float* mean, const float* rstd, const float* gamma, int N, int C),
           (dx, dgamma, dbeta, dy, x, mean, rstd, gamma, N, C))

// ---- GELU (tanh approximation, as GPT-2) -----------------------------------------
// y (n) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
ICL_KERNEL(gelu_forward, (float* y, const float* x, size_t n), (y, x, n))
// dx (n) += dy * gelu'(x)
ICL_KERNEL(gelu_backward, (float* dx, const float* x, const float* dy, size_t n), (dx, x, dy, n))
// The MLP's bias and GELU in one pass (the matmul before it leaves the bias out):
// pre (N,F) += bias (F) in every row (pre is kept: the backward reads it); y (N,F) = gelu(pre)
ICL_KERNEL(bias_gelu_forward, (float* y, float* pre, const float* bias, int N, int F),
           (y, pre, bias, N, F))
// Its backward with the weight gradient of the product after it (fc2: out (N,C) =
// gelu(pre) · W2ᵀ + b2), reading pre once. In place (the one exception to += above, so
// the caller needs no zeroed buffer): d (N,F) holds d(gelu(pre)) on entry and d(pre) =
// d(gelu(pre)) * gelu'(pre) on return; db1 (F) += Σ_n d(pre)(n, :); dW2 and db2 as
// linear_weight_grad(dW2, db2, dY, gelu(pre), N, F, C, accumulate) with gelu(pre) bit for
// bit what bias_gelu_forward wrote (the training step keeps pre, not gelu(pre)). y (N,F)
// is scratch, unspecified on return: the reference writes gelu(pre) there; the fast
// versions compute it straight into the product's packed panels instead
ICL_KERNEL(gelu_linear_backward,
           (float* d, float* db1, float* dW2, float* db2, float* y, const float* pre, const float* dY,
            int N, int F, int C, bool accumulate),
           (d, db1, dW2, db2, y, pre, dY, N, F, C, accumulate))

// ---- cross-entropy --------------------------------------------------------------
// probs (N,V) = softmax(logits (N,V)); losses (N) = −log probs[n, targets[n]]
ICL_KERNEL(crossentropy_forward,
           (float* losses, float* probs, const float* logits, const int* targets, int N, int V),
           (losses, probs, logits, targets, N, V))
// dlogits (N,V) += dlosses[n] * (probs − onehot(targets[n]))
ICL_KERNEL(crossentropy_backward,
           (float* dlogits, const float* probs, const int* targets, const float* dlosses, int N, int V),
           (dlogits, probs, targets, dlosses, N, V))

// ---- optimizer updates (elementwise over n parameters) ---------------------------
// AdamW (Loshchilov & Hutter): decoupled decay  p -= lr * (m̂ / (sqrt(v̂) + eps) + wd * p);
// t is the 1-based step count used for bias correction. The gradient used is
// grad_scale · g (gradient clipping's coefficient, applied as g is read: no pass of its own).
// g is consumed: 0 on return, ready for the next backward to accumulate into (the step
// zeroes no gradient buffer of its own).
ICL_KERNEL(adamw_update,
           (float* p, float* g, float* m, float* v, size_t n, float lr, float beta1,
            float beta2, float eps, float weight_decay, int t, float grad_scale),
           (p, g, m, v, n, lr, beta1, beta2, eps, weight_decay, t, grad_scale))
// SGD with momentum (PyTorch's form): buf = momentum * buf + (g + wd * p); p -= lr * buf
ICL_KERNEL(sgd_momentum_update,
           (float* p, const float* g, float* buf, size_t n, float lr, float momentum,
            float weight_decay),
           (p, g, buf, n, lr, momentum, weight_decay))
// *sum = Σ x² over x (n), summed in double (the gradient norm that clipping reads)
ICL_KERNEL(sum_squares, (double* sum, const float* x, size_t n), (sum, x, n))

// ---- linear attention and fast weights (Katharopoulos et al. 2020; Schlag et al. 2021) ----
// y (n) = φ(x) = elu(x) + 1 = x + 1 for x > 0, exp(x) otherwise: a positive feature map
ICL_KERNEL(feature_map_forward, (float* y, const float* x, size_t n), (y, x, n))
// dx (n) += dy * φ'(x), φ'(x) = 1 for x > 0, exp(x) otherwise
ICL_KERNEL(feature_map_backward, (float* dx, const float* x, const float* dy, size_t n),
           (dx, x, dy, n))
// One step of a fast-weight memory W (rows, dk), row-major, k and q (dk), v (rows):
//   u = beta (v − W k) if delta (the delta rule: one gradient step of size beta on
//       ½‖W k − v‖²), u = beta v otherwise (the sum rule of linear attention);
//   W += u ⊗ k;  y (rows) = W q   (read after the write).
ICL_KERNEL(fast_weight_step,
           (float* W, float* y, const float* q, const float* k, const float* v, float beta,
            bool delta, int rows, int dk),
           (W, y, q, k, v, beta, delta, rows, dk))
