// libFuzzer target: the check-answer grader (core/course/quiz.cpp), as the web worker and
// the desktop app call it. The input is a JSON array [check, answer, demo_result]
// (demo_result optional); the raw bytes also go through the typed-answer helpers.
// Properties beyond "no crash": a verdict's texts are valid UTF-8 JSON, and a numeric
// answer that parses is finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "icl/quiz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using nlohmann::json;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto number = icl::parse_typed_number(text);
    if (number && !std::isfinite(number.value())) std::abort();
    (void)icl::normalize_text_answer(text);

    const json input = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (input.is_discarded() || !input.is_array() || input.size() < 2) return 0;
    const json result = input.size() > 2 ? input[2] : json();
    (void)icl::find_result_scalar(result, "x");
    const auto verdict = icl::grade(input[0], input[1], result);
    if (verdict) {
        const json out = {{"correct", verdict.value().correct}, {"feedback_html", verdict.value().feedback_html},
                          {"correct_answer", verdict.value().correct_answer}};
        (void)out.dump();  // throws (and so fails) on invalid UTF-8
    } else if (verdict.error().message.empty()) {
        std::abort();
    }
    return 0;
}
