// How deeply a JSON text nests its arrays and objects, found by one pass that skips
// strings, before anything is parsed: a reader refuses a text nested past its bound
// instead of letting a recursive parse, dump or destructor run out of stack.
#pragma once
#include <algorithm>
#include <string>

namespace icl {

inline int json_depth(const std::string& text) {
    int depth = 0, deepest = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

}  // namespace icl
