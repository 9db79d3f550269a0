#include "icl/utf8.h"

#include <algorithm>

namespace icl {

long utf8_next(const std::string& s, size_t& i) {
    const unsigned lead = static_cast<unsigned char>(s[i]);
    if (lead < 0x80) {
        ++i;
        return static_cast<long>(lead);
    }
    size_t extra = 0;
    unsigned long cp = 0;
    if ((lead & 0xE0) == 0xC0) { extra = 1; cp = lead & 0x1F; }
    else if ((lead & 0xF0) == 0xE0) { extra = 2; cp = lead & 0x0F; }
    else if ((lead & 0xF8) == 0xF0) { extra = 3; cp = lead & 0x07; }
    else return -1;
    if (i + extra >= s.size()) return -1;
    for (size_t k = 1; k <= extra; ++k) {
        const unsigned b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (b & 0x3F);
    }
    // The smallest code point each length may encode; below it the form is overlong.
    static const unsigned long min_for_length[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < min_for_length[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    i += extra + 1;
    return static_cast<long>(cp);
}

void utf8_append(std::string& out, long cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

size_t utf8_first_invalid(const std::string& s) {
    for (size_t i = 0; i < s.size();)
        if (utf8_next(s, i) < 0) return i;
    return std::string::npos;
}

std::vector<long> code_points(const std::string& s) {
    std::vector<long> out;
    for (size_t i = 0; i < s.size();) {
        const long c = utf8_next(s, i);
        if (c < 0) break;
        out.push_back(c);
    }
    return out;
}

std::string trim(const std::string& s) {
    const auto a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::vector<std::string> split_trimmed(const std::string& s, char sep) {
    std::vector<std::string> parts;
    for (size_t p = 0; p <= s.size();) {
        const size_t end = std::min(s.find(sep, p), s.size());
        parts.push_back(trim(s.substr(p, end - p)));
        p = end + 1;
    }
    return parts;
}

size_t edit_distance(const std::string& text_a, const std::string& text_b) {
    const std::vector<long> a = code_points(text_a), b = code_points(text_b);
    auto lower = [](long c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; };
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

}  // namespace icl
