// The tiny GPT's forward and hand-written backward (see gpt.h for the architecture); the
// attention heads they call (softmax, linear, delta rule) are in gpt_attention.cpp.
#include "icl/gpt.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gpt_heads.h"
#include "icl/gpt_io.h"
#include "icl/profile.h"

namespace icl::gpt {

using detail::copy_head;
using detail::fast_attention_backward;
using detail::fast_attention_forward;

// ---- activations ---------------------------------------------------------------------

size_t activation_count(const Config& c, int B, int T) {
    if (c.arch == Arch::gru) return detail::gru_activation_count(c, B, T);
    const size_t BT = (size_t)B * T, C = (size_t)c.width, F = (size_t)c.ffn_width();
    size_t block = BT * (3 * C + 2) + (size_t)B * c.heads * T * T + 2 * BT * C;  // ln1, qkv, att, atty, res_attn
    if (!c.attention_only) block += BT * (C + 2) + BT * F;                     // ln2, fc
    block += BT * C;                                                            // res_out
    const size_t mlp_out = c.attention_only ? 0 : BT * F;
    size_t delta = 0;  // β (B,H,T) and u (B,T,C) per delta layer
    if (c.kinds.size() == (size_t)c.layers)
        for (AttentionKind k : c.kinds)
            if (k == AttentionKind::delta) delta += BT * (c.heads + C);
    return BT * C + (size_t)c.layers * block + mlp_out + detail::readout_count(c, B, T) + delta;
}

const float* Activations::residual(int layer) const {
    return layer == 0 ? ptr(embed) : ptr(blocks[(size_t)layer - 1].res_out);
}

namespace {

// One head's forward scratch: fast_attention_forward's T² + 3 T·hs, attention_forward's
// T² + hs.
size_t head_scratch_floats(int T, int hs) { return (size_t)T * T + 3 * (size_t)T * hs + hs; }

void allocate(Activations& a, const Config& c, int B, int T) {
    const size_t BT = (size_t)B * T, C = (size_t)c.width, F = (size_t)c.ffn_width();
    detail::Arena arena;
    auto take = [&arena](size_t count) { return arena.take(count); };
    a.B = B;
    a.T = T;
    a.C = (int)C;
    a.H = c.heads;
    a.embed = take(BT * C);
    a.blocks.assign((size_t)c.layers, BlockActs{});
    for (size_t l = 0; l < a.blocks.size(); ++l) {
        BlockActs& k = a.blocks[l];
        if (c.kind((int)l) == AttentionKind::delta) {
            k.beta = take(BT * c.heads);
            k.u = take(BT * C);
        }
        k.ln1 = take(BT * C);
        k.ln1_mean = take(BT);
        k.ln1_rstd = take(BT);
        k.qkv = take(BT * 3 * C);
        k.att = take((size_t)B * c.heads * T * T);
        k.atty = take(BT * C);
        k.res_attn = take(BT * C);
        if (!c.attention_only) {
            k.ln2 = take(BT * C);
            k.ln2_mean = take(BT);
            k.ln2_rstd = take(BT);
            k.fc = take(BT * F);
        }
        k.res_out = take(BT * C);
    }
    a.mlp_out = c.attention_only ? 0 : take(BT * F);
    detail::take_readout(a, c, arena, B, T);
    a.gru.clear();
    detail::finish_allocate(a, arena);
    // scratch: a linear or delta layer's q, k, v split into heads (B,H,T,hs) x3 (forward and
    // backward), then one head's head_scratch_floats, then β's logits (B,T,H)
    a.scratch.resize(BT * 3 * C + head_scratch_floats(T, c.head_size()) + BT * c.heads);
}

// (B,T,3C) -> three (B,H,T,hs): the q, k, v of every head made contiguous, for the
// linear and delta layers' parallel form (softmax layers read them in place)
void split_heads(float* q, float* k, float* v, const float* qkv, int B, int T, int C, int H) {
    const int hs = C / H;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
            const float* row = qkv + ((size_t)b * T + t) * 3 * C;
            for (int h = 0; h < H; ++h) {
                const size_t dst = (((size_t)b * H + h) * T + t) * hs;
                copy_head(q + dst, row + h * hs, hs);
                copy_head(k + dst, row + C + h * hs, hs);
                copy_head(v + dst, row + 2 * C + h * hs, hs);
            }
        }
}

// three (B,H,T,hs) -> (B,T,3C): the inverse of split_heads
void merge_heads(float* qkv, const float* q, const float* k, const float* v, int B, int T, int C,
                 int H) {
    const int hs = C / H;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
            float* row = qkv + ((size_t)b * T + t) * 3 * C;
            for (int h = 0; h < H; ++h) {
                const size_t src = (((size_t)b * H + h) * T + t) * hs;
                copy_head(row + h * hs, q + src, hs);
                copy_head(row + C + h * hs, k + src, hs);
                copy_head(row + 2 * C + h * hs, v + src, hs);
            }
        }
}

