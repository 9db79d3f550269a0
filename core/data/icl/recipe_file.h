// Rewriting a recipe file (icl train writes its figures back into it).
#pragma once
#include <nlohmann/json.hpp>

#include "icl/recipe.h"

namespace icl::recipe {

// The recipe written over the document it was read from, so fields this program does
// not know (a teacher's note, a later version's field) survive `icl train`; "figures" is
// replaced whole (old figures of a changed recipe would be wrong).
nlohmann::json to_json_over(const Recipe& r, const nlohmann::json& original);

}  // namespace icl::recipe
