#include "icl/lane_state.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "icl/demo.h"

namespace icl {

Expected<std::vector<double>> read_json_list(const nlohmann::json& list, const std::string& what, long n) {
    if (!list.is_array()) return make_error(what + " is not a list");
    if (n >= 0 && (long)list.size() != n)
        return make_error(what + " has " + std::to_string(list.size()) + " numbers, not " + std::to_string(n));
    std::vector<double> v;
    for (const auto& x : list) {
        if (!x.is_null() && !x.is_number()) return make_error(what + " holds something that is not a number");
        v.push_back(x.is_null() ? NAN : x.get<double>());
    }
    return v;
}

void LaneState::number(const char* key, double& v) {
    if (skip()) return;
    if (!reading()) {
        out_[key] = json_number(v);
        return;
    }
    auto got = read_json_number(*in_, key);
    if (!got) return fail(got.error().message);
    v = got.value();
}

void LaneState::numbers(const char* key, std::vector<double>& v, long n) {
    if (skip()) return;
    if (!reading()) {
        out_[key] = json_numbers(v);
        return;
    }
    auto got = read_json_numbers(*in_, key, n);
    if (!got) return fail(got.error().message);
    v = std::move(got.value());
}

void LaneState::numbers_at_most(const char* key, std::vector<double>& v, long most, const char* unit) {
    if (skip()) return;
    if (!reading()) {
        out_[key] = json_numbers(v);
        return;
    }
    auto got = read_json_numbers(*in_, key, -1);
    if (!got) return fail(got.error().message);
    if ((long)got.value().size() > most)
        return fail(std::string("'") + key + "' has more than " + std::to_string(most) + " " + unit);
    v = std::move(got.value());
}

void LaneState::rows(const char* key, std::vector<std::vector<double>>& v, long count, bool at_most, const char* unit, long n) {
    if (skip()) return;
    if (!reading()) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& r : v) a.push_back(json_numbers(r));
        out_[key] = std::move(a);
        return;
    }
    const nlohmann::json& in = *in_;
    const bool listed = in.is_object() && in.contains(key) && in[key].is_array();
    if (!listed || (at_most ? (long)in[key].size() > count : (long)in[key].size() != count))
        return fail(std::string("'") + key + "' is not a list of " + (at_most ? "at most " : "") + std::to_string(count) + " " + unit);
    std::vector<std::vector<double>> got;
    for (size_t i = 0; i < in[key].size(); ++i) {
        auto r = read_json_list(in[key][i], std::string("'") + key + "' item " + std::to_string(i), n);
        if (!r) return fail(r.error().message);
        got.push_back(std::move(r.value()));
    }
    v = std::move(got);
}

namespace {

const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const std::vector<float>& v) {
    std::vector<unsigned char> b(v.size() * 4);
    for (size_t i = 0; i < v.size(); ++i) {
        uint32_t u;
        std::memcpy(&u, &v[i], 4);
        for (int k = 0; k < 4; ++k) b[i * 4 + (size_t)k] = (unsigned char)(u >> (8 * k));  // little-endian
    }
    std::string out;
    out.reserve((b.size() + 2) / 3 * 4);
    for (size_t i = 0; i < b.size(); i += 3) {
        const uint32_t n = (uint32_t)b[i] << 16 | (i + 1 < b.size() ? (uint32_t)b[i + 1] << 8 : 0) |
                           (i + 2 < b.size() ? (uint32_t)b[i + 2] : 0);
        out += kBase64[n >> 18 & 63];
        out += kBase64[n >> 12 & 63];
        out += i + 1 < b.size() ? kBase64[n >> 6 & 63] : '=';
        out += i + 2 < b.size() ? kBase64[n & 63] : '=';
    }
    return out;
}

// The floats of base64 text, or none where it is not base64 of whole floats.
std::optional<std::vector<float>> unbase64(const std::string& s) {
    if (s.size() % 4 != 0) return std::nullopt;
    std::vector<unsigned char> b;
    b.reserve(s.size() / 4 * 3);
    for (size_t i = 0; i < s.size(); i += 4) {
        uint32_t n = 0;
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = s[i + (size_t)k];
            const char* at = c ? std::strchr(kBase64, c) : nullptr;
            if (c == '=' && i + 4 == s.size() && k >= 2) {
                ++pad;
                n <<= 6;
                continue;
            }
            if (!at || pad) return std::nullopt;
            n = n << 6 | (uint32_t)(at - kBase64);
        }
        b.push_back((unsigned char)(n >> 16));
        if (pad < 2) b.push_back((unsigned char)(n >> 8));
        if (pad < 1) b.push_back((unsigned char)n);
    }
    if (b.size() % 4 != 0) return std::nullopt;
    std::vector<float> v(b.size() / 4);
    for (size_t i = 0; i < v.size(); ++i) {
        uint32_t u = 0;
        for (int k = 0; k < 4; ++k) u |= (uint32_t)b[i * 4 + (size_t)k] << (8 * k);
        std::memcpy(&v[i], &u, 4);
    }
    return v;
}

}  // namespace

void LaneState::floats(const char* key, std::vector<float>& v, long n) {
    if (skip()) return;
    if (!reading()) {
        out_[key] = base64(v);
        return;
    }
    const std::string what = std::string("'") + key + "'";
    if (!in_->is_object() || !in_->contains(key) || !(*in_)[key].is_string()) return fail(what + " is not a text of numbers");
    auto got = unbase64((*in_)[key].get<std::string>());
    if (!got) return fail(what + " is not base64 of 32-bit numbers");
    if (n >= 0 && (long)got->size() != n)
        return fail(what + " has " + std::to_string(got->size()) + " numbers, not " + std::to_string(n));
    v = std::move(*got);
}

void LaneState::integer(const char* key, long long& v, long long lo, long long hi) {
    if (skip()) return;
    if (!reading()) {
        out_[key] = v;
        return;
    }
    const std::string what = std::string("'") + key + "'";
    if (!in_->is_object() || !in_->contains(key) || !(*in_)[key].is_number()) return fail(what + " is not a number");
    const double d = (*in_)[key].get<double>();
    if (!(d >= (double)lo && d <= (double)hi) || d != std::floor(d))
        return fail(what + " is not a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    v = (long long)d;
}

void LaneState::object(const char* key, const std::function<void(LaneState&)>& fields) {
    if (skip()) return;
    if (!reading()) {
        LaneState inner;
        fields(inner);
        out_[key] = inner.out_;
        return;
    }
    if (!in_->is_object() || !in_->contains(key) || !(*in_)[key].is_object())
        return fail(std::string("'") + key + "' is not an object");
    LaneState inner((*in_)[key]);
    fields(inner);
    if (!inner.error_.empty()) fail(inner.error_);
}

void LaneState::fail(const std::string& what) {
    if (error_.empty()) error_ = what;
}

Status LaneState::status() const {
    if (!error_.empty()) return make_error(error_);
    return Ok{};
}

}  // namespace icl
