#include "icl/format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "icl/utf8.h"

namespace icl {

std::string format_number(double v, const char* printf_format) {
    char buf[64];
    std::snprintf(buf, sizeof buf, printf_format, v);
    return buf;
}

std::string display_number(double v) {
    if (!std::isfinite(v)) return "—";
    if (v == 0) return "0";
    char buf[64];
    std::snprintf(buf, sizeof buf, v == std::floor(v) && std::fabs(v) < 1e15 ? "%.0f" : "%.4g", v);
    return buf;
}

namespace {
bool is_space(long cp) {
    return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
           cp == 0x3000 || cp == 0xFEFF;
}
std::string ascii_lower(std::string s) {
    for (char& c : s) c = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    return s;
}
}  // namespace

NumberRead read_number(const std::string& text, double& value, NumberSyntax syntax) {
    // The code points, U+2212 as '-', the spaces around dropped (and within, if the syntax says so).
    std::vector<long> cps;
    for (size_t i = 0; i < text.size();) {
        const long cp = utf8_next(text, i);
        if (cp < 0) return NumberRead::not_number;
        cps.push_back(cp == 0x2212 ? '-' : cp);
    }
    size_t a = 0, b = cps.size();
    while (a < b && is_space(cps[a])) ++a;
    while (b > a && is_space(cps[b - 1])) --b;
    if (a == b) return NumberRead::empty;
    std::string s;
    for (size_t i = a; i < b; ++i) {
        if (is_space(cps[i])) {
            if (!syntax.inner_spaces) return NumberRead::not_number;
            continue;
        }
        utf8_append(s, cps[i]);
    }
    if (syntax.non_finite) {
        std::string w = ascii_lower(s);
        const double sign = !w.empty() && w[0] == '-' ? -1.0 : 1.0;
        if (!w.empty() && (w[0] == '-' || w[0] == '+')) w.erase(0, 1);
        if (w == "inf" || w == "infinity" || w == "∞") {
            value = sign * INFINITY;
            return NumberRead::ok;
        }
        if (w == "nan") {
            value = NAN;
            return NumberRead::ok;
        }
    }
    const size_t comma = s.find(',');
    if (syntax.decimal_comma && comma != std::string::npos && s.find('.') == std::string::npos &&
        s.find(',', comma + 1) == std::string::npos)
        s[comma] = '.';
    // Only digits, sign, point and exponent: strtod alone would also take "inf", "nan", hex.
    for (char c : s)
        if (!((c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E')) return NumberRead::not_number;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return NumberRead::not_number;
    value = v;
    return NumberRead::ok;
}

std::string markup_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

}  // namespace icl
