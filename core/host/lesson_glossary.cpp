// The course's frame and glossary in the lint (load_lesson_set): each lesson's three boxes,
// each language's glossary (lessons/<lang>/glossary.json, icl/glossary.h) against
// English's, the term links of the lessons, and the forms a glossary tells a language's
// lessons and catalogues not to use.
#include "icl/lesson_set.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "icl/file_read.h"

namespace icl {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A few characters of `prose` around offset `at`, cut at whole UTF-8 characters, on one line.
std::string around(const std::string& prose, size_t at, size_t length) {
    size_t from = at >= 12 ? at - 12 : 0, to = std::min(prose.size(), at + length + 12);
    while (from > 0 && (static_cast<unsigned char>(prose[from]) & 0xC0) == 0x80) --from;
    while (to < prose.size() && (static_cast<unsigned char>(prose[to]) & 0xC0) == 0x80) ++to;
    std::string text = prose.substr(from, to - from);
    for (char& c : text) if (c == '\n') c = ' ';
    text.erase(0, text.find_first_not_of(' '));
    text.erase(text.find_last_not_of(' ') + 1);
    return text;
}

// The form as a message shows it (without its '~' and '#' marks).
std::string shown_form(const std::string& form) {
    std::string out = form;
    if (!out.empty() && out.back() == '~') out.pop_back();
    if (!out.empty() && out.front() == '#') out = "N" + out.substr(1);
    return out;
}

// A glossary's avoided forms in one text: a message for each (the first place only).
void avoided_forms(const Glossary& g, const std::string& prose, const std::string& file, int line, const std::string& where,
                   std::vector<Diagnostic>& out) {
    // where the course's own forms stand: an avoided form inside one ("model" in "hidden
    // Markov model") is that term, not the avoided word
    std::vector<std::pair<size_t, size_t>> own;
    for (const auto& t : g.terms)
        for (const size_t p : find_word(prose, t.term)) own.push_back({p, p + t.term.size()});
    const auto places = [&](const std::string& form) {
        std::vector<size_t> at;
        const size_t length = shown_form(form).size();
        for (const size_t p : find_word(prose, form))
            if (std::none_of(own.begin(), own.end(), [&](const auto& o) { return o.first <= p && p + length <= o.second; }))
                at.push_back(p);
        return at;
    };
    for (const auto& t : g.terms)
        for (const auto& form : t.avoid) {
            const std::vector<size_t> at = places(form);
            if (at.empty()) continue;
            out.push_back({file, line, where + "'" + shown_form(form) + "' (in \"…" + around(prose, at.front(), form.size()) +
                                           "…\"): the course writes '" + t.term + "' (glossary term '" + t.id + "', " + g.file + ")", false});
        }
    for (const auto& a : g.avoid) {
        const std::vector<size_t> at = places(a.form);
        if (at.empty()) continue;
        out.push_back({file, line, where + "'" + shown_form(a.form) + "' (in \"…" + around(prose, at.front(), a.form.size()) +
                                       "…\"): " + a.use + " (" + g.file + ")", false});
    }
    auto capitals = capitalised_before_hangul(prose, g.names);
    capitals.erase(std::remove_if(capitals.begin(), capitals.end(), [&](const auto& c) {
                       return std::any_of(own.begin(), own.end(), [&](const auto& o) { return o.first <= c.first && c.first + c.second.size() <= o.second; });
                   }), capitals.end());
    if (!capitals.empty()) {
        const auto& [at, word] = capitals.front();
        std::string lower = word;
        lower[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(lower[0])));
        out.push_back({file, line, where + "'" + word + "' (in \"…" + around(prose, at, word.size()) + "…\"): an English word before "
                                       "a Korean particle is written lowercase ('" + lower + "') or as the glossary's Korean term; a "
                                       "proper name goes into \"names\" of " + g.file, false});
    }
}

}  // namespace

