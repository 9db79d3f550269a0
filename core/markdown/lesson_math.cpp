#include "lesson_math.h"

#include <algorithm>
#include <set>

#include "icl/lesson_markdown.h"
#include "icl/tex_text.h"

namespace icl {

namespace {

struct Scan {
    const std::string* markdown = nullptr;
    int first_line = 0;
    bool in_math = false;
    std::string math;                                  // the span's TeX, as md4c gives it
    std::vector<std::pair<size_t, size_t>> chunks;     // (offset in math, offset in markdown) of each piece
    std::set<std::pair<int, std::string>> seen;
    std::vector<std::pair<int, std::string>> problems;

    int line_at(size_t offset) const {
        return first_line + static_cast<int>(std::count(markdown->begin(), markdown->begin() + static_cast<long>(offset), '\n'));
    }

    // Where TeX offset `at` stands in the markdown: in the piece that holds it (md4c's
    // " " for a line break inside the span is no piece of the source).
    size_t source_offset(size_t at) const {
        size_t source = 0;
        for (const auto& [in_math, in_source] : chunks)
            if (in_math <= at) source = in_source + (at - in_math);
        return std::min(source, markdown->size());
    }

    void finish_span() {
        for (const TexUnknown& u : tex_layout(math).unknown) {
            const int line = line_at(source_offset(u.at));
            if (seen.insert({line, u.construct}).second)
                problems.push_back({line, "math: the desktop app cannot show " + u.construct +
                                              " (docs/authoring.md lists the TeX its pass knows)"});
        }
    }
};

int enter_span(MD_SPANTYPE type, void*, void* user) {
    Scan& s = *static_cast<Scan*>(user);
    if (type == MD_SPAN_LATEXMATH || type == MD_SPAN_LATEXMATH_DISPLAY) {
        s.in_math = true;
        s.math.clear();
        s.chunks.clear();
    }
    return 0;
}

int leave_span(MD_SPANTYPE type, void*, void* user) {
    Scan& s = *static_cast<Scan*>(user);
    if (type == MD_SPAN_LATEXMATH || type == MD_SPAN_LATEXMATH_DISPLAY) {
        s.finish_span();
        s.in_math = false;
    }
    return 0;
}

int text(MD_TEXTTYPE, const MD_CHAR* data, MD_SIZE size, void* user) {
    Scan& s = *static_cast<Scan*>(user);
    if (!s.in_math) return 0;
    const char* begin = s.markdown->data();
    if (data >= begin && data + size <= begin + s.markdown->size())
        s.chunks.push_back({s.math.size(), static_cast<size_t>(data - begin)});
    s.math.append(data, size);
    return 0;
}

int no_block(MD_BLOCKTYPE, void*, void*) { return 0; }

}  // namespace

std::vector<std::pair<int, std::string>> math_problems(const std::string& markdown, int first_line) {
    Scan scan;
    scan.markdown = &markdown;
    scan.first_line = first_line;
    parse_lesson_markdown(markdown, &scan, no_block, no_block, enter_span, leave_span, text);
    return std::move(scan.problems);
}

}  // namespace icl
