#include "icl/lesson_prose.h"

#include <algorithm>
#include <cctype>

namespace icl {
namespace {

// Whole English words (lowercase), then Korean stems, which take particles after them
// (강의는, 강의의), so they match anywhere.
const std::vector<std::string> kEnglish = {"lecture", "lectures", "lecturer", "professor", "professors",
                                           "slide", "slides", "reading note", "reading notes"};
const std::vector<std::string> kKorean = {"강의", "교수", "슬라이드", "읽기 노트", "수업"};

bool word_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

}  // namespace

std::vector<ProseMention> source_text_mentions(const std::string& markdown, int first_line) {
    // Inline code spans become spaces (keeping the line breaks), so `lecture_prompt` is not prose.
    std::string text = markdown;
    for (size_t i = 0; i < text.size();) {
        if (text[i] != '`') { ++i; continue; }
        size_t run = 0;
        while (i + run < text.size() && text[i + run] == '`') ++run;
        const size_t close = text.find(std::string(run, '`'), i + run);
        if (close == std::string::npos) break;
        for (size_t k = i; k < close + run; ++k)
            if (text[k] != '\n') text[k] = ' ';
        i = close + run;
    }
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return (char)std::tolower(c); });
    std::vector<std::pair<size_t, std::string>> found;
    for (const std::string& w : kEnglish)
        for (size_t at = lower.find(w); at != std::string::npos; at = lower.find(w, at + 1)) {
            const size_t end = at + w.size();
            const bool starts = at == 0 || !word_char((unsigned char)lower[at - 1]);
            // "lecture's" counts; "slider", "slides" (its own entry) do not match "slide".
            const bool ends = end == lower.size() || !word_char((unsigned char)lower[end]);
            if (starts && ends) found.push_back({at, text.substr(at, w.size())});
        }
    for (const std::string& w : kKorean)
        for (size_t at = text.find(w); at != std::string::npos; at = text.find(w, at + w.size()))
            found.push_back({at, w});
    std::sort(found.begin(), found.end());
    std::vector<ProseMention> out;
    for (const auto& [at, phrase] : found)
        out.push_back({first_line + (int)std::count(text.begin(), text.begin() + (long)at, '\n'), phrase});
    return out;
}

std::vector<ProseMention> source_text_mentions(const Lesson& lesson) {
    std::vector<ProseMention> out;
    const auto add = [&](const std::string& md, int line) {
        for (auto& m : source_text_mentions(md, line)) out.push_back(std::move(m));
    };
    for (const LessonBlock& b : lesson.blocks) {
        if (const auto* h = std::get_if<HtmlBlock>(&b)) add(h->markdown, h->line);
        if (const auto* c = std::get_if<CheckBlock>(&b)) {
            // A check's parts are reported at its opening line (the parser does not record their own lines).
            for (const std::string* md : {&c->prompt_markdown, &c->feedback_markdown})
                for (auto m : source_text_mentions(*md, 0)) out.push_back({c->line, m.phrase});
            for (const CheckOption& o : c->options)
                for (const std::string* md : {&o.markdown, &o.feedback_markdown})
                    for (auto m : source_text_mentions(*md, 0)) out.push_back({c->line, m.phrase});
        }
    }
    return out;
}

}  // namespace icl
