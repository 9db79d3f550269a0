// libFuzzer target: the checkpoint recipe (icl/recipe.h), read by `icl train` and written
// back with its figures (icl/recipe_file.h). Any bytes must come back as a recipe or an
// Error naming the file, never a crash or a hang; a recipe that is read must be rewritten
// within the bounds it was read with (what the writer writes, the reader accepts) and read
// back to the same recipe. An input starting with byte 0xFE is wrapped as an unknown field
// nested 100,000 deep (the depth bound); one starting with 0xFD has its rest repeated
// inside an unknown field to just under the 1 MiB bound (the rewrite's size bound).
#include <cstddef>
#include <cstdint>
#include <string>

#include "icl/recipe.h"
#include "icl/recipe_file.h"

namespace rc = icl::recipe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    const std::string head = R"({"name": "f", "note": )";
    if (!text.empty() && static_cast<uint8_t>(text[0]) == 0xFE) {
        text = head + std::string(100000, '[') + text.substr(1) + std::string(100000, ']') + "}";
    } else if (!text.empty() && static_cast<uint8_t>(text[0]) == 0xFD) {
        const std::string unit = text.substr(1).empty() ? std::string("1e5,") : text.substr(1) + ",";
        std::string body;
        while (head.size() + body.size() + unit.size() + 4 < rc::kMaxBytes) body += unit;
        text = head + "[" + body + "0]}";
    }
    auto r = rc::parse(text, "f.json");
    if (!r) {
        if (r.error().message.rfind("f.json: ", 0) != 0) __builtin_trap();
        return 0;
    }
    rc::Recipe recipe = r.value();
    recipe.figures = {{"mean.k0", 0.25}, {"mean.k16", 0.875}};
    recipe.train_seconds = 12.5;
    auto out = rc::rewrite(recipe, text, "f.json");
    if (!out) {
        if (out.error().message.rfind("f.json: ", 0) != 0) __builtin_trap();
        return 0;
    }
    if (out.value().size() > rc::kMaxBytes) __builtin_trap();
    auto again = rc::parse(out.value(), "f.json");
    if (!again || rc::to_json(again.value()) != rc::to_json(recipe)) __builtin_trap();
    return 0;
}
