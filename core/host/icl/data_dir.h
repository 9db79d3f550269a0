// Where the native programs (icl, icl-lab) find the shipped lessons and their
// checkpoints (native only; core/host/data_dir.cpp).
#pragma once
#include <string>

namespace icl {

// The lessons folder, the first of:
//   1. $ICL_LESSONS_DIR, if set and not empty;
//   2. <the executable's folder>/../share/icl-lab/lessons (a `cmake --install` layout);
//   3. <the executable's folder>/../../lessons (build/bin/<program> in a checkout);
//   4. <source_tree>/lessons (a build tree elsewhere; callers pass ICL_SOURCE_DIR);
//   5. "lessons" (the current folder), when none of these is a folder.
std::string find_lessons_dir(const std::string& source_tree);

}  // namespace icl
