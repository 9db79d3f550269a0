// libFuzzer target: the lesson parser (core/markdown/lesson.cpp) on arbitrary bytes.
// Properties beyond "no crash, no sanitizer report": a parse without problems yields
// every problem has a message, the lesson's JSON serialises (valid UTF-8 throughout,
// as `icl lessons build` needs), and parse_lesson fails exactly when problems (math
// problems included) exist.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "icl/lesson.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const icl::LessonParse parsed = icl::parse_lesson_collect(text, "lessons/en/01-fuzz.md");
    for (const auto* list : {&parsed.problems, &parsed.math_problems})
        for (const auto& d : *list)
            if (d.message.empty()) std::abort();
    // The JSON the site build writes: dump() throws on invalid UTF-8, which would end
    // `icl lessons build` with an uncaught exception.
    const std::string json = icl::to_json(parsed.lesson).dump();
    if (json.empty()) std::abort();
    const auto strict = icl::parse_lesson(text, "lessons/en/01-fuzz.md");
    if (strict.ok() != (parsed.problems.empty() && parsed.math_problems.empty())) std::abort();
    return 0;
}
