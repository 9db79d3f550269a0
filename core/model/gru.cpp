// The recurrent control (Arch::gru, see gpt.h): PyTorch's nn.GRU stacked L deep over the
// same input embedding and readouts as the transformer, forward and hand-written backward.
// Every product goes through the matmul kernels: the input projections of all positions at
// once, the recurrent one per step over the batch, and the weight gradients of all
// positions and steps at once after the backward's sweep.
#include <algorithm>
#include <cmath>

#include "icl/gpt.h"
#include "icl/gpt_io.h"
#include "icl/profile.h"

namespace icl::gpt {

namespace {
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
}  // namespace

// Per step t (time-major rows (t, b)):
//   gh (B,3C) = h_{t} · w_hhᵀ + b_hh                            (h_t is h_{t−1} of the docs: h[0] = h_0)
//   r = σ(gi_r + gh_r), z = σ(gi_z + gh_z), n = tanh(gi_n + r ∘ gh_n), h' = (1 − z) ∘ n + z ∘ h
void gru_layer_forward(float* out, float* gi, float* gates, float* ghn, float* h, const float* x,
                       const float* w_ih, const float* w_hh, const float* b_ih, const float* b_hh,
                       float* scratch, int B, int T, int C) {
    const size_t C3 = 3 * (size_t)C;
    {
        ICL_PROFILE_SCOPE("fwd gru input matmul");  // gi (B·T,3C) = x (B·T,C) · w_ihᵀ + b_ih
        matmul_nt_add(gi, x, w_ih, b_ih, nullptr, B * T, C, 3 * C);
    }
    ICL_PROFILE_SCOPE("fwd gru recurrence");
    std::fill_n(h, (size_t)B * C, 0.0f);  // h_0
    float* gh = scratch;                   // (B,3C)
    for (int t = 0; t < T; ++t) {
        const float* hp = h + (size_t)t * B * C;  // (B,C) h_{t−1}
        float* hn = h + (size_t)(t + 1) * B * C;  // (B,C) h_t
        matmul_nt_add(gh, hp, w_hh, b_hh, nullptr, B, C, 3 * C);
        for (int b = 0; b < B; ++b) {
            const float* gib = gi + ((size_t)b * T + t) * C3;
            const float* ghb = gh + (size_t)b * C3;
            float* g = gates + ((size_t)t * B + b) * C3;
            float* ghnb = ghn + ((size_t)t * B + b) * C;
            float* ob = out + ((size_t)b * T + t) * C;
            for (int c = 0; c < C; ++c) {
                const float r = sigmoid(gib[c] + ghb[c]);
                const float z = sigmoid(gib[C + c] + ghb[C + c]);
                const float hh = ghb[2 * C + c];
                const float n = std::tanh(gib[2 * C + c] + r * hh);
                const float v = (1.0f - z) * n + z * hp[(size_t)b * C + c];
                g[c] = r;
                g[C + c] = z;
                g[2 * C + c] = n;
                ghnb[c] = hh;
                hn[(size_t)b * C + c] = v;
                ob[c] = v;
            }
        }
    }
}

// Backward through time, t = T−1 .. 0, with dh (B,C) the gradient reaching h_t from later
// steps (0 at the end). Per step, d = dout_t + dh:
//   dn = d ∘ (1 − z), dz = d ∘ (h_{t−1} − n), d(n's pre-activation) = dn ∘ (1 − n²),
//   dr = d(n pre) ∘ gh_n; the pre-activations' gradients dgi = (dr ∘ r(1−r), dz ∘ z(1−z), dn_pre)
//   and dgh = (the same r and z parts, dn_pre ∘ r); dh = d ∘ z + dgh · w_hh.
// Then dw_ih = dgiᵀ x, dw_hh = dghᵀ h_{t−1} over every step at once, dx = dgi · w_ih.
void gru_layer_backward(float* dx, float* dw_ih, float* dw_hh, float* db_ih, float* db_hh, const float* dout,
                        const float* x, const float* gates, const float* ghn, const float* h,
                        const float* w_ih, const float* w_hh, float* scratch, int B, int T, int C, bool add) {
    const size_t C3 = 3 * (size_t)C;
    float* dgi = scratch;                       // (B,T,3C) batch-major, as x
    float* dgh = dgi + (size_t)B * T * C3;      // (T,B,3C) time-major, as h
    float* dh = dgh + (size_t)T * B * C3;       // (B,C)
    {
        ICL_PROFILE_SCOPE("bwd gru recurrence");
        std::fill_n(dh, (size_t)B * C, 0.0f);
        for (int t = T - 1; t >= 0; --t) {
            const float* hp = h + (size_t)t * B * C;
            float* dght = dgh + (size_t)t * B * C3;
            for (int b = 0; b < B; ++b) {
                const float* g = gates + ((size_t)t * B + b) * C3;
                const float* hh = ghn + ((size_t)t * B + b) * C;
                const float* db = dout + ((size_t)b * T + t) * C;
                float* dgib = dgi + ((size_t)b * T + t) * C3;
                float* dghb = dght + (size_t)b * C3;
                float* dhb = dh + (size_t)b * C;
                for (int c = 0; c < C; ++c) {
                    const float r = g[c], z = g[C + c], n = g[2 * C + c];
                    const float d = db[c] + dhb[c];
                    const float dn_pre = d * (1.0f - z) * (1.0f - n * n);
                    const float dz_pre = d * (hp[(size_t)b * C + c] - n) * z * (1.0f - z);
                    const float dr_pre = dn_pre * hh[c] * r * (1.0f - r);
                    dgib[c] = dr_pre;
                    dgib[C + c] = dz_pre;
                    dgib[2 * C + c] = dn_pre;
                    dghb[c] = dr_pre;
                    dghb[C + c] = dz_pre;
                    dghb[2 * C + c] = dn_pre * r;
                    dhb[c] = d * z;  // the direct path; the product below adds the gates' paths
                }
            }
            matmul_nn(dh, dght, w_hh, B, 3 * C, C, true);  // dh (B,C) += dgh_t (B,3C) · w_hh (3C,C)
        }
    }
    ICL_PROFILE_SCOPE("bwd gru matmuls");
    // dw_hh (3C,C) (+)= Σ_t dgh_tᵀ h_{t−1}: the (T·B) rows of dgh against h_0 .. h_{T−1}
    linear_weight_grad(dw_hh, db_hh, dgh, h, T * B, C, 3 * C, add);
    linear_weight_grad(dw_ih, db_ih, dgi, x, B * T, C, 3 * C, add);  // dw_ih (3C,C) (+)= dgiᵀ x
    matmul_nn(dx, dgi, w_ih, B * T, 3 * C, C, false);                 // dx (B·T,C) = dgi · w_ih
}

namespace detail {

size_t gru_activation_count(const Config& c, int B, int T) {
    const size_t BT = (size_t)B * T, C = (size_t)c.width;
    // per layer: gi, gates (3C each), ghn, h (T+1 steps), out
    const size_t layer = 2 * BT * 3 * C + BT * C + (BT + B) * C + BT * C;
    return BT * C + (size_t)c.layers * layer + readout_count(c, B, T);
}

Status gru_forward(const Model& model, Activations& acts, const Batch& batch) {
    ICL_PROFILE_SCOPE("fwd checks, setup");
    const Config& c = model.config;
    if (Status s = check_batch(model, batch, "gru forward"); !s) return s;
    const int B = batch.B, T = batch.T, C = c.width;
    const size_t BT = (size_t)B * T, C3 = 3 * (size_t)C;
    Arena arena;
    acts.B = B;
    acts.T = T;
    acts.C = C;
    acts.H = 1;
    acts.embed = arena.take(BT * C);
    acts.blocks.clear();
    acts.gru.assign((size_t)c.layers, GruActs{});
    for (GruActs& g : acts.gru) {
        g.gi = arena.take(BT * C3);
        g.gates = arena.take(BT * C3);
        g.ghn = arena.take(BT * C);
        g.h = arena.take((BT + B) * C);
        g.out = arena.take(BT * C);
    }
    acts.mlp_out = 0;
    take_readout(acts, c, arena, B, T);
    finish_allocate(acts, arena);
    acts.scratch.resize((size_t)B * C3);
    acts.ablations.clear();
    acts.head_patches.clear();
    bind_batch(acts, c, batch);

    input_forward(model, acts, acts.ptr(acts.embed));
    const float* x = acts.ptr(acts.embed);
    for (int l = 0; l < c.layers; ++l) {
        const GruSlots& p = model.layout.gru[(size_t)l];
        GruActs& g = acts.gru[(size_t)l];
        gru_layer_forward(acts.ptr(g.out), acts.ptr(g.gi), acts.ptr(g.gates), acts.ptr(g.ghn), acts.ptr(g.h), x,
                          model.at(p.w_ih), model.at(p.w_hh), model.at(p.b_ih), model.at(p.b_hh),
                          acts.scratch.data(), B, T, C);
        x = acts.ptr(g.out);
    }
    return readout_forward(model, acts, x, "gru forward");
}

Status gru_backward(const Model& model, Activations& acts, float* grads, GradsOnEntry on_entry) {
    const Config& c = model.config;
    const int B = acts.B, T = acts.T, C = c.width;
    const size_t BTC = (size_t)B * T * C, C3 = 3 * (size_t)C;
    const bool add = on_entry == GradsOnEntry::any;
    const size_t head_n = readout_scratch(c, B, T);
    const size_t layer_n = 2 * (size_t)B * T * C3 + (size_t)B * C;
    acts.grad_scratch.resize(3 * BTC + std::max(head_n, layer_n));
    float* dres = acts.grad_scratch.data();  // (B,T,C) d(loss)/d(the current layer's output)
    float* dln = dres + BTC;                 // (B,T,C)
    float* dx = dln + BTC;                   // (B,T,C)
    float* work = dx + BTC;
    const float* top = c.layers > 0 ? acts.ptr(acts.gru.back().out) : acts.ptr(acts.embed);
    std::fill_n(dres, BTC, 0.0f);
    readout_backward(model, acts, grads, dres, top, dln, work, add);
    for (int l = c.layers - 1; l >= 0; --l) {
        const GruSlots& p = model.layout.gru[(size_t)l];
        const GruActs& g = acts.gru[(size_t)l];
        const float* x = l == 0 ? acts.ptr(acts.embed) : acts.ptr(acts.gru[(size_t)l - 1].out);
        gru_layer_backward(dx, grads + p.w_ih, grads + p.w_hh, grads + p.b_ih, grads + p.b_hh, dres, x,
                           acts.ptr(g.gates), acts.ptr(g.ghn), acts.ptr(g.h), model.at(p.w_ih), model.at(p.w_hh),
                           work, B, T, C, add);
        std::swap(dres, dx);
    }
    input_backward(model, acts, grads, dres, add);
    return Ok{};
}

}  // namespace detail

}  // namespace icl::gpt
