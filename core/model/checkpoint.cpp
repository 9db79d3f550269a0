#include "icl/checkpoint.h"

#include <cmath>
#include <cstring>

namespace icl::checkpoint {

namespace {

constexpr char kMagic[8] = {'I', 'C', 'L', 'G', 'P', 'T', 'C', 'K'};

// Bytes read from a file, as a message may show them: printable ASCII as it is, a
// backslash doubled, every other byte as \xNN (a damaged file's bytes never reach a
// terminal raw: no invalid UTF-8, no escape sequence).
std::string escaped(const std::string& bytes) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (const char ch : bytes) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\\') out += "\\\\";
        else if (c >= 0x20 && c < 0x7f) out += ch;
        else out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    }
    return out;
}

class Writer {
public:
    void bytes(const void* p, size_t n) {
        const uint8_t* b = static_cast<const uint8_t*>(p);
        out.insert(out.end(), b, b + n);
    }
    void u32(uint32_t v) {
        for (int i = 0; i < 4; ++i) out.push_back((uint8_t)(v >> (8 * i)));
    }
    void u64(uint64_t v) {
        for (int i = 0; i < 8; ++i) out.push_back((uint8_t)(v >> (8 * i)));
    }
    void f32(float f) {
        uint32_t v;
        std::memcpy(&v, &f, 4);
        u32(v);
    }
    std::vector<uint8_t> out;
};

// Reads fixed-width little-endian fields; the first read past the end records
// what it was reading, and every later read is a no-op returning 0.
class Reader {
public:
    Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    bool need(size_t n, const char* what) {
        if (!error.empty()) return false;
        if (size_ - pos_ < n) {
            error = std::string("checkpoint: truncated: ") + what + " needs " + std::to_string(n) +
                    " bytes at offset " + std::to_string(pos_) + " but the data ends at " +
                    std::to_string(size_);
            return false;
        }
        return true;
    }
    uint32_t u32(const char* what) {
        if (!need(4, what)) return 0;
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= (uint32_t)data_[pos_ + i] << (8 * i);
        pos_ += 4;
        return v;
    }
    uint64_t u64(const char* what) {
        if (!need(8, what)) return 0;
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= (uint64_t)data_[pos_ + i] << (8 * i);
        pos_ += 8;
        return v;
    }
    std::string str(size_t n, const char* what) {
        if (!need(n, what)) return {};
        std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
        pos_ += n;
        return s;
    }
    size_t pos() const { return pos_; }
    std::string error;

private:
    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
};

// IEEE binary16 <-> binary32. to_half rounds to nearest, ties to even, and fails for
// what binary16 cannot hold (not finite, or rounding past 65504).
bool to_half(float f, uint16_t& h) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7FFFFFFFu;
    if (ax >= 0x477FF000u) return false;  // inf, NaN, or >= 65520 (rounds to inf)
    if (ax < 0x38800000u) {               // below 2^-14: a subnormal half (or zero)
        float a;
        std::memcpy(&a, &ax, 4);
        h = (uint16_t)(sign | (uint32_t)std::nearbyint(a * 16777216.0f));  // units of 2^-24, exact
        return true;
    }
    uint32_t v = ((ax >> 23) - 112) << 10 | (ax >> 13 & 0x3FFu);  // rebias 127 -> 15
    const uint32_t rest = ax & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (v & 1u))) ++v;  // a carry moves into the exponent
    h = (uint16_t)(sign | v);
    return true;
}