void zero_head(float* x /* (B,T,C) */, int B, int T, int C, int hs, int h) {
    for (size_t r = 0; r < (size_t)B * T; ++r) std::fill_n(x + r * C + (size_t)h * hs, hs, 0.0f);
}

// x (B,T,C): head p.head at p.position of every row = p.output (hs), or 0 (zero = true)
void patch_head(float* x, const HeadPatch& p, int B, int T, int C, int hs, bool zero) {
    if (p.position >= T) return;
    for (int b = 0; b < B; ++b) {
        float* o = x + ((size_t)b * T + p.position) * C + (size_t)p.head * hs;
        for (int i = 0; i < hs; ++i) o[i] = zero ? 0.0f : p.output[(size_t)i];
    }
}

// (B,T,C) with head h in columns h*hs.. -> (B,H,T,hs)
void rows_to_heads(float* heads, const float* rows, int B, int T, int C, int H) {
    const int hs = C / H;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int h = 0; h < H; ++h)
                copy_head(heads + (((size_t)b * H + h) * T + t) * hs, rows + ((size_t)b * T + t) * C + h * hs, hs);
}

void apply_residual_adds(float* x /* (B,T,C) */, const Hooks* hooks, int layer, int B, int T, int C) {
    if (!hooks) return;
    for (const ResidualAdd& a : hooks->residual_adds) {
        if (a.layer != layer || a.position >= T) continue;
        for (int b = 0; b < B; ++b) {
            float* row = x + ((size_t)b * T + a.position) * C;
            for (int c = 0; c < C; ++c) row[c] += a.vector[(size_t)c];
        }
    }
}

}  // namespace

// ---- linear ---------------------------------------------------------------------------

void linear_forward(const char* role, float* out, const float* inp, const float* W, const float* bias, int N,
                    int IC, int OC, const float* residual) {
    ICL_PROFILE_ROLE(role);
    matmul_nt_add(out, inp, W, bias, residual, N, IC, OC);  // bias and residual added as each tile is stored
}

void linear_backward(const char* role, float* dinp, float* dW, float* dbias, const float* dout, const float* inp,
                     const float* W, int N, int IC, int OC, bool accumulate_dinp, bool accumulate_dw) {
    ICL_PROFILE_ROLE(role);
    matmul_nn(dinp, dout, W, N, OC, IC, accumulate_dinp);  // dinp (N,IC) (+)= dout (N,OC) · W (OC,IC)
    if (dW)  // dW (+)= doutᵀ · inp, dbias (+)= Σ dout
        linear_weight_grad(dW, dbias, dout, inp, N, IC, OC, accumulate_dw);
}

// ---- forward ----------------------------------------------------------------------------

Status forward(const Model& model, Activations& acts, const int* tokens, const int* targets, int B,
               int T, const Hooks* hooks) {
    Batch batch;
    batch.B = B;
    batch.T = T;
    batch.tokens = tokens;
    batch.targets = targets;
    return forward(model, acts, batch, hooks);
}

Status forward(const Model& model, Activations& acts, const float* vectors, int B, int T, const Hooks* hooks) {
    Batch batch;
    batch.B = B;
    batch.T = T;
    batch.vectors = vectors;
    return forward(model, acts, batch, hooks);
}

