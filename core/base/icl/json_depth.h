// How deeply a JSON text nests its arrays and objects (and how many objects it holds),
// found by one pass that skips strings, before anything is parsed: a reader refuses a
// text nested past its bound instead of letting a recursive parse, dump or destructor
// run out of stack.
#pragma once
#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>

namespace icl {

struct JsonShape {
    int depth = 0;         // the deepest nesting of [ and {
    size_t objects = 0;    // how many { the text opens
};

// The scan stops once the depth passes `limit` (the shape is then partial, its depth > limit).
inline JsonShape json_shape(const std::string& text, int limit = INT_MAX) {
    JsonShape s;
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size() && s.depth <= limit; ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            s.depth = std::max(s.depth, ++depth);
            if (c == '{') ++s.objects;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return s;
}

inline int json_depth(const std::string& text, int limit = INT_MAX) { return json_shape(text, limit).depth; }

}  // namespace icl
