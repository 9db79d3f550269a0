#include "icl/gpt_probe.h"

#include <string>

namespace icl::gpt {

namespace {

Status check(const Model& m, const Activations& a, int layer, int max_layer, int row, int head) {
    auto bad = [](const char* what, int v, int hi) {
        return make_error(std::string("gpt probe: ") + what + " " + std::to_string(v) + " is outside [0, " +
                          std::to_string(hi) + "]");
    };
    if (a.B == 0 || a.blocks.size() != (size_t)m.config.layers)
        return make_error("gpt probe: the activations are not from a forward of this model");
    if (layer < 0 || layer > max_layer) return bad("layer", layer, max_layer);
    if (row < 0 || row >= a.B) return bad("batch row", row, a.B - 1);
    if (head < 0 || head >= m.config.heads) return bad("head", head, m.config.heads - 1);
    return Ok{};
}

// rows (T) of `cols` floats at `stride` apart, starting at src
Matrix copy_rows(const float* src, int T, int cols, int stride) {
    Matrix out = matrix(T, cols);
    for (int t = 0; t < T; ++t)
        for (int c = 0; c < cols; ++c) out(t, c) = src[(size_t)t * stride + c];
    return out;
}

}  // namespace

Expected<Activations> run(const Model& model, const xt::xtensor<int, 2>& tokens, const Hooks* hooks) {
    Activations acts;
    const int B = (int)tokens.shape(0), T = (int)tokens.shape(1);
    const std::vector<int> flat(tokens.begin(), tokens.end());
    if (Status s = forward(model, acts, flat.data(), nullptr, B, T, hooks); !s) return s.error();
    return acts;
}

Expected<Matrix> attention_map(const Model& m, const Activations& a, int layer, int row, int head) {
    if (Status s = check(m, a, layer, m.config.layers - 1, row, head); !s) return s.error();
    return copy_rows(a.attention(layer, row, head, m.config.heads), a.T, a.T, a.T);
}

Expected<Matrix> head_output(const Model& m, const Activations& a, int layer, int row, int head) {
    if (Status s = check(m, a, layer, m.config.layers - 1, row, head); !s) return s.error();
    const int C = m.config.width, hs = C / m.config.heads;
    return copy_rows(a.head_outputs(layer) + (size_t)row * a.T * C + head * hs, a.T, hs, C);
}

Expected<Matrix> residual_stream(const Model& m, const Activations& a, int layer, int row) {
    if (Status s = check(m, a, layer, m.config.layers, row, 0); !s) return s.error();
    const int C = m.config.width;
    return copy_rows(a.residual(layer) + (size_t)row * a.T * C, a.T, C, C);
}

Expected<Matrix> logits(const Model& m, const Activations& a, int row) {
    if (Status s = check(m, a, 0, 0, row, 0); !s) return s.error();
    if (!m.config.token_output) return make_error("gpt probe: the model has no softmax head, so no logits");
    const int V = m.config.vocab;
    return copy_rows(a.logits_ptr() + (size_t)row * a.T * V, a.T, V, V);
}

}  // namespace icl::gpt
