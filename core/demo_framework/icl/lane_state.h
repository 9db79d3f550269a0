// A lane's state (Session::lane_state / take_lane) field by field, written and read by one
// description: a demo lists its fields once, in a function that takes a LaneState, and
// calls it with a writer to send them and with a reader to take them back. Numbers travel
// exactly (nlohmann writes the shortest text that reads back as the same double); a
// non-finite one travels as null and reads back as NaN.
//
// A reader stops at the first problem and keeps its message (status()); the fields before
// it are already in the demo's variables, so a demo reads into a copy and keeps it only
// when status() is Ok. A field's size may name a field read before it (`numbers("loss",
// loss, steps.size())`): a reader has filled that one by then.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/expected.h"

namespace icl {

// `list` as numbers (null reads as NaN), exactly n of them (n < 0: any count); an error
// names it as `what` ("'loss'", "'curves' item 0").
Expected<std::vector<double>> read_json_list(const nlohmann::json& list, const std::string& what, long n);

class LaneState {
public:
    LaneState() = default;                                         // a writer: the fields go into json()
    explicit LaneState(const nlohmann::json& in) : in_(&in) {}     // a reader of `in`
    bool reading() const { return in_ != nullptr; }

    // A number.
    void number(const char* key, double& v);
    // A list of exactly n numbers (n < 0: any count).
    void numbers(const char* key, std::vector<double>& v, long n = -1);
    // A list of at most `most` numbers; the message counts them in `unit` ("seeds").
    void numbers_at_most(const char* key, std::vector<double>& v, long most, const char* unit);
    // A list of `count` lists (at_most: of at most `count`; the message counts them in
    // `unit`, "heads"), each of exactly n numbers.
    void rows(const char* key, std::vector<std::vector<double>>& v, long count, bool at_most, const char* unit, long n);
    // A list of exactly n 32-bit floats (n < 0: any count), bit for bit: a model's weights
    // or an optimizer's moments, as the base64 of their little-endian bytes (a third of the
    // size of decimal numbers).
    void floats(const char* key, std::vector<float>& v, long n = -1);
    // A whole number in [lo, hi].
    void integer(const char* key, long long& v, long long lo, long long hi);
    // An object of its own, its fields listed by `fields`.
    void object(const char* key, const std::function<void(LaneState&)>& fields);
    // A reader: a problem the demo found in what it read (its message as the others':
    // "'betas' has 3 numbers, not 0 or 2"). Only the first problem is kept.
    void fail(const std::string& what);

    // A reader: Ok, or the first problem.
    Status status() const;
    // A writer: the fields so far.
    const nlohmann::json& json() const { return out_; }

private:
    // A reader that has failed reads nothing more.
    bool skip() const { return reading() && !error_.empty(); }
    const nlohmann::json* in_ = nullptr;
    nlohmann::json out_ = nlohmann::json::object();
    std::string error_;
};

}  // namespace icl
