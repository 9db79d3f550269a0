// Rewriting a recipe file (icl train writes its figures back into it).
#pragma once
#include <nlohmann/json.hpp>

#include "icl/recipe.h"

namespace icl::recipe {

// The recipe written over the document it was read from, so fields this program does
// not know (a teacher's note, a later version's field) survive `icl train`; "figures" is
// replaced whole (old figures of a changed recipe would be wrong).
nlohmann::json to_json_over(const Recipe& r, const nlohmann::json& original);

// The text `icl train` writes back: `r` over `original_text` (the file as read), within
// the bounds parse() reads (kMaxBytes, kMaxDepth) — indented, or compact if indented it
// would not fit — and checked to parse again. An error, and nothing to write, when even
// the compact form is past the bound. Write it with icl::replace_file (never in place).
Expected<std::string> rewrite(const Recipe& r, const std::string& original_text, const std::string& file);

}  // namespace icl::recipe
