// Numbers as text: the one way the core writes a number into a label, a table cell or a
// message. `printf_format` is a printf conversion of one double, e.g. "%.3f", "%.4g",
// "%+.1f%%"; the default, four significant digits, is what panels show.
#pragma once
#include <string>

namespace icl {

std::string format_number(double v, const char* printf_format = "%.4g");
// Every digit a learner could have typed ("%.10g"): parameters and answers quoted back
// in messages.
inline std::string all_digits(double v) { return format_number(v, "%.10g"); }

// Text as the content of an HTML or XML element or a quoted attribute: & < > " ' escaped.
std::string markup_escape(const std::string& s);

}  // namespace icl
