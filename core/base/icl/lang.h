// The learner's language, for the few places the core still writes text itself.
// A small header of its own so that training code (divergence hints) depends on it and
// not on the whole demo framework.
#pragma once
#include <string>

#include "icl/expected.h"

namespace icl {

enum class Lang { en, ko };
Expected<Lang> parse_lang(const std::string& s);  // "en" | "ko"; anything else an error naming it
inline const char* tr(Lang lang, const char* en, const char* ko) { return lang == Lang::ko ? ko : en; }

}  // namespace icl
