// libFuzzer target: the progress reader (icl/progress.h), the document every front end
// stores and imports. Any bytes must come back as a document or an Error naming the
// problem — never a crash, a hang or unbounded memory, however deep or large. An input
// starting with byte 0xFF is repeated to past 1 MiB first (the size bound); one
// starting with 0xFE is wrapped in 20,000 levels of nesting (the depth bound). A
// document that is read must survive write -> read unchanged, a merge with itself, the
// schedule, the CSV summary and the check against a lesson's checks.
#include <cstddef>
#include <cstdint>
#include <string>

#include "icl/progress.h"

namespace pg = icl::progress;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    if (!text.empty() && static_cast<uint8_t>(text[0]) == 0xFF) {
        const std::string unit = text.substr(1).empty() ? std::string("[") : text.substr(1);
        text.clear();
        while (text.size() <= pg::Bounds{}.max_bytes) text += unit;
    } else if (!text.empty() && static_cast<uint8_t>(text[0]) == 0xFE) {
        text = std::string(20000, '[') + text.substr(1) + std::string(20000, ']');
    }
    auto r = pg::read(text);
    if (!r) {
        if (r.error().message.empty()) __builtin_trap();
        return 0;
    }
    pg::Document d = r.value().doc;
    const std::string written = pg::write(d);
    auto again = pg::read(written);
    if (!again || again.value().skipped != 0 || pg::write(again.value().doc) != written) __builtin_trap();
    pg::Document copy = d;
    pg::merge(copy, d);
    if (pg::write(copy) != written) __builtin_trap();
    pg::due_checks(d, 1764590400000);
    pg::summary_csv(d);
    const nlohmann::json check = {{"id", "q"}, {"type", "multi"},
                                  {"options", {{{"key", "a"}}, {{"key", "b"}}}}, {"grading", {{"answer", {"a"}}}}};
    for (const auto& [lesson, records] : d.checks) pg::drop_unfit_answers(d, lesson, {check});
    pg::record_answer(d, "l", "q", "a", true, 5);
    return 0;
}
