#include "icl/gpt_probe.h"

#include <string>

namespace icl::gpt {

namespace {

// layer in [0, max_layer], row in [0, B), head in [0, H)
Status check(const Activations& a, int layer, int max_layer, int row, int head) {
    auto bad = [](const char* what, int v, int hi) {
        return make_error(std::string("gpt probe: ") + what + " " + std::to_string(v) + " is outside [0, " +
                          std::to_string(hi) + "]");
    };
    if (a.B == 0 || a.blocks.empty()) return make_error("gpt probe: the activations are not from a transformer's forward");
    if (layer < 0 || layer > max_layer) return bad("layer", layer, max_layer);
    if (row < 0 || row >= a.B) return bad("batch row", row, a.B - 1);
    if (head < 0 || head >= a.H) return bad("head", head, a.H - 1);
    return Ok{};
}

int last_block(const Activations& a) { return (int)a.blocks.size() - 1; }

}  // namespace

Expected<Activations> run(const Model& model, const xt::xtensor<int, 2>& tokens, const Hooks* hooks) {
    Activations acts;
    const int B = (int)tokens.shape(0), T = (int)tokens.shape(1);
    const std::vector<int> flat(tokens.begin(), tokens.end());
    if (Status s = forward(model, acts, flat.data(), nullptr, B, T, hooks); !s) return s.error();
    return acts;
}

Expected<View> attention_map(const Activations& a, int layer, int row, int head) {
    if (Status s = check(a, layer, last_block(a), row, head); !s) return s.error();
    const size_t T = (size_t)a.T;
    return detail::strided_view(a.ptr(a.blocks[(size_t)layer].att) + ((size_t)row * a.H + head) * T * T, T, T, T);
}

Expected<View> head_qkv(const Activations& a, int layer, int row, int head, Qkv which) {
    if (Status s = check(a, layer, last_block(a), row, head); !s) return s.error();
    const size_t T = (size_t)a.T, C = (size_t)a.C, hs = C / a.H;
    return detail::strided_view(a.ptr(a.blocks[(size_t)layer].qkv) + (size_t)row * T * 3 * C, T, hs, 3 * C,
                                (size_t)which * C + head * hs);
}

Expected<View> head_output(const Activations& a, int layer, int row, int head) {
    if (Status s = check(a, layer, last_block(a), row, head); !s) return s.error();
    const size_t T = (size_t)a.T, C = (size_t)a.C, hs = C / a.H;
    return detail::strided_view(a.ptr(a.blocks[(size_t)layer].atty) + (size_t)row * T * C, T, hs, C, head * hs);
}

Expected<View> heads_output(const Activations& a, int layer, int row) {
    if (Status s = check(a, layer, last_block(a), row, 0); !s) return s.error();
    const size_t T = (size_t)a.T, C = (size_t)a.C;
    return detail::strided_view(a.ptr(a.blocks[(size_t)layer].atty) + (size_t)row * T * C, T, C, C);
}

Expected<View> residual_stream(const Activations& a, int layer, int row) {
    if (Status s = check(a, layer, last_block(a) + 1, row, 0); !s) return s.error();
    const size_t T = (size_t)a.T, C = (size_t)a.C;
    return detail::strided_view(a.residual(layer) + (size_t)row * T * C, T, C, C);
}

Expected<View> delta_betas(const Model& m, const Activations& a, int layer, int row) {
    if (Status s = check(a, layer, last_block(a), row, 0); !s) return s.error();
    if (m.config.kind(layer) != AttentionKind::delta)
        return make_error("gpt probe: layer " + std::to_string(layer) + " is not a delta layer, so it has no β");
    const size_t T = (size_t)a.T, H = (size_t)a.H;
    return detail::strided_view(a.ptr(a.blocks[(size_t)layer].beta) + (size_t)row * H * T, H, T, T);
}

Expected<View> logits(const Model& m, const Activations& a, int row) {
    if (a.B == 0) return make_error("gpt probe: the activations are not from a forward");
    if (row < 0 || row >= a.B)
        return make_error("gpt probe: batch row " + std::to_string(row) + " is outside [0, " + std::to_string(a.B - 1) + "]");
    if (!m.config.token_output) return make_error("gpt probe: the model has no softmax head, so no logits");
    const size_t T = (size_t)a.T, V = (size_t)m.config.vocab;
    return detail::strided_view(a.logits_ptr() + (size_t)row * T * V, T, V, V);
}

}  // namespace icl::gpt
