#include "icl/lang.h"

namespace icl {

Expected<Lang> parse_lang(const std::string& s) {
    if (s == "en") return Lang::en;
    if (s == "ko") return Lang::ko;
    return make_error("unknown language '" + s + "' (expected en or ko)");
}

}  // namespace icl