Status forward(const Model& model, Activations& acts, const Batch& batch, const Hooks* hooks) {
    const Config& c = model.config;
    acts.loss = 0.0f;
    if (c.arch == Arch::gru) {
        if (hooks) return make_error("gru forward: hooks (residual adds, ablations, patches) apply to the transformer only");
        return detail::gru_forward(model, acts, batch);
    }
    ICL_PROFILE_CONTEXT("fwd");
    if (Status s = detail::check_batch(model, batch, "gpt forward"); !s) return s;
    if (hooks)
        if (Status s = validate(*hooks, c); !s) return s;

    const int B = batch.B, T = batch.T;
    allocate(acts, c, B, T);
    detail::bind_batch(acts, c, batch);
    acts.ablations = hooks ? hooks->ablations : std::vector<HeadAblation>{};
    acts.head_patches = hooks ? hooks->head_patches : std::vector<HeadPatch>{};
    const int C = c.width, H = c.heads, F = c.ffn_width();
    const int BT = B * T;
    const Layout& lay = model.layout;

    detail::input_forward(model, acts, acts.ptr(acts.embed));
    apply_residual_adds(acts.ptr(acts.embed), hooks, 0, B, T, C);
    const float* x = acts.ptr(acts.embed);
    // a linear or delta layer's q, k, v split into heads, then one head's scratch
    float* hq = acts.scratch.data();
    float* hk = hq + (size_t)BT * C;
    float* hv = hk + (size_t)BT * C;
    float* head_scratch = hv + (size_t)BT * C;
    for (int l = 0; l < c.layers; ++l) {
        const BlockSlots& p = lay.blocks[(size_t)l];
        BlockActs& a = acts.blocks[(size_t)l];
        layernorm_forward(acts.ptr(a.ln1), acts.ptr(a.ln1_mean), acts.ptr(a.ln1_rstd), x,
                          model.at(p.ln1_w), model.at(p.ln1_b), BT, C, kLayerNormEps);
        float* qkv = acts.ptr(a.qkv);
        // qkv = ln1 · Wqᵀ + bq
        linear_forward("qkv", qkv, acts.ptr(a.ln1), model.at(p.wq), model.at(p.bq), BT, C, 3 * C);
        const AttentionKind kind = c.kind(l);
        if (kind == AttentionKind::softmax) {
            attention_forward(acts.ptr(a.att), acts.ptr(a.atty), qkv, head_scratch, B, T, C, H, c.mask(l),
                              c.momentum);
        } else {
            split_heads(hq, hk, hv, qkv, B, T, C, H);
            if (kind == AttentionKind::delta) {  // β (B,H,T) = σ(ln1 · wbᵀ + bb)
                float* logits = head_scratch + head_scratch_floats(T, C / H);
                linear_forward("beta", logits, acts.ptr(a.ln1), model.at(p.wb), model.at(p.bb), BT, C, H);
                float* beta = acts.ptr(a.beta);
                for (int b = 0; b < B; ++b)
                    for (int t = 0; t < T; ++t)
                        for (int h = 0; h < H; ++h)
                            beta[((size_t)b * H + h) * T + t] =
                                1.0f / (1.0f + std::exp(-logits[((size_t)b * T + t) * H + h]));
            }
            fast_attention_forward(kind, acts.ptr(a.att), acts.ptr(a.atty), acts.ptr(a.u), hq, hk, hv,
                                   acts.ptr(a.beta), head_scratch, B, T, C, H);
        }
        for (const HeadAblation& h : acts.ablations)
            if (h.layer == l) zero_head(acts.ptr(a.atty), B, T, C, C / H, h.head);
        for (const HeadPatch& h : acts.head_patches)
            if (h.layer == l) patch_head(acts.ptr(a.atty), h, B, T, C, C / H, false);
        // res_attn = atty · Woᵀ + (x + bo), the residual and bias added as each tile of the
        // product is stored, not in a pass of their own (as fc2's below)
        float* ra = acts.ptr(a.res_attn);
        linear_forward("proj", ra, acts.ptr(a.atty), model.at(p.wo), model.at(p.bo), BT, C, C, x);
        float* out = acts.ptr(a.res_out);
        if (c.attention_only) {
            std::memcpy(out, ra, sizeof(float) * BT * C);
        } else {
            layernorm_forward(acts.ptr(a.ln2), acts.ptr(a.ln2_mean), acts.ptr(a.ln2_rstd), ra,
                              model.at(p.ln2_w), model.at(p.ln2_b), BT, C, kLayerNormEps);
            linear_forward("fc", acts.ptr(a.fc), acts.ptr(a.ln2), model.at(p.w1), nullptr, BT, C, F);
            // fc += b1 (kept for the backward), gelu
            bias_gelu_forward(acts.ptr(acts.mlp_out), acts.ptr(a.fc), model.at(p.b1), BT, F);
            // out = mlp_out · W2ᵀ + (ra + b2)
            linear_forward("fc2", out, acts.ptr(acts.mlp_out), model.at(p.w2), model.at(p.b2), BT, F, C, ra);
        }
        apply_residual_adds(out, hooks, l + 1, B, T, C);
        x = out;
    }
    return detail::readout_forward(model, acts, x, "gpt forward");
}