float from_half(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = h >> 10 & 0x1Fu, m = h & 0x3FFu;
    uint32_t x;
    if (e == 0) {
        const float v = (float)m * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    if (e == 31) x = sign | 0x7F800000u | m << 13;
    else x = sign | (e + 112) << 23 | m << 13;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

std::string shape_str(const std::vector<int>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

// A field-by-field description of how two configs differ ("" if they do not).
std::string config_diff(const gpt::Config& want, const gpt::Config& got) {
    std::string d;
    auto field = [&d](const char* name, long a, long b) {
        if (a != b)
            d += std::string(d.empty() ? "" : ", ") + name + " " + std::to_string(b) +
                 " (the model has " + std::to_string(a) + ")";
    };
    field("vocab", want.vocab, got.vocab);
    field("context", want.context, got.context);
    field("width", want.width, got.width);
    field("layers", want.layers, got.layers);
    field("heads", want.heads, got.heads);
    field("mlp_ratio", want.mlp_ratio, got.mlp_ratio);
    field("attention_only", want.attention_only, got.attention_only);
    field("arch", (long)want.arch, (long)got.arch);
    field("input_dim", want.input_dim, got.input_dim);
    field("token_input", want.token_input, got.token_input);
    field("output_dim", want.output_dim, got.output_dim);
    field("token_output", want.token_output, got.token_output);
    if (d.empty())
        for (int l = 0; l < want.layers; ++l)
            if (want.kind(l) != got.kind(l))
                d += std::string(d.empty() ? "" : ", ") + "layer " + std::to_string(l) + " " +
                     gpt::attention_kind_name(got.kind(l)) + " attention (the model has " +
                     gpt::attention_kind_name(want.kind(l)) + ")";
    if (d.empty())
        for (int l = 0; l < want.layers; ++l) {
            const AttentionMask a = want.mask(l), b = got.mask(l);
            if (a.kind != b.kind || (a.kind == AttentionMask::banded && a.window != b.window) ||
                (a.kind == AttentionMask::strided && a.stride != b.stride))
                d += std::string(d.empty() ? "" : ", ") + "layer " + std::to_string(l) +
                     " attention pattern";
        }
    return d;
}

}  // namespace

uint64_t fnv1a64(const uint8_t* data, size_t size) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < size; ++i) {
        h ^= data[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

const char* encoding_name(Encoding e) { return e == Encoding::f16 ? "f16" : "f32"; }

Expected<Encoding> parse_encoding(const std::string& name) {
    if (name == "f32") return Encoding::f32;
    if (name == "f16") return Encoding::f16;
    return make_error("checkpoint: weight encoding '" + escaped(name) + "' is not one of f32, f16");
}

std::vector<uint8_t> save(const gpt::Model& model) { return save(model, Encoding::f32).value(); }

Expected<std::vector<uint8_t>> save(const gpt::Model& model, Encoding encoding) {
    const gpt::Config& c = model.config;
    const bool f16 = encoding == Encoding::f16;
    // a GRU, a vector input or a regression readout: version 4 records them
    const bool io = c.arch != gpt::Arch::transformer || c.input_dim != 0 || !c.token_input ||
                    c.output_dim != 0 || !c.token_output;
    bool kinds = io;  // a linear or delta layer: version 3 records each layer's kind (4 too)
    for (int l = 0; l < c.layers; ++l) kinds = kinds || c.kind(l) != gpt::AttentionKind::softmax;
    Writer w;
    w.bytes(kMagic, 8);
    w.u32(io ? 4 : kinds ? 3 : f16 ? 2 : 1);
    w.u32(0);  // header size, patched below
    for (int v : {c.vocab, c.context, c.width, c.layers, c.heads, c.mlp_ratio, (int)c.attention_only})
        w.u32((uint32_t)v);
    if (io)
        for (int v : {(int)c.arch, c.input_dim, (int)c.token_input, c.output_dim, (int)c.token_output})
            w.u32((uint32_t)v);
    for (int l = 0; l < c.layers; ++l) {
        const AttentionMask m = c.mask(l);
        w.u32((uint32_t)m.kind);
        w.u32((uint32_t)m.window);
        w.u32((uint32_t)m.stride);
        if (kinds) w.u32((uint32_t)c.kind(l));
    }
    w.u32((uint32_t)model.layout.tensors.size());
    for (const gpt::TensorInfo& t : model.layout.tensors) {
        w.u32((uint32_t)t.name.size());
        w.bytes(t.name.data(), t.name.size());
        w.u32((uint32_t)t.shape.size());
        for (int d : t.shape) w.u32((uint32_t)d);
        w.u64(t.offset);
        w.u64(t.size);
    }
    if (f16 || kinds) w.u32((uint32_t)encoding);
    const uint32_t header_size = (uint32_t)w.out.size();
    for (int i = 0; i < 4; ++i) w.out[12 + i] = (uint8_t)(header_size >> (8 * i));
    w.out.reserve(w.out.size() + (f16 ? 2 : 4) * model.params.size() + 8);
    if (f16) {
        for (const gpt::TensorInfo& t : model.layout.tensors)
            for (size_t i = 0; i < t.size; ++i) {
                uint16_t h = 0;
                if (!to_half(model.params[t.offset + i], h))
                    return make_error("checkpoint: tensor '" + t.name + "' value " +
                                      std::to_string(model.params[t.offset + i]) + " at index " +
                                      std::to_string(i) + " does not fit f16 (|w| <= 65504); store it as f32");
                w.out.push_back((uint8_t)h);
                w.out.push_back((uint8_t)(h >> 8));
            }
    } else {
        for (float f : model.params) w.f32(f);
    }
    w.u64(fnv1a64(w.out.data(), w.out.size()));
    return std::move(w.out);
}

Expected<gpt::Model> load(const uint8_t* data, size_t size, Encoding* stored_as) {
    Reader r(data, size);
    const std::string magic = r.str(8, "the magic");
    if (!r.error.empty()) return make_error(r.error);
    if (std::memcmp(magic.data(), kMagic, 8) != 0)
        return make_error("checkpoint: bad magic (not an ICL GPT checkpoint)");
    const uint32_t version = r.u32("the version");
    if (!r.error.empty()) return make_error(r.error);
    if (version < 1 || version > 4)
        return make_error("checkpoint: version " + std::to_string(version) +
                          " is not supported (this build reads versions 1 to 4)");
    const uint32_t header_size = r.u32("the header size");

    gpt::Config c;
    c.vocab = (int)r.u32("the config");
    c.context = (int)r.u32("the config");
    c.width = (int)r.u32("the config");
    c.layers = (int)r.u32("the config");
    c.heads = (int)r.u32("the config");
    c.mlp_ratio = (int)r.u32("the config");
    const uint32_t attention_only = r.u32("the config");
    if (!r.error.empty()) return make_error(r.error);
    if (attention_only > 1)
        return make_error("checkpoint: config attention_only = " + std::to_string(attention_only) +
                          " must be 0 or 1");
    c.attention_only = attention_only == 1;
    if (version == 4) {
        const uint32_t arch = r.u32("the inputs and readouts");
        c.input_dim = (int)r.u32("the inputs and readouts");
        const uint32_t token_input = r.u32("the inputs and readouts");
        c.output_dim = (int)r.u32("the inputs and readouts");
        const uint32_t token_output = r.u32("the inputs and readouts");
        if (!r.error.empty()) return make_error(r.error);
        if (arch > 1) return make_error("checkpoint: config arch = " + std::to_string(arch) + " is unknown (0 transformer, 1 gru)");
        if (token_input > 1 || token_output > 1)
            return make_error("checkpoint: config token_input = " + std::to_string(token_input) + ", token_output = " +
                              std::to_string(token_output) + " must each be 0 or 1");
        c.arch = (gpt::Arch)arch;
        c.token_input = token_input == 1;
        c.token_output = token_output == 1;
    }
    if (c.layers < 1 || c.layers > gpt::Bounds::max_layers)
        return make_error("checkpoint: config layers = " + std::to_string(c.layers) + " is outside [1, " +
                          std::to_string(gpt::Bounds::max_layers) + "]");
    for (int l = 0; l < c.layers; ++l) {
        const uint32_t kind = r.u32("an attention pattern");
        AttentionMask m;
        m.window = (int)r.u32("an attention pattern");
        m.stride = (int)r.u32("an attention pattern");
        if (!r.error.empty()) return make_error(r.error);
        if (kind > 2)
            return make_error("checkpoint: layer " + std::to_string(l) + " attention kind " +
                              std::to_string(kind) + " is unknown");
        m.kind = (AttentionMask::Kind)kind;
        c.attention.push_back(m);
        if (version >= 3) {
            const uint32_t attn = r.u32("an attention kind");
            if (!r.error.empty()) return make_error(r.error);
            if (attn > 2)
                return make_error("checkpoint: layer " + std::to_string(l) + " attention kind " +
                                  std::to_string(attn) + " is unknown (0 softmax, 1 linear, 2 delta)");
            c.kinds.push_back((gpt::AttentionKind)attn);
        }
    }
    if (Status s = gpt::validate(c); !s) return make_error("checkpoint: " + s.error().message);

    gpt::Model model;
    model.config = c;
    model.layout = gpt::make_layout(c);
    const std::vector<gpt::TensorInfo>& want = model.layout.tensors;
    const uint32_t count = r.u32("the tensor count");
    if (!r.error.empty()) return make_error(r.error);
    if (count != want.size())
        return make_error("checkpoint: the table lists " + std::to_string(count) +
                          " tensors, the config implies " + std::to_string(want.size()));
    for (const gpt::TensorInfo& t : want) {
        const uint32_t name_len = r.u32("a tensor name length");
        if (!r.error.empty()) return make_error(r.error);
        if (name_len > 256)
            return make_error("checkpoint: a tensor name length of " + std::to_string(name_len) +
                              " bytes (expected '" + t.name + "')");
        const std::string name = r.str(name_len, "a tensor name");
        const uint32_t ndim = r.u32("a tensor's rank");
        if (!r.error.empty()) return make_error(r.error);
        if (name != t.name)
            return make_error("checkpoint: tensor '" + escaped(name) + "' where the config implies '" +
                              t.name + "'");
        if (ndim > 4)
            return make_error("checkpoint: tensor '" + name + "' has rank " + std::to_string(ndim));
        std::vector<int> shape;
        for (uint32_t i = 0; i < ndim; ++i) shape.push_back((int)r.u32("a tensor shape"));
        const uint64_t offset = r.u64("a tensor offset");
        const uint64_t n = r.u64("a tensor size");
        if (!r.error.empty()) return make_error(r.error);
        if (shape != t.shape)
            return make_error("checkpoint: tensor '" + name + "' has shape " + shape_str(shape) +
                              " but the config implies " + shape_str(t.shape));
        if (offset != t.offset || n != t.size)
            return make_error("checkpoint: tensor '" + name + "' at offset " + std::to_string(offset) +
                              " with " + std::to_string(n) + " floats, expected offset " +
                              std::to_string(t.offset) + " with " + std::to_string(t.size));
    }
    Encoding encoding = Encoding::f32;
    if (version == 2) {
        const uint32_t e = r.u32("the weight encoding");
        if (!r.error.empty()) return make_error(r.error);
        if (e != (uint32_t)Encoding::f16)
            return make_error("checkpoint: version 2 weight encoding " + std::to_string(e) +
                              " is unknown (1 = f16; f32 weights are version 1)");
        encoding = Encoding::f16;
    } else if (version >= 3) {
        const uint32_t e = r.u32("the weight encoding");
        if (!r.error.empty()) return make_error(r.error);
        if (e > (uint32_t)Encoding::f16)
            return make_error("checkpoint: version " + std::to_string(version) + " weight encoding " + std::to_string(e) +
                              " is unknown (0 = f32, 1 = f16)");
        encoding = (Encoding)e;
    }
    if (header_size != r.pos())
        return make_error("checkpoint: the header says it is " + std::to_string(header_size) +
                          " bytes but it is " + std::to_string(r.pos()));
    const size_t width = encoding == Encoding::f16 ? 2 : 4;
    const size_t data_bytes = width * model.layout.total;
    if (!r.need(data_bytes + 8, "the tensor data and checksum")) return make_error(r.error);
    if (size != r.pos() + data_bytes + 8)
        return make_error("checkpoint: " + std::to_string(size - (r.pos() + data_bytes + 8)) +
                          " unexpected bytes after the checksum");
    const uint8_t* payload = data + r.pos();
    const uint64_t stored = [&] {
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= (uint64_t)payload[data_bytes + i] << (8 * i);
        return v;
    }();
    const uint64_t actual = fnv1a64(data, r.pos() + data_bytes);
    if (stored != actual)
        return make_error("checkpoint: checksum mismatch (the data is corrupt)");
    model.params.resize(model.layout.total);
    for (size_t i = 0; i < model.params.size(); ++i) {
        if (encoding == Encoding::f16) {
            model.params[i] = from_half((uint16_t)(payload[2 * i] | payload[2 * i + 1] << 8));
            continue;
        }
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k) v |= (uint32_t)payload[4 * i + k] << (8 * k);
        std::memcpy(&model.params[i], &v, 4);
    }
    for (const gpt::TensorInfo& t : want)
        for (size_t i = 0; i < t.size; ++i)
            if (!std::isfinite(model.params[t.offset + i]))
                return make_error("checkpoint: tensor '" + t.name + "' holds a non-finite value at index " +
                                  std::to_string(i));
    if (stored_as) *stored_as = encoding;
    return model;
}

Status load_into(gpt::Model& into, const uint8_t* data, size_t size) {
    Expected<gpt::Model> m = load(data, size);
    if (!m) return m.error();
    const std::string diff = config_diff(into.config, m.value().config);
    if (!diff.empty()) {
        std::string shapes;
        const auto& mine = into.layout.tensors;
        const auto& theirs = m.value().layout.tensors;
        for (size_t i = 0; i < mine.size() && i < theirs.size() && shapes.empty(); ++i)
            if (mine[i].name != theirs[i].name || mine[i].shape != theirs[i].shape)
                shapes = "; first mismatch: the file's '" + theirs[i].name + "' " +
                         shape_str(theirs[i].shape) + " vs the model's '" + mine[i].name + "' " +
                         shape_str(mine[i].shape);
        return make_error("checkpoint: the file's config differs from the model's: " + diff + shapes);
    }
    into.params = std::move(m.value().params);
    return Ok{};
}

}  // namespace icl::checkpoint
