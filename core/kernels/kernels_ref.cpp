// Plain scalar references for every kernel in kernels.h: the simplest loops that
// compute the documented formula. The fast paths are tested against these.
#include <algorithm>
#include <cmath>

#include "icl/kernels.h"

namespace icl::ref {

// C (M,N) = A (M,K) · B (K,N)   [+= C]
void matmul_nn(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate) {
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
            C[i * N + j] = accumulate ? C[i * N + j] + s : s;
        }
}

// C (M,N) = A (M,K) · B(N,K)ᵀ   [+= C]
void matmul_nt(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate) {
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k) s += A[i * K + k] * B[j * K + k];
            C[i * N + j] = accumulate ? C[i * N + j] + s : s;
        }
}

// C (M,N) = A (M,K) · B(N,K)ᵀ + (R + bias)
void matmul_nt_add(float* C, const float* A, const float* B, const float* bias, const float* R, int M, int K,
                   int N) {
    matmul_nt(C, A, B, M, K, N, false);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float& c = C[i * N + j];
            if (R && bias) c += R[i * N + j] + bias[j];
            else if (R) c += R[i * N + j];
            else if (bias) c += bias[j];
        }
}

// C (M,N) = A(K,M)ᵀ · B (K,N)   [+= C]
void matmul_tn(float* C, const float* A, const float* B, int M, int K, int N, bool accumulate) {
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k) s += A[k * M + i] * B[k * N + j];
            C[i * N + j] = accumulate ? C[i * N + j] + s : s;
        }
}

// dW (OC,IC) (+)= dY(N,OC)ᵀ · X (N,IC); db (OC) (+)= Σ_n dY(n, :)
void linear_weight_grad(float* dW, float* db, const float* dY, const float* X, int N, int IC, int OC,
                        bool accumulate) {
    matmul_tn(dW, dY, X, OC, N, IC, accumulate);
    if (db)
        for (int o = 0; o < OC; ++o) {
            float s = 0.0f;
            for (int n = 0; n < N; ++n) s += dY[n * OC + o];
            db[o] = accumulate ? db[o] + s : s;
        }
}

// S (T,T) = A (T,K) · B(T,K)ᵀ for j <= i; A's, B's rows lda, ldb apart. Above the
// diagonal the contract leaves S unspecified: this reference writes NaN there, so a
// reader of that half shows up (NaN spreads) in every test run on the scalar set.
void matmul_nt_lower(float* S, const float* A, const float* B, int T, int K, int lda, int ldb) {
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
            float s = j <= i ? 0.0f : NAN;
            if (j <= i)
                for (int k = 0; k < K; ++k) s += A[(size_t)i * lda + k] * B[(size_t)j * ldb + k];
            S[(size_t)i * T + j] = s;
        }
}

// C (T,N) = L (T,T) · B (T,N), L read on and below the diagonal; B's, C's rows ldb, ldc apart
void matmul_nn_lower(float* C, const float* L, const float* B, int T, int N, int ldb, int ldc) {
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k <= i; ++k) s += L[(size_t)i * T + k] * B[(size_t)k * ldb + j];
            C[(size_t)i * ldc + j] = s;
        }
}

// C (T,N) = L(T,T)ᵀ · B (T,N), L read on and below the diagonal; B's, C's rows ldb, ldc apart
void matmul_tn_lower(float* C, const float* L, const float* B, int T, int N, int ldb, int ldc) {
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = i; k < T; ++k) s += L[(size_t)k * T + i] * B[(size_t)k * ldb + j];
            C[(size_t)i * ldc + j] = s;
        }
}

// P (T,T) = masked row softmax of scale * S (T,T)
void attention_softmax(float* P, const float* S, int T, float scale, AttentionMask mask) {
    for (int i = 0; i < T; ++i) {
        const float* s = S + (size_t)i * T;
        float* p = P + (size_t)i * T;
        float mx = -INFINITY;
        for (int j = 0; j <= i; ++j)
            if (mask.allows(i, j)) mx = std::fmax(mx, scale * s[j]);
        float sum = 0.0f;
        for (int j = 0; j < T; ++j) {
            p[j] = mask.allows(i, j) ? std::exp(scale * s[j] - mx) : 0.0f;
            sum += p[j];
        }
        for (int j = 0; j < T; ++j) p[j] /= sum;  // sum >= 1: the max term is exp(0)
    }
}