// ---- backward ----------------------------------------------------------------------------

Status backward(const Model& model, Activations& acts, float* grads, GradsOnEntry on_entry) {
    ICL_PROFILE_CONTEXT("bwd");
    const Config& c = model.config;
    if (!acts.has_targets || acts.B == 0)
        return make_error("gpt backward: the last forward had no targets");
    if (c.arch == Arch::gru) return detail::gru_backward(model, acts, grads, on_entry);
    const int B = acts.B, T = acts.T, C = c.width, H = c.heads, F = c.ffn_width();
    const int BT = B * T;
    const size_t BTC = (size_t)BT * C;
    const Layout& lay = model.layout;
    auto g = [grads](size_t off) { return grads + off; };
    // Every weight matrix below gets one product's gradient, and wte's lm-head part comes
    // before its embedding part: with grads all 0 on entry each product may store.
    const bool add = on_entry == GradsOnEntry::any;

    // backward scratch, (re)sized for this batch shape and kept in acts
    const size_t FT = c.attention_only ? 0 : (size_t)BT * F;
    const size_t dlogits_n = detail::readout_scratch(c, B, T);  // the heads' scratch: dlogits, dy
    const size_t hs = (size_t)(C / H), BTH = (size_t)BT * H;
    // one head's backward scratch: the delta heads' 2T² + 6 T·hs + 2T + hs, which covers
    // attention_backward's T² + hs
    const size_t head_n = 2 * (size_t)T * T + 6 * (size_t)T * hs + 2 * (size_t)T + hs;
    acts.grad_scratch.resize(dlogits_n + FT + 9 * BTC + head_n + 2 * BTH);
    float* dlogits = acts.grad_scratch.data();
    float* dhidden = dlogits + dlogits_n;  // (B,T,F): d(gelu out), then in place d(fc)
    float* dres = dhidden + FT;            // (B,T,C)
    float* dln = dres + BTC;               // (B,T,C)
    float* dO = dln + BTC;                 // (B,H,T,hs): linear and delta layers' d(heads' outputs)
    float* dq = dO + BTC;                  // (B,H,T,hs) x3, theirs too
    float* dk = dq + BTC;
    float* dv = dk + BTC;
    float* dqkv = dv + BTC;                // (B,T,3C)
    float* dP = dqkv + 3 * BTC;            // one head's backward scratch (head_n)
    float* dbeta = dP + head_n;            // (B,H,T)
    // a linear or delta layer's q, k, v split into heads again (the forward's scratch)
    float* hq = acts.scratch.data();
    float* hk = hq + BTC;
    float* hv = hk + BTC;
    float* dbl = dbeta + BTH;              // (B,T,H) d(β's logits)
    std::fill_n(dres, BTC, 0.0f);
    // the heads, then the final LayerNorm: dres = d(loss)/d(last residual)
    detail::readout_backward(model, acts, grads, dres, acts.residual(c.layers), dln, dlogits, add);

    // blocks in reverse; dres carries d(loss)/d(residual) downwards
    for (int l = c.layers - 1; l >= 0; --l) {
        const BlockSlots& p = lay.blocks[(size_t)l];
        const BlockActs& a = acts.blocks[(size_t)l];
        const float* x_in = acts.residual(l);
        if (!c.attention_only) {
            // fc2: dhidden = dres · W2 first; then one kernel turns it into d(fc) and takes fc2's
            // weight gradient from gelu(fc) computed again, straight into the product's packed
            // panels (cheaper than keeping every layer's gelu(fc))
            linear_backward("fc2", dhidden, nullptr, nullptr, dres, nullptr, model.at(p.w2), BT, F, C, false);
            // dhidden becomes d(fc); b1's, W2's, b2's gradients
            gelu_linear_backward(dhidden, g(p.b1), g(p.w2), g(p.b2), acts.ptr(acts.mlp_out),
                                 acts.ptr(a.fc), dres, BT, F, C, add);
            linear_backward("fc", dln, g(p.w1), nullptr, dhidden, acts.ptr(a.ln2), model.at(p.w1), BT, C, F,
                            false, add);
            layernorm_backward(dres, g(p.ln2_w), g(p.ln2_b), dln, acts.ptr(a.res_attn),
                               acts.ptr(a.ln2_mean), acts.ptr(a.ln2_rstd), model.at(p.ln2_w), BT, C);
        }
        // attention sublayer: d(atty) (B,T,C) reuses dln
        linear_backward("proj", dln, g(p.wo), g(p.bo), dres, acts.ptr(a.atty), model.at(p.wo), BT, C, C, false,
                        add);
        for (const HeadAblation& h : acts.ablations)
            if (h.layer == l) zero_head(dln, B, T, C, C / H, h.head);
        for (const HeadPatch& h : acts.head_patches)
            if (h.layer == l) patch_head(dln, h, B, T, C, C / H, true);
        const AttentionKind kind = c.kind(l);
        const float* qkv = acts.ptr(a.qkv);
        if (kind == AttentionKind::softmax) {  // d(atty) read in place from dln
            attention_backward(dqkv, dln, qkv, acts.ptr(a.att), dP, B, T, C, H, c.mask(l), c.momentum);
        } else {
            // with the splits into heads and the merge
            rows_to_heads(dO, dln, B, T, C, H);
            split_heads(hq, hk, hv, qkv, B, T, C, H);
            fast_attention_backward(kind, dq, dk, dv, dbeta, dO, hq, hk, hv, acts.ptr(a.beta),
                                    acts.ptr(a.att), acts.ptr(a.u), dP, B, T, C, H);
            merge_heads(dqkv, dq, dk, dv, B, T, C, H);
        }
        linear_backward("qkv", dln, g(p.wq), g(p.bq), dqkv, acts.ptr(a.ln1), model.at(p.wq), BT, C, 3 * C,
                        false, add);
        if (kind == AttentionKind::delta) {  // β = σ(logit): dlogit = dβ β (1 − β)
            const float* beta = acts.ptr(a.beta);
            for (int b = 0; b < B; ++b)
                for (int t = 0; t < T; ++t)
                    for (int h = 0; h < H; ++h) {
                        const size_t i = ((size_t)b * H + h) * T + t;
                        dbl[((size_t)b * T + t) * H + h] = dbeta[i] * beta[i] * (1.0f - beta[i]);
                    }
            linear_backward("beta", dln, g(p.wb), g(p.bb), dbl, acts.ptr(a.ln1), model.at(p.wb), BT, C, H, true,
                            add);
        }
        layernorm_backward(dres, g(p.ln1_w), g(p.ln1_b), dln, x_in, acts.ptr(a.ln1_mean),
                           acts.ptr(a.ln1_rstd), model.at(p.ln1_w), BT, C);
    }
    detail::input_backward(model, acts, grads, dres, add);
    return Ok{};
}

}  // namespace icl::gpt