void lint_lesson_frame(const Lesson& lesson, const std::string& path, bool draft, std::vector<Diagnostic>& out) {
    std::map<std::string, size_t> box_at;
    size_t first_directive = lesson.blocks.size(), last_directive = 0;
    bool any_directive = false;
    for (size_t k = 0; k < lesson.blocks.size(); ++k) {
        if (const auto* h = std::get_if<HtmlBlock>(&lesson.blocks[k])) {
            if (!h->box.empty()) box_at[h->box] = k;
        } else {
            if (!any_directive) first_directive = k;
            last_directive = k;
            any_directive = true;
        }
    }
    std::string missing;
    for (const std::string& kind : box_kinds())
        if (!box_at.count(kind)) missing += (missing.empty() ? "'" : ", '") + kind + "'";
    if (!missing.empty())
        out.push_back({path, 1, "the lesson has no " + missing + " box (every lesson opens with ```box in-short and ```box you-need "
                                "and ends with ```box take-away)", draft});
    for (const std::string& kind : box_kinds()) {
        const auto it = box_at.find(kind);
        if (it == box_at.end()) continue;
        const int line = std::get<HtmlBlock>(lesson.blocks[it->second]).line;
        if (kind != "take-away" && any_directive && it->second > first_directive)
            out.push_back({path, line, "the '" + kind + "' box stands after the lesson's first demo or check (it opens the lesson)", draft});
        if (kind == "take-away" && any_directive && it->second < last_directive)
            out.push_back({path, line, "the 'take-away' box stands before the lesson's last demo or check (it ends the lesson)", draft});
    }
}

void lint_glossaries(const std::string& dir, const std::vector<std::string>& langs,
                     const std::map<std::string, std::vector<std::pair<std::string, const Lesson*>>>& lessons,
                     std::map<std::string, Glossary>& glossaries, std::vector<Diagnostic>& out) {
    for (const std::string& lang : langs) {
        const fs::path file = fs::path(dir) / lang / "glossary.json";
        std::error_code ec;
        if (!fs::exists(file, ec)) continue;
        auto text = read_regular_file(file.string(), file_limits::kRecipe);
        if (!text) { out.push_back({file.string(), 0, text.error().message, false}); continue; }
        glossaries[lang] = parse_glossary(text.value(), file.string(), out);
    }
    // the same terms in every language, English's
    const auto en = glossaries.find("en");
    for (const auto& [lang, g] : glossaries) {
        if (lang == "en") continue;
        if (en == glossaries.end()) { out.push_back({g.file, 1, "a glossary without an English one (English is the reference)", false}); continue; }
        for (const auto& t : en->second.terms)
            if (!g.find(t.id)) out.push_back({g.file, 1, "term '" + t.id + "' of " + en->second.file + " is missing here", false});
        for (const auto& t : g.terms)
            if (!en->second.find(t.id)) out.push_back({g.file, 1, "term '" + t.id + "' is not in " + en->second.file + " (English is the reference)", false});
    }
    if (en != glossaries.end())
        for (const std::string& lang : langs)
            if (!glossaries.count(lang))
                out.push_back({(fs::path(dir) / lang / "glossary.json").string(), 0,
                               "no glossary: " + en->second.file + " has " + std::to_string(en->second.terms.size()) + " terms for it to define", false});
    // every term link resolves; no lesson prose uses a form its language's glossary avoids
    for (const auto& [lang, list] : lessons) {
        const auto g = glossaries.find(lang);
        for (const auto& [path, lesson] : list) {
            for (const TermLink& link : lesson->term_links)
                if (g == glossaries.end() || !g->second.find(link.id))
                    out.push_back({path, link.line, "glossary link 'term:" + link.id + "' names no term of " +
                                                        (fs::path(dir) / lang / "glossary.json").string(), false});
            if (g == glossaries.end()) continue;
            for (const auto& b : lesson->blocks) {
                if (const auto* h = std::get_if<HtmlBlock>(&b)) avoided_forms(g->second, prose_of(h->markdown), path, h->line, "", out);
                if (const auto* c = std::get_if<CheckBlock>(&b)) {
                    std::string all = prose_of(c->prompt_markdown) + "\n" + prose_of(c->feedback_markdown);
                    for (const auto& o : c->options) all += "\n" + prose_of(o.markdown) + "\n" + prose_of(o.feedback_markdown);
                    avoided_forms(g->second, all, path, c->line, "check '" + c->id + "': ", out);
                }
            }
        }
    }
    // the catalogues: every text a demo, page or the app shows
    for (const auto& [lang, g] : glossaries) {
        const fs::path cat = fs::path(dir) / lang / "catalogue";
        std::error_code ec;
        std::vector<fs::path> files;
        for (fs::directory_iterator it(cat, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".json") files.push_back(it->path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            auto text = read_regular_file(f.string(), file_limits::kRecipe);
            if (!text) continue;  // lint_catalogues says why
            const json j = json::parse(text.value(), nullptr, false);
            if (!j.is_object()) continue;
            for (const auto& [key, value] : j.items())
                if (value.is_string()) avoided_forms(g, value.get<std::string>(), f.string(), 1, "'" + key + "': ", out);
        }
    }
}

}  // namespace icl
