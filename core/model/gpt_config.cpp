// The tiny GPT's configuration: validation against its bounds, the parameter layout,
// a fresh model, and the validation of hooks (see gpt.h). The forward and backward
// passes are in gpt.cpp.
#include "icl/gpt.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "icl/rng.h"

namespace icl::gpt {

namespace {
std::string str(int v) { return std::to_string(v); }
}  // namespace

// ---- config ------------------------------------------------------------------------

const char* attention_kind_name(AttentionKind kind) {
    switch (kind) {
        case AttentionKind::linear: return "linear";
        case AttentionKind::delta: return "delta";
        default: return "softmax";
    }
}

const char* arch_name(Arch arch) { return arch == Arch::gru ? "gru" : "transformer"; }

Status validate(const Config& c) {
    auto range = [](const char* name, int v, int lo, int hi) -> Status {
        if (v < lo || v > hi)
            return make_error(std::string("gpt config: ") + name + " = " + str(v) + " is outside [" +
                              str(lo) + ", " + str(hi) + "]");
        return Ok{};
    };
    for (Status s : {range("vocab", c.vocab, 2, Bounds::max_vocab),
                     range("context", c.context, 1, Bounds::max_context),
                     range("width", c.width, 1, Bounds::max_width),
                     range("layers", c.layers, 1, Bounds::max_layers),
                     range("heads", c.heads, 1, Bounds::max_heads),
                     range("mlp_ratio", c.mlp_ratio, 1, Bounds::max_mlp_ratio),
                     range("input_dim", c.input_dim, 0, Bounds::max_input_dim),
                     range("output_dim", c.output_dim, 0, Bounds::max_output_dim)})
        if (!s) return s;
    if (c.arch != Arch::transformer && c.arch != Arch::gru)
        return make_error("gpt config: arch " + str((int)c.arch) + " is unknown (0 transformer, 1 gru)");
    if (!c.token_input && c.input_dim == 0)
        return make_error("gpt config: no input: token_input is off and input_dim = 0 (give tokens, vectors or both)");
    if (!c.token_output && c.output_dim == 0)
        return make_error("gpt config: no readout: token_output is off and output_dim = 0 (give the softmax head, "
                          "a regression readout or both)");
    if (c.arch == Arch::gru) {  // heads, masks, kinds and momentum are not read
        const size_t n = parameter_count(c);
        if (n > Bounds::max_params)
            return make_error("gpt config: " + std::to_string(n) + " parameters exceed the bound of " +
                              std::to_string(Bounds::max_params));
        return Ok{};
    }
    if (c.width % c.heads != 0)
        return make_error("gpt config: heads = " + str(c.heads) + " does not divide width = " +
                          str(c.width));
    if (!c.attention.empty() && c.attention.size() != (size_t)c.layers)
        return make_error("gpt config: " + str((int)c.attention.size()) +
                          " attention patterns given for " + str(c.layers) + " layers");
    for (size_t l = 0; l < c.attention.size(); ++l) {
        const AttentionMask& m = c.attention[l];
        if (m.kind == AttentionMask::banded && m.window < 1)
            return make_error("gpt config: layer " + str((int)l) + " banded window = " +
                              str(m.window) + " must be >= 1");
        if (m.kind == AttentionMask::strided && m.stride < 1)
            return make_error("gpt config: layer " + str((int)l) + " stride = " + str(m.stride) +
                              " must be >= 1");
        if (m.kind != AttentionMask::causal && m.kind != AttentionMask::banded &&
            m.kind != AttentionMask::strided)
            return make_error("gpt config: layer " + str((int)l) + " has an unknown attention kind");
    }
    if (!(c.momentum >= 0.0f && c.momentum < 1.0f))
        return make_error("gpt config: momentum = " + std::to_string(c.momentum) + " is outside [0, 1)");
    if (!c.kinds.empty() && c.kinds.size() != (size_t)c.layers)
        return make_error("gpt config: " + str((int)c.kinds.size()) + " attention kinds given for " +
                          str(c.layers) + " layers");
    for (size_t l = 0; l < c.kinds.size(); ++l) {
        const AttentionKind k = c.kinds[l];
        if (k != AttentionKind::softmax && k != AttentionKind::linear && k != AttentionKind::delta)
            return make_error("gpt config: layer " + str((int)l) + " has an unknown attention kind " +
                              str((int)k) + " (0 softmax, 1 linear, 2 delta)");
        if (k == AttentionKind::softmax) continue;
        if (c.mask((int)l).kind != AttentionMask::causal)
            return make_error("gpt config: layer " + str((int)l) + " is " + attention_kind_name(k) +
                              " attention, which takes the causal mask only (no banded or strided pattern)");
        if (c.momentum != 0.0f)
            return make_error("gpt config: momentum attention applies to softmax layers only; layer " +
                              str((int)l) + " is " + attention_kind_name(k));
    }
    const size_t n = parameter_count(c);
    if (n > Bounds::max_params)
        return make_error("gpt config: " + std::to_string(n) + " parameters exceed the bound of " +
                          std::to_string(Bounds::max_params));
    return Ok{};
}

std::vector<AttentionMask> alternating_dense_banded(int layers, int window) {
    std::vector<AttentionMask> masks((size_t)std::max(layers, 0));
    for (size_t l = 1; l < masks.size(); l += 2) {
        masks[l].kind = AttentionMask::banded;
        masks[l].window = window;
    }
    return masks;
}

Layout make_layout(const Config& c) {
    Layout lay;
    const int V = c.vocab, T = c.context, C = c.width, F = c.ffn_width();
    auto add = [&](const std::string& name, std::vector<int> shape, bool decay) {
        TensorInfo t;
        t.name = name;
        t.size = 1;
        for (int d : shape) t.size *= (size_t)d;
        t.shape = std::move(shape);
        t.offset = lay.total;
        t.decay = decay;
        lay.total += t.size;
        lay.tensors.push_back(t);
        return lay.tensors.back().offset;
    };
    if (c.has_wte()) lay.wte = add("wte", {V, C}, true);
    const bool gru = c.arch == Arch::gru;
    if (!gru) lay.wpe = add("wpe", {T, C}, true);
    if (c.input_dim > 0) {
        lay.wx = add("wx", {C, c.input_dim}, true);
        lay.bx = add("bx", {C}, false);
    }
    for (int l = 0; gru && l < c.layers; ++l) {  // PyTorch's nn.GRU tensors, gates r, z, n
        const std::string p = "g" + str(l) + ".";
        GruSlots s{};
        s.w_ih = add(p + "w_ih", {3 * C, C}, true);
        s.w_hh = add(p + "w_hh", {3 * C, C}, true);
        s.b_ih = add(p + "b_ih", {3 * C}, false);
        s.b_hh = add(p + "b_hh", {3 * C}, false);
        lay.gru.push_back(s);
    }
    for (int l = 0; !gru && l < c.layers; ++l) {
        const std::string p = "h" + str(l) + ".";
        BlockSlots s{};
        s.ln1_w = add(p + "ln1.w", {C}, false);
        s.ln1_b = add(p + "ln1.b", {C}, false);
        s.wq = add(p + "attn.wq", {C, C}, true);
        s.wk = add(p + "attn.wk", {C, C}, true);
        s.wv = add(p + "attn.wv", {C, C}, true);
        s.bq = add(p + "attn.bq", {C}, false);
        s.bk = add(p + "attn.bk", {C}, false);
        s.bv = add(p + "attn.bv", {C}, false);
        s.wo = add(p + "attn.wo", {C, C}, true);
        s.bo = add(p + "attn.bo", {C}, false);
        if (c.kind(l) == AttentionKind::delta) {
            s.wb = add(p + "attn.wb", {c.heads, C}, true);
            s.bb = add(p + "attn.bb", {c.heads}, false);
        }
        if (!c.attention_only) {
            s.ln2_w = add(p + "ln2.w", {C}, false);
            s.ln2_b = add(p + "ln2.b", {C}, false);
            s.w1 = add(p + "mlp.w1", {F, C}, true);
            s.b1 = add(p + "mlp.b1", {F}, false);
            s.w2 = add(p + "mlp.w2", {C, F}, true);
            s.b2 = add(p + "mlp.b2", {C}, false);
        }
        lay.blocks.push_back(s);
    }
    lay.lnf_w = add("lnf.w", {C}, false);
    lay.lnf_b = add("lnf.b", {C}, false);
    if (c.output_dim > 0) {
        lay.wy = add("wy", {c.output_dim, C}, true);
        lay.by = add("by", {c.output_dim}, false);
    }
    return lay;
}

size_t parameter_count(const Config& c) {
    const size_t V = (size_t)c.vocab, T = (size_t)c.context, C = (size_t)c.width;
    const size_t F = (size_t)c.mlp_ratio * C;
    const size_t io = (c.has_wte() ? V * C : 0) + 2 * C  // wte, lnf
                      + (c.input_dim > 0 ? C * (c.input_dim + 1) : 0)  // wx, bx
                      + (size_t)c.output_dim * (C + 1);                 // wy, by
    if (c.arch == Arch::gru) return io + (size_t)c.layers * 6 * C * (C + 1);
    size_t block = 2 * C + 4 * C * C + 4 * C;
    if (!c.attention_only) block += 2 * C + 2 * F * C + F + C;
    size_t delta = 0;  // β projections, (H,C) + (H) per delta layer
    if (c.kinds.size() == (size_t)c.layers)
        for (AttentionKind k : c.kinds)
            if (k == AttentionKind::delta) delta += (size_t)c.heads * (C + 1);
    return io + T * C + (size_t)c.layers * block + delta;
}

const TensorInfo* Model::find(const std::string& name) const {
    for (const TensorInfo& t : layout.tensors)
        if (t.name == name) return &t;
    return nullptr;
}

Expected<Model> make_model(const Config& config, uint64_t seed) {
    if (Status s = validate(config); !s) return s.error();
    Model m;
    m.config = config;
    m.layout = make_layout(config);
    m.params.assign(m.layout.total, 0.0f);
    Rng rng(seed);
    const float std_proj = 0.02f / std::sqrt(2.0f * (float)config.layers);
    const float gru_bound = 1.0f / std::sqrt((float)config.width);
    for (const TensorInfo& t : m.layout.tensors) {
        float* p = m.at(t.offset);
        if (t.name[0] == 'g') {  // a GRU layer's weights and biases: nn.GRU's U(−1/√C, 1/√C)
            for (size_t i = 0; i < t.size; ++i) p[i] = rng.uniform(-gru_bound, gru_bound);
            continue;
        }
        // the only 1-D tensors named "*.w" are LayerNorm gains
        const bool layernorm_gain = t.shape.size() == 1 && t.name.substr(t.name.size() - 2) == ".w";
        if (layernorm_gain) {
            std::fill(p, p + t.size, 1.0f);
        } else if (t.shape.size() == 2) {
            const bool residual_proj = t.name.find("attn.wo") != std::string::npos ||
                                       t.name.find("mlp.w2") != std::string::npos;
            const float sd = residual_proj ? std_proj : 0.02f;
            for (size_t i = 0; i < t.size; ++i) p[i] = rng.normal(0.0f, sd);
        }  // biases stay 0
    }
    return m;
}

// ---- hooks ---------------------------------------------------------------------------

Status validate(const Hooks& hooks, const Config& c) {
    for (const ResidualAdd& a : hooks.residual_adds) {
        if (a.layer < 0 || a.layer > c.layers)
            return make_error("hook: residual layer " + str(a.layer) + " is outside [0, " +
                              str(c.layers) + "]");
        if (a.position < 0 || a.position >= c.context)
            return make_error("hook: residual position " + str(a.position) + " is outside [0, " +
                              str(c.context - 1) + "]");
        if (a.vector.size() != (size_t)c.width)
            return make_error("hook: residual vector has " + str((int)a.vector.size()) +
                              " entries, width is " + str(c.width));
    }
    for (const HeadAblation& h : hooks.ablations) {
        if (h.layer < 0 || h.layer >= c.layers)
            return make_error("hook: ablation layer " + str(h.layer) + " is outside [0, " +
                              str(c.layers - 1) + "]");
        if (h.head < 0 || h.head >= c.heads)
            return make_error("hook: ablation head " + str(h.head) + " is outside [0, " +
                              str(c.heads - 1) + "]");
    }
    for (const HeadPatch& h : hooks.head_patches) {
        if (h.layer < 0 || h.layer >= c.layers)
            return make_error("hook: patch layer " + str(h.layer) + " is outside [0, " + str(c.layers - 1) + "]");
        if (h.head < 0 || h.head >= c.heads)
            return make_error("hook: patch head " + str(h.head) + " is outside [0, " + str(c.heads - 1) + "]");
        if (h.position < 0 || h.position >= c.context)
            return make_error("hook: patch position " + str(h.position) + " is outside [0, " +
                              str(c.context - 1) + "]");
        if (h.output.size() != (size_t)(c.width / c.heads))
            return make_error("hook: patch output has " + str((int)h.output.size()) + " entries, head size is " +
                              str(c.width / c.heads));
    }
    return Ok{};
}

}  // namespace icl::gpt