// d (T,T): dP in, dS = scale * P ∘ (dP − rowsum(dP ∘ P)) out; P is 0 above the diagonal
// (every mask), so dP is read on and below it only and dS is 0 above it
void attention_softmax_backward(float* d, const float* P, int T, float scale) {
    for (int i = 0; i < T; ++i) {
        float* dp = d + (size_t)i * T;
        const float* p = P + (size_t)i * T;
        float dot = 0.0f;
        for (int j = 0; j <= i; ++j) dot += dp[j] * p[j];
        for (int j = 0; j < T; ++j) dp[j] = j <= i ? scale * p[j] * (dp[j] - dot) : 0.0f;
    }
}

// ---- banded attention (one head, window w: row t keeps keys t−w < j <= t) ----------

// P (T,T) band softmax of scale q_t · k_j, 0 outside; O (T,hs) = P v; q, k, v rows ld
// apart, O's ldo apart
void banded_attention_forward(float* P, float* O, size_t ldo, const float* q, const float* k, const float* v,
                              size_t ld, int T, int hs, int w, float scale) {
    std::fill_n(P, (size_t)T * T, 0.0f);
    for (int t = 0; t < T; ++t) {
        const int lo = std::max(0, t - w + 1);
        const float* qt = q + (size_t)t * ld;
        float* p = P + (size_t)t * T;
        float mx = -INFINITY;
        for (int j = lo; j <= t; ++j) {
            const float* kj = k + (size_t)j * ld;
            float s = 0.0f;
            for (int c = 0; c < hs; ++c) s += qt[c] * kj[c];
            p[j] = scale * s;
            mx = std::max(mx, p[j]);
        }
        float sum = 0.0f;
        for (int j = lo; j <= t; ++j) sum += (p[j] = std::exp(p[j] - mx));
        const float inv = 1.0f / sum;  // sum >= 1: the max term is exp(0)
        float* o = O + (size_t)t * ldo;
        std::fill_n(o, hs, 0.0f);
        for (int j = lo; j <= t; ++j) {
            p[j] *= inv;
            const float* vj = v + (size_t)j * ld;
            for (int c = 0; c < hs; ++c) o[c] += p[j] * vj[c];
        }
    }
}

// dv_j = Σ_t P_tj dO_t, dP_tj = dO_t · v_j, dS_tj = scale P_tj (dP_tj − Σ_i P_ti dP_ti),
// dq_t = Σ_j dS_tj k_j, dk_j = Σ_t dS_tj q_t; dq, dk, dv rows ldg apart, dO's ldo, q, k,
// v's ld; dp scratch (w)
void banded_attention_backward(float* dq, float* dk, float* dv, size_t ldg, float* dp, const float* dO,
                               size_t ldo, const float* q, const float* k, const float* v, size_t ld,
                               const float* P, int T, int hs, int w, float scale) {
    for (int t = 0; t < T; ++t)
        for (int c = 0; c < hs; ++c) dq[(size_t)t * ldg + c] = dk[(size_t)t * ldg + c] = dv[(size_t)t * ldg + c] = 0.0f;
    for (int t = 0; t < T; ++t) {
        const int lo = std::max(0, t - w + 1);
        const float* p = P + (size_t)t * T;
        const float* dot = dO + (size_t)t * ldo;
        float rowsum = 0.0f;  // Σ_j P_tj dP_tj
        for (int j = lo; j <= t; ++j) {
            const float* vj = v + (size_t)j * ld;
            float* dvj = dv + (size_t)j * ldg;
            float s = 0.0f;
            for (int c = 0; c < hs; ++c) {
                s += dot[c] * vj[c];
                dvj[c] += p[j] * dot[c];
            }
            dp[j - lo] = s;
            rowsum += p[j] * s;
        }
        const float* qt = q + (size_t)t * ld;
        float* dqt = dq + (size_t)t * ldg;
        for (int j = lo; j <= t; ++j) {
            const float ds = scale * p[j] * (dp[j - lo] - rowsum);
            const float* kj = k + (size_t)j * ld;
            float* dkj = dk + (size_t)j * ldg;
            for (int c = 0; c < hs; ++c) {
                dqt[c] += ds * kj[c];
                dkj[c] += ds * qt[c];
            }
        }
    }
}

