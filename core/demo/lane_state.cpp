#include "icl/lane_state.h"

#include <cmath>

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
