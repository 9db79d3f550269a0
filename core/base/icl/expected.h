// Errors are values at the boundaries: a function that can fail on input it does not
// control returns Expected<T>, which holds either the value or an Error whose message
// names the problem (a parameter and its range, a file:line, two mismatched shapes).
#pragma once
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace icl {

struct Error {
    std::string message;  // English, whole: what the CLI, logs and tests read
    // An error a learner can cause (a parameter, a typed answer, a prompt) also names its
    // text in the catalogues, "error.<name>" in common.json, with its values, so that a
    // front end words it in the learner's language (icl/texts.h: learner_error, Texts).
    std::string key;
    std::vector<std::pair<std::string, std::string>> args;
};

template <class T>
class Expected {
public:
    Expected(T value) : v_(std::move(value)) {}
    Expected(Error error) : v_(std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(v_); }
    const T& value() const { return std::get<0>(v_); }
    const Error& error() const { return std::get<1>(v_); }

private:
    std::variant<T, Error> v_;
};

// For operations that produce nothing but can fail.
struct Ok {};
using Status = Expected<Ok>;

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace icl
