// The inputs and readouts both architectures share (icl/gpt_io.h): the token, position and
// vector embeddings, the final LayerNorm, the tied softmax head with its cross-entropy and
// the regression readout with its masked mean squared error, each with its backward.
#include "icl/gpt_io.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "icl/profile.h"

namespace icl::gpt::detail {

namespace {

std::string at_position(int i, int T) {
    return " at batch row " + std::to_string(i / T) + ", position " + std::to_string(i % T);
}

// The first non-finite value of x (n floats, rows of `row` floats at positions (B,T)), or "".
std::string non_finite(const float* x, size_t n, size_t row, int T, const char* what, const char* name) {
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i]))
            return std::string(what) + ": " + name + " holds " + (std::isnan(x[i]) ? "NaN" : "an infinite value") +
                   at_position((int)(i / row), T) + ", entry " + std::to_string(i % row);
    return "";
}

// out (B,T,C) (+)= wte[tokens] (tokens may be null) + wpe[0..T) (wpe may be null)
void embedding_forward(float* out, const int* tokens, const float* wte, const float* wpe, int B, int T, int C,
                       bool accumulate) {
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
            float* o = out + ((size_t)b * T + t) * C;
            if (tokens && wpe) {  // the token model's path: one pass, as it always was
                const float* te = wte + (size_t)tokens[b * T + t] * C;
                const float* pe = wpe + (size_t)t * C;
                if (accumulate)
                    for (int c = 0; c < C; ++c) o[c] += te[c] + pe[c];
                else
                    for (int c = 0; c < C; ++c) o[c] = te[c] + pe[c];
                continue;
            }
            if (!accumulate) std::fill_n(o, C, 0.0f);
            if (tokens) {
                const float* te = wte + (size_t)tokens[b * T + t] * C;
                for (int c = 0; c < C; ++c) o[c] += te[c];
            }
            if (wpe) {
                const float* pe = wpe + (size_t)t * C;
                for (int c = 0; c < C; ++c) o[c] += pe[c];
            }
        }
}

// dwte (V,C) += (if not null), dwpe (T,C) += (if not null) from dout (B,T,C)
void embedding_backward(float* dwte, float* dwpe, const float* dout, const int* tokens, int B, int T, int C) {
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
            const float* d = dout + ((size_t)b * T + t) * C;
            if (dwte) {
                float* te = dwte + (size_t)tokens[b * T + t] * C;
                for (int c = 0; c < C; ++c) te[c] += d[c];
            }
            if (dwpe) {
                float* pe = dwpe + (size_t)t * C;
                for (int c = 0; c < C; ++c) pe[c] += d[c];
            }
        }
}

}  // namespace

Status check_batch(const Model& model, const Batch& batch, const char* what) {
    const Config& c = model.config;
    const int B = batch.B, T = batch.T;
    if (B < 1) return make_error(std::string(what) + ": batch size " + std::to_string(B) + " must be >= 1");
    if (T < 1 || T > c.context)
        return make_error(std::string(what) + ": sequence length " + std::to_string(T) + " is outside [1, " +
                          std::to_string(c.context) + "] (the model's context)");
    const size_t need = activation_count(c, B, T);
    if (need > Bounds::max_activations)
        return make_error(std::string(what) + ": a batch of " + std::to_string(B) + " x " + std::to_string(T) + " needs " +
                          std::to_string(need) + " activation floats, over the bound of " +
                          std::to_string(Bounds::max_activations));
    if (c.token_input && !batch.tokens) return make_error(std::string(what) + ": the model reads tokens and none were given");
    if (c.input_dim > 0 && !batch.vectors)
        return make_error(std::string(what) + ": the model reads an input vector of " + std::to_string(c.input_dim) +
                          " per position and none were given");
    if (batch.targets && !c.token_output)
        return make_error(std::string(what) + ": token targets were given, but the model has no softmax head (token_output off)");
    if (batch.target_vectors && c.output_dim == 0)
        return make_error(std::string(what) + ": target vectors were given, but the model has no regression readout (output_dim 0)");
    if (batch.target_mask && !batch.target_vectors)
        return make_error(std::string(what) + ": a target mask was given without target vectors");
    const int* tokens = c.token_input ? batch.tokens : nullptr;
    for (int i = 0; i < B * T; ++i) {
        if (tokens && (tokens[i] < 0 || tokens[i] >= c.vocab))
            return make_error(std::string(what) + ": token id " + std::to_string(tokens[i]) + at_position(i, T) + " is outside [0, " +
                              std::to_string(c.vocab - 1) + "]");
        if (batch.targets && (batch.targets[i] < -1 || batch.targets[i] >= c.vocab))
            return make_error(std::string(what) + ": target id " + std::to_string(batch.targets[i]) + at_position(i, T) +
                              " is outside [-1, " + std::to_string(c.vocab - 1) + "]");
    }
    const size_t BT = (size_t)B * T;
    if (c.input_dim > 0)
        if (std::string e = non_finite(batch.vectors, BT * c.input_dim, c.input_dim, T, what, "the input vectors");
            !e.empty())
            return make_error(e);
    if (batch.target_vectors)
        if (std::string e = non_finite(batch.target_vectors, BT * c.output_dim, c.output_dim, T, what,
                                       "the target vectors");
            !e.empty())
            return make_error(e);
    return Ok{};
}

