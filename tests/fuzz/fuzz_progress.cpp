// libFuzzer target: the progress reader (icl/progress.h), the document every front end
// stores and imports. Any bytes must come back as a document or an Error naming the
// problem — never a crash, a hang or unbounded memory, however deep or large. An input
// starting with byte 0xFF is repeated to past 1 MiB first (the size bound); one
// starting with 0xFE is wrapped in 20,000 levels of nesting (the depth bound); with 0xFD
// the rest is a record repeated to just under 1 MiB (the writer's bound). A
// document that is read must survive write -> read unchanged, a merge with itself, the
// schedule, the CSV summary and the check against a lesson's checks; and whatever the
// writers (progress::fits, the worker API's merge and record) let through reads back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "icl/progress.h"
#include "icl/worker_api.h"

namespace pg = icl::progress;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    if (!text.empty() && static_cast<uint8_t>(text[0]) == 0xFF) {
        const std::string unit = text.substr(1).empty() ? std::string("[") : text.substr(1);
        text.clear();
        while (text.size() <= pg::Bounds{}.max_bytes) text += unit;
    } else if (!text.empty() && static_cast<uint8_t>(text[0]) == 0xFE) {
        text = std::string(20000, '[') + text.substr(1) + std::string(20000, ']');
    } else if (!text.empty() && static_cast<uint8_t>(text[0]) == 0xFD) {
        // The rest as one record, repeated under ids of their own to just under 1 MiB:
        // read, but written back (one record a line) past the bound.
        const std::string record = text.substr(1).empty() ? std::string("{}") : text.substr(1);
        text = R"({"version":2,"checks":{"l":{)";
        for (int i = 0; text.size() + record.size() + 16 < pg::Bounds{}.max_bytes; ++i)
            text += (i ? ",\"c" : "\"c") + std::to_string(i) + "\":" + record;
        text += "}}}";
    }
    auto r = pg::read(text);
    if (!r) {
        if (r.error().message.empty()) __builtin_trap();
        return 0;
    }
    pg::Document d = r.value().doc;
    const std::string written = pg::write(d);
    // What the writer writes, the reader accepts: a document that fits() reads back the
    // same; one that does not (its written form past a bound) is what every writer refuses.
    auto again = pg::read(written);
    if (pg::fits(d).ok() != (again.ok() && again.value().skipped == 0)) __builtin_trap();
    if (again && again.value().skipped == 0 && pg::write(again.value().doc) != written) __builtin_trap();
    // The worker API's writers (the lesson pages store their text as it is): an import of
    // this document, and an answer made of its text, either fail or read back whole.
    icl::WorkerApi api;
    for (const std::string& out : {api.progress_merge("", text, 1764590400000.0),
                                   api.progress_record(again ? written : "", "l", "q",
                                                       nlohmann::json(text.substr(0, 8192)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                                                       true, 1764590400000.0)}) {
        const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
        if (j.is_discarded() || !j.is_object()) __builtin_trap();
        if (j.contains("error")) continue;
        auto stored = pg::read(j.at("text").get<std::string>());
        if (!stored || stored.value().skipped != 0) __builtin_trap();
    }
    if (!again || again.value().skipped != 0) return 0;
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