// y (N,C), mean (N), rstd (N) from x (N,C), gamma (C), beta (C)
void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, int N, int C, float eps) {
    for (int n = 0; n < N; ++n) {
        const float* xr = x + (size_t)n * C;
        float m = 0.0f;
        for (int c = 0; c < C; ++c) m += xr[c];
        m /= C;
        float var = 0.0f;
        for (int c = 0; c < C; ++c) var += (xr[c] - m) * (xr[c] - m);
        var /= C;
        const float rs = 1.0f / std::sqrt(var + eps);
        for (int c = 0; c < C; ++c) y[(size_t)n * C + c] = (xr[c] - m) * rs * gamma[c] + beta[c];
        mean[n] = m;
        rstd[n] = rs;
    }
}

// dx (N,C) +=, dgamma (C) +=, dbeta (C) += from dy (N,C), x (N,C), mean (N), rstd (N), gamma (C).
// With xhat = (x − mean) rstd and g = dy ∘ gamma:
//   dx = rstd (g − mean(g) − xhat mean(g ∘ xhat))
void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int N, int C) {
    for (int n = 0; n < N; ++n) {
        const float* dyr = dy + (size_t)n * C;
        const float* xr = x + (size_t)n * C;
        float g_mean = 0.0f, gx_mean = 0.0f;
        for (int c = 0; c < C; ++c) {
            const float xhat = (xr[c] - mean[n]) * rstd[n];
            g_mean += dyr[c] * gamma[c];
            gx_mean += dyr[c] * gamma[c] * xhat;
        }
        g_mean /= C;
        gx_mean /= C;
        for (int c = 0; c < C; ++c) {
            const float xhat = (xr[c] - mean[n]) * rstd[n];
            dbeta[c] += dyr[c];
            dgamma[c] += dyr[c] * xhat;
            dx[(size_t)n * C + c] += rstd[n] * (dyr[c] * gamma[c] - g_mean - xhat * gx_mean);
        }
    }
}

namespace {
constexpr float kGeluS = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kGeluC = 0.044715f;
}  // namespace

// y (n) = 0.5 x (1 + tanh(s (x + c x^3)))
void gelu_forward(float* y, const float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const float u = kGeluS * (x[i] + kGeluC * x[i] * x[i] * x[i]);
        y[i] = 0.5f * x[i] * (1.0f + std::tanh(u));
    }
}

// dx (n) += dy * [0.5 (1 + tanh u) + 0.5 x (1 − tanh² u) s (1 + 3c x²)]
void gelu_backward(float* dx, const float* x, const float* dy, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const float u = kGeluS * (x[i] + kGeluC * x[i] * x[i] * x[i]);
        const float t = std::tanh(u);
        const float du = kGeluS * (1.0f + 3.0f * kGeluC * x[i] * x[i]);
        dx[i] += dy[i] * (0.5f * (1.0f + t) + 0.5f * x[i] * (1.0f - t * t) * du);
    }
}

// pre (N,F) += bias; y = gelu(pre)
void bias_gelu_forward(float* y, float* pre, const float* bias, int N, int F) {
    for (int n = 0; n < N; ++n)
        for (int j = 0; j < F; ++j) pre[n * F + j] += bias[j];
    gelu_forward(y, pre, (size_t)N * F);
}

// gelu_linear_backward's first half. d (N,F): dy in, dy * gelu'(pre) out; y (N,F) =
// gelu(pre); dbias (F) += Σ_n of d
static void bias_gelu_backward(float* d, float* y, float* dbias, const float* pre, int N, int F) {
    gelu_forward(y, pre, (size_t)N * F);
    for (int n = 0; n < N; ++n)
        for (int j = 0; j < F; ++j) {
            const size_t i = (size_t)n * F + j;
            float g = 0.0f;
            gelu_backward(&g, pre + i, d + i, 1);
            d[i] = g;
            dbias[j] += g;
        }
}

// d (N,F) = d(gelu(pre)) in, d(pre) out; db1 (F) += Σ_n d(pre); y (N,F) = gelu(pre);
// dW2 (C,F) (+)= dY(N,C)ᵀ · y, db2 (C) (+)= Σ_n dY
void gelu_linear_backward(float* d, float* db1, float* dW2, float* db2, float* y, const float* pre,
                          const float* dY, int N, int F, int C, bool accumulate) {
    bias_gelu_backward(d, y, db1, pre, N, F);
    linear_weight_grad(dW2, db2, dY, y, N, F, C, accumulate);
}