size_t readout_count(const Config& c, int B, int T) {
    const size_t BT = (size_t)B * T;
    return BT * (c.width + 2) + (c.token_output ? 2 * BT * c.vocab + BT : 0) + BT * c.output_dim;
}

void take_readout(Activations& a, const Config& c, Arena& arena, int B, int T) {
    const size_t BT = (size_t)B * T;
    a.lnf = arena.take(BT * c.width);
    a.lnf_mean = arena.take(BT);
    a.lnf_rstd = arena.take(BT);
    a.logits = arena.take(c.token_output ? BT * c.vocab : 0);
    a.probs = arena.take(c.token_output ? BT * c.vocab : 0);
    a.losses = arena.take(c.token_output ? BT : 0);
    a.yhat = arena.take(BT * c.output_dim);
}

void finish_allocate(Activations& a, const Arena& arena) {
    // Kept across calls (a training loop or a scorer reusing its Activations allocates
    // nothing); grown to exactly n, the old block freed first: a plain resize would copy
    // the stale activations and could reserve twice what the largest call needs.
    if (arena.n > a.buf.capacity()) std::vector<float>().swap(a.buf);
    a.buf.resize(arena.n);
    const size_t BT = (size_t)a.B * a.T;
    a.kernel_targets.resize(BT);
    a.loss_weights.resize(BT);
}

void bind_batch(Activations& acts, const Config& c, const Batch& batch) {
    const size_t BT = (size_t)batch.B * batch.T;
    if (c.token_input) acts.tokens.assign(batch.tokens, batch.tokens + BT);
    else acts.tokens.clear();
    if (c.input_dim > 0) acts.vectors.assign(batch.vectors, batch.vectors + BT * c.input_dim);
    else acts.vectors.clear();
    acts.has_ce = batch.targets != nullptr;
    acts.has_mse = batch.target_vectors != nullptr;
    acts.has_targets = acts.has_ce || acts.has_mse;
    if (acts.has_ce) acts.targets.assign(batch.targets, batch.targets + BT);
    if (acts.has_mse) {
        acts.target_vectors.assign(batch.target_vectors, batch.target_vectors + BT * c.output_dim);
        acts.target_mask.assign(BT, 1);
        if (batch.target_mask)
            for (size_t i = 0; i < BT; ++i) acts.target_mask[i] = batch.target_mask[i] != 0;
    }
}

void input_forward(const Model& model, const Activations& acts, float* out) {
    ICL_PROFILE_SCOPE("fwd embedding");
    const Config& c = model.config;
    const Layout& lay = model.layout;
    const int B = acts.B, T = acts.T, C = c.width;
    const bool vec = c.input_dim > 0;
    if (vec)  // out = vectors · wxᵀ + bx   (B·T, D_in) x (D_in, C)
        matmul_nt_add(out, acts.vectors.data(), model.at(lay.wx), model.at(lay.bx), nullptr, B * T, c.input_dim, C);
    const int* tokens = c.token_input ? acts.tokens.data() : nullptr;
    const float* wpe = c.arch == Arch::transformer ? model.at(lay.wpe) : nullptr;
    if (tokens || wpe) embedding_forward(out, tokens, tokens ? model.at(lay.wte) : nullptr, wpe, B, T, C, vec);
}

void input_backward(const Model& model, const Activations& acts, float* grads, const float* dout, bool add) {
    ICL_PROFILE_SCOPE("bwd embedding");
    const Config& c = model.config;
    const Layout& lay = model.layout;
    const int B = acts.B, T = acts.T, C = c.width;
    float* dwte = c.token_input ? grads + lay.wte : nullptr;
    float* dwpe = c.arch == Arch::transformer ? grads + lay.wpe : nullptr;
    if (dwte || dwpe) embedding_backward(dwte, dwpe, dout, acts.tokens.data(), B, T, C);
    if (c.input_dim > 0)  // dwx (C,D_in) (+)= doutᵀ · vectors, dbx (+)= Σ dout
        linear_weight_grad(grads + lay.wx, grads + lay.bx, dout, acts.vectors.data(), B * T, c.input_dim, C, add);
}

