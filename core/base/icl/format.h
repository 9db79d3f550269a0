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

// The display rule: a number a reader sees with no format of its own (a template's {x}
// without a spec, a plot's tick and read-out on the desktop). The web's plots mirror it
// (web/src/plots/common.js, fmt); a change here is a change there.
//
// | value                        | shown as                                   | examples                  |
// |------------------------------|--------------------------------------------|---------------------------|
// | NaN, +inf, -inf              | "—" (U+2014; the web's null)               | —                         |
// | 0 or -0                      | "0"                                        | 0                         |
// | whole, |v| < 1e15            | every digit, no point, "-" for negatives   | 2000, -3, 123456789       |
// | any other finite value       | printf "%.4g": 4 significant digits,       | 0.1235, 2.5, -0.001,      |
// |                              | trailing zeros dropped, exponent form when | 1.235e+05, 1e-05, 1e+15   |
// |                              | the decimal exponent is < -4 or >= 4, the  |                           |
// |                              | exponent signed and at least two digits    |                           |
std::string display_number(double v);

// How a number written as text is read (read_number).
struct NumberSyntax {
    bool decimal_comma = true;  // one ',' and no '.': the comma is the decimal point ("0,5")
    bool inner_spaces = true;   // spaces within are dropped ("1 000"); around it, always
    bool non_finite = false;    // "inf", "infinity", "nan" (any case, signed) and "∞" are read too
};
// A person's number and a lesson source's: source numbers take no decimal comma and
// no space within.
constexpr NumberSyntax kTypedNumber{};
constexpr NumberSyntax kSourceNumber{false, false, false};

enum class NumberRead { ok, empty, not_number };
// Reads `text` as one number: after the spaces (any Unicode space) the syntax drops and
// U+2212 (−) read as '-', only digits, one sign, a point and an exponent ("-1.5e-3"),
// all of it, C locale, finite (unless syntax.non_finite). Sets `value` only when ok;
// `text` that is not UTF-8 is not_number.
NumberRead read_number(const std::string& text, double& value, NumberSyntax syntax = kTypedNumber);

// Text as the content of an HTML or XML element or a quoted attribute: & < > " ' escaped.
std::string markup_escape(const std::string& s);

}  // namespace icl
