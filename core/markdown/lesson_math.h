// The lesson lint's math check: every $...$ and $$...$$ of a piece of lesson Markdown
// against the desktop app's TeX pass (icl/tex_text.h), the front end that shows the
// least. Native only (md4c finds the math spans as the app's view does).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace icl {

// (line, message) for each construct the pass cannot show, once per line; `markdown`
// starts at line `first_line` of its file.
std::vector<std::pair<int, std::string>> math_problems(const std::string& markdown, int first_line);

}  // namespace icl