// losses (N), probs (N,V) from logits (N,V), targets (N) in [0, V).
// The loss is computed as logsumexp − logit[target], which stays finite when the
// target's probability underflows.
void crossentropy_forward(float* losses, float* probs, const float* logits, const int* targets,
                          int N, int V) {
    for (int n = 0; n < N; ++n) {
        const float* l = logits + (size_t)n * V;
        float* p = probs + (size_t)n * V;
        float mx = -INFINITY;
        for (int v = 0; v < V; ++v) mx = std::fmax(mx, l[v]);
        float sum = 0.0f;
        for (int v = 0; v < V; ++v) {
            p[v] = std::exp(l[v] - mx);
            sum += p[v];
        }
        for (int v = 0; v < V; ++v) p[v] /= sum;
        losses[n] = std::log(sum) + mx - l[targets[n]];
    }
}

// dlogits (N,V) += dlosses (N) * (probs (N,V) − onehot(targets))
void crossentropy_backward(float* dlogits, const float* probs, const int* targets,
                           const float* dlosses, int N, int V) {
    for (int n = 0; n < N; ++n)
        for (int v = 0; v < V; ++v) {
            const float indicator = v == targets[n] ? 1.0f : 0.0f;
            dlogits[(size_t)n * V + v] += dlosses[n] * (probs[(size_t)n * V + v] - indicator);
        }
}

// *sum = Σ x² (n) in double
void sum_squares(double* sum, const float* x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) s += (double)x[i] * x[i];
    *sum = s;
}

// p, g, m, v (n): one AdamW step, t >= 1; g consumed (0 on return)
void adamw_update(float* p, float* g, float* m, float* v, size_t n, float lr, float beta1,
                  float beta2, float eps, float weight_decay, int t, float grad_scale) {
    const float bc1 = 1.0f - std::pow(beta1, (float)t);
    const float bc2 = 1.0f - std::pow(beta2, (float)t);
    for (size_t i = 0; i < n; ++i) {
        const float gi = grad_scale * g[i];
        g[i] = 0.0f;
        m[i] = beta1 * m[i] + (1.0f - beta1) * gi;
        v[i] = beta2 * v[i] + (1.0f - beta2) * gi * gi;
        const float mhat = m[i] / bc1;
        const float vhat = v[i] / bc2;
        p[i] -= lr * (mhat / (std::sqrt(vhat) + eps) + weight_decay * p[i]);
    }
}

// p, g, buf (n): one SGD-with-momentum step
void sgd_momentum_update(float* p, const float* g, float* buf, size_t n, float lr, float momentum,
                         float weight_decay) {
    for (size_t i = 0; i < n; ++i) {
        buf[i] = momentum * buf[i] + (g[i] + weight_decay * p[i]);
        p[i] -= lr * buf[i];
    }
}

// y (n) = elu(x) + 1
void feature_map_forward(float* y, const float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] + 1.0f : std::exp(x[i]);
}

// dx (n) += dy * (x > 0 ? 1 : exp(x))
void feature_map_backward(float* dx, const float* x, const float* dy, size_t n) {
    for (size_t i = 0; i < n; ++i) dx[i] += dy[i] * (x[i] > 0.0f ? 1.0f : std::exp(x[i]));
}

// W (rows,dk) += u ⊗ k with u = beta (v − W k) [delta] or beta v; y (rows) = W q
void fast_weight_step(float* W, float* y, const float* q, const float* k, const float* v,
                      float beta, bool delta, int rows, int dk) {
    for (int r = 0; r < rows; ++r) {
        float* w = W + (size_t)r * dk;
        float wk = 0.0f;
        if (delta)
            for (int c = 0; c < dk; ++c) wk += w[c] * k[c];
        const float u = beta * (v[r] - wk);
        float wq = 0.0f;
        for (int c = 0; c < dk; ++c) {
            w[c] += u * k[c];
            wq += w[c] * q[c];
        }
        y[r] = wq;
    }
}

}  // namespace icl::ref