Status readout_forward(const Model& model, Activations& acts, const float* x, const char* what) {
    const Config& c = model.config;
    const Layout& lay = model.layout;
    const int BT = acts.B * acts.T, C = c.width, V = c.vocab, D = c.output_dim;
    layernorm_forward(acts.ptr(acts.lnf), acts.ptr(acts.lnf_mean), acts.ptr(acts.lnf_rstd), x,
                      model.at(lay.lnf_w), model.at(lay.lnf_b), BT, C, kLayerNormEps);
    if (c.token_output) {
        ICL_PROFILE_ROLE("lm_head");
        matmul_nt(acts.ptr(acts.logits), acts.ptr(acts.lnf), model.at(lay.wte), BT, C, V, false);
    }
    if (D > 0) {
        // yhat (BT,D) = lnf · wyᵀ + by
        linear_forward("head", acts.ptr(acts.yhat), acts.ptr(acts.lnf), model.at(lay.wy), model.at(lay.by), BT, C,
                       D);
    }
    acts.scored = 0;
    acts.mse_scored = 0;
    acts.ce_loss = acts.mse_loss = 0.0f;
    if (acts.has_ce) {
        ICL_PROFILE_SCOPE("fwd cross-entropy");
        // Unscored positions (-1) get target 0 for the kernel and weight 0 in the mean.
        for (int i = 0; i < BT; ++i) acts.kernel_targets[(size_t)i] = std::max(acts.targets[(size_t)i], 0);
        crossentropy_forward(acts.ptr(acts.losses), acts.ptr(acts.probs), acts.ptr(acts.logits),
                             acts.kernel_targets.data(), BT, V);
        double sum = 0.0;
        for (int i = 0; i < BT; ++i)
            if (acts.targets[(size_t)i] >= 0) {
                sum += acts.ptr(acts.losses)[i];
                ++acts.scored;
            }
        if (acts.scored == 0) return make_error(std::string(what) + ": every target is -1, nothing to score");
        acts.ce_loss = (float)(sum / acts.scored);
    }
    if (acts.has_mse) {
        ICL_PROFILE_SCOPE("fwd mean squared error");
        double sum = 0.0;
        const float* y = acts.ptr(acts.yhat);
        for (int i = 0; i < BT; ++i) {
            if (!acts.target_mask[(size_t)i]) continue;
            ++acts.mse_scored;
            for (int d = 0; d < D; ++d) {
                const double e = (double)y[(size_t)i * D + d] - acts.target_vectors[(size_t)i * D + d];
                sum += e * e;
            }
        }
        if (acts.mse_scored == 0)
            return make_error(std::string(what) + ": the target mask scores no position, nothing to score");
        acts.mse_loss = (float)(sum / ((double)acts.mse_scored * D));
    }
    acts.loss = acts.ce_loss + acts.mse_loss;
    if (!std::isfinite(acts.loss))
        return make_error(std::string(what) + ": the loss is " + (std::isnan(acts.loss) ? "NaN" : "infinite"));
    return Ok{};
}

size_t readout_scratch(const Config& c, int B, int T) {
    const size_t BT = (size_t)B * T;
    return (c.token_output ? BT * c.vocab : 0) + BT * c.output_dim;
}

void readout_backward(const Model& model, Activations& acts, float* grads, float* dx, const float* x,
                      float* dln, float* scratch, bool add) {
    const Config& c = model.config;
    const Layout& lay = model.layout;
    const int BT = acts.B * acts.T, C = c.width, V = c.vocab, D = c.output_dim;
    float* dlogits = scratch;                                   // (BT,V)
    float* dy = dlogits + (c.token_output ? (size_t)BT * V : 0);  // (BT,D)
    if (acts.has_ce) {
        {
            // mean cross-entropy over the scored positions
            ICL_PROFILE_SCOPE("bwd cross-entropy");
            std::fill_n(dlogits, (size_t)BT * V, 0.0f);
            float* dlosses = acts.loss_weights.data();
            for (int i = 0; i < BT; ++i)
                dlosses[i] = acts.targets[(size_t)i] >= 0 ? 1.0f / (float)acts.scored : 0.0f;
            crossentropy_backward(dlogits, acts.ptr(acts.probs), acts.kernel_targets.data(), dlosses, BT, V);
        }
        // tied LM head: logits = lnf · wteᵀ
        ICL_PROFILE_ROLE("lm_head");
        matmul_nn(dln, dlogits, model.at(lay.wte), BT, V, C, false);
        matmul_tn(grads + lay.wte, dlogits, acts.ptr(acts.lnf), V, BT, C, add);
    }
    if (acts.has_mse) {
        // d(mean over scored positions and D of (ŷ − y)²)/dŷ = 2 (ŷ − y) / (n D) where scored
        ICL_PROFILE_SCOPE("bwd regression head");
        const float* y = acts.ptr(acts.yhat);
        const float w = 2.0f / ((float)acts.mse_scored * (float)D);
        for (int i = 0; i < BT; ++i)
            for (int d = 0; d < D; ++d) {
                const size_t k = (size_t)i * D + d;
                dy[k] = acts.target_mask[(size_t)i] ? w * (y[k] - acts.target_vectors[k]) : 0.0f;
            }
        // dln (+)= dy · wy, dwy (+)= dyᵀ lnf, dby (+)= Σ dy
        linear_backward("head", dln, grads + lay.wy, grads + lay.by, dy, acts.ptr(acts.lnf), model.at(lay.wy), BT,
                        C, D, acts.has_ce, add);
    }
    layernorm_backward(dx, grads + lay.lnf_w, grads + lay.lnf_b, dln, x, acts.ptr(acts.lnf_mean),
                       acts.ptr(acts.lnf_rstd), model.at(lay.lnf_w), BT, C);
}

}  // namespace icl::gpt::detail
