// The glossary file, term links, prose extraction and reading time (icl/glossary.h).
#include "icl/glossary.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "icl/lesson_markdown.h"

namespace icl {

using nlohmann::json;

const std::vector<std::string>& box_kinds() {
    static const std::vector<std::string> kinds = {"in-short", "you-need", "take-away"};
    return kinds;
}

const GlossaryTerm* Glossary::find(const std::string& id) const {
    for (const auto& t : terms)
        if (t.id == id) return &t;
    return nullptr;
}

namespace {

bool is_term_id(const std::string& s) {
    if (s.empty() || s.size() > 64) return false;
    for (const char c : s)
        if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-')) return false;
    return true;
}

std::string inline_gloss(const std::string& markdown) {
    std::string html = render_markdown(markdown);
    while (!html.empty() && html.back() == '\n') html.pop_back();
    if (html.rfind("<p>", 0) == 0 && html.size() >= 7 && html.compare(html.size() - 4, 4, "</p>") == 0 &&
        html.find("<p>", 3) == std::string::npos)
        html = html.substr(3, html.size() - 7);
    return html;
}

struct ProseReader {
    std::string out;
    int math_depth = 0;
    int code_depth = 0;
    int math_spans = 0;
};

int enter_block(MD_BLOCKTYPE type, void*, void* user) {
    auto* r = static_cast<ProseReader*>(user);
    if (type == MD_BLOCK_CODE) ++r->code_depth;
    r->out += '\n';
    return 0;
}
int leave_block(MD_BLOCKTYPE type, void*, void* user) {
    auto* r = static_cast<ProseReader*>(user);
    if (type == MD_BLOCK_CODE) --r->code_depth;
    r->out += '\n';
    return 0;
}
int enter_span(MD_SPANTYPE type, void*, void* user) {
    auto* r = static_cast<ProseReader*>(user);
    if (type == MD_SPAN_CODE) ++r->code_depth;
    if (type == MD_SPAN_LATEXMATH || type == MD_SPAN_LATEXMATH_DISPLAY) {
        ++r->math_depth;
        ++r->math_spans;
        r->out += " ";  // a math span stands between words
    }
    return 0;
}
int leave_span(MD_SPANTYPE type, void*, void* user) {
    auto* r = static_cast<ProseReader*>(user);
    if (type == MD_SPAN_CODE) --r->code_depth;
    if (type == MD_SPAN_LATEXMATH || type == MD_SPAN_LATEXMATH_DISPLAY) {
        --r->math_depth;
        r->out += " ";
    }
    return 0;
}
int on_text(MD_TEXTTYPE type, const MD_CHAR* text, MD_SIZE size, void* user) {
    auto* r = static_cast<ProseReader*>(user);
    if (r->math_depth > 0 || r->code_depth > 0 || type == MD_TEXT_CODE || type == MD_TEXT_LATEXMATH) return 0;
    if (type == MD_TEXT_BR || type == MD_TEXT_SOFTBR) r->out += ' ';
    else if (type == MD_TEXT_NULLCHAR) r->out += ' ';
    else r->out.append(text, size);
    return 0;
}

ProseReader read_prose(const std::string& markdown) {
    ProseReader r;
    parse_lesson_markdown(markdown, &r, enter_block, leave_block, enter_span, leave_span, on_text);
    return r;
}

int count_words(const std::string& markdown) {
    const ProseReader r = read_prose(markdown);
    int words = r.math_spans;
    bool in_word = false;
    for (const char c : r.out) {
        const bool space = c == ' ' || c == '\n' || c == '\t';
        if (!space && !in_word) ++words;
        in_word = !space;
    }
    return words;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

Glossary parse_glossary(const std::string& text, const std::string& file_name, std::vector<Diagnostic>& problems) {
    Glossary g;
    g.file = file_name;
    const auto fail = [&](const std::string& message) { problems.push_back({file_name, 1, message, false}); };
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("terms") || !j["terms"].is_array()) {
        fail("a glossary is a JSON object {\"terms\": [{\"id\", \"term\", \"gloss\", \"avoid\"}, ...]}");
        return g;
    }
    for (const auto& [key, value] : j.items())
        if (key != "terms" && key != "names" && key != "avoid") fail("unknown key '" + key + "' (a glossary has \"terms\", \"names\" and \"avoid\")");
    if (j.contains("names")) {
        if (!j["names"].is_array()) fail("\"names\" is a list of strings");
        else
            for (const auto& n : j["names"])
                if (n.is_string() && !n.get<std::string>().empty()) g.names.push_back(n.get<std::string>());
                else fail("\"names\" is a list of strings");
    }
    if (j.contains("avoid")) {
        if (!j["avoid"].is_array()) fail("\"avoid\" is a list of {\"form\", \"use\"}");
        else
            for (const auto& a : j["avoid"]) {
                const bool ok = a.is_object() && a.size() == 2 && a.contains("form") && a["form"].is_string() &&
                                !a["form"].get<std::string>().empty() && a.contains("use") && a["use"].is_string() &&
                                !a["use"].get<std::string>().empty();
                if (ok) g.avoid.push_back({a["form"].get<std::string>(), a["use"].get<std::string>()});
                else fail("\"avoid\" is a list of {\"form\", \"use\"}, each a non-empty text; not " + a.dump());
            }
    }
    std::set<std::string> seen;
    for (size_t n = 0; n < j["terms"].size(); ++n) {
        const json& e = j["terms"][n];
        const std::string where = "term " + std::to_string(n + 1);
        if (!e.is_object()) { fail(where + " is not an object"); continue; }
        GlossaryTerm t;
        const auto text_of = [&](const char* key, std::string& out) {
            if (e.contains(key) && e[key].is_string() && !e[key].get<std::string>().empty()) { out = e[key].get<std::string>(); return true; }
            fail(where + (t.id.empty() ? "" : " ('" + t.id + "')") + " has no \"" + key + "\" text");
            return false;
        };
        if (!text_of("id", t.id)) continue;
        if (!is_term_id(t.id)) { fail(where + ": id '" + t.id + "' must use only a-z, 0-9 and '-'"); continue; }
        if (!seen.insert(t.id).second) { fail("term '" + t.id + "' is listed twice"); continue; }
        if (!text_of("term", t.term) || !text_of("gloss", t.gloss_markdown)) continue;
        for (const auto& [key, value] : e.items())
            if (key != "id" && key != "term" && key != "gloss" && key != "avoid") fail("term '" + t.id + "': unknown key '" + key + "'");
        if (e.contains("avoid")) {
            if (!e["avoid"].is_array()) { fail("term '" + t.id + "': \"avoid\" is a list of strings"); continue; }
            for (const auto& a : e["avoid"]) {
                if (!a.is_string() || a.get<std::string>().empty()) { fail("term '" + t.id + "': \"avoid\" is a list of strings"); continue; }
                t.avoid.push_back(a.get<std::string>());
            }
        }
        for (const auto& a : t.avoid)
            if (!find_word(t.term, a.back() == '~' ? a.substr(0, a.size() - 1) : a).empty()) fail("term '" + t.id + "': the form it avoids, '" + a + "', is its own form '" + t.term + "'");
        t.gloss_html = inline_gloss(t.gloss_markdown);
        g.terms.push_back(std::move(t));
    }
    return g;
}

json to_json(const Glossary& glossary) {
    json out = json::object();
    for (const auto& t : glossary.terms) out[t.id] = {{"term", t.term}, {"html", t.gloss_html}};
    return out;
}

std::vector<std::string> term_links(const std::string& html) {
    std::vector<std::string> ids;
    const std::string marker = "href=\"term:";
    for (size_t at = html.find(marker); at != std::string::npos; at = html.find(marker, at + 1)) {
        const size_t begin = at + marker.size(), end = html.find('"', begin);
        if (end == std::string::npos) break;
        ids.push_back(html.substr(begin, end - begin));
    }
    return ids;
}

std::string prose_of(const std::string& markdown) { return read_prose(markdown).out; }

namespace {
// U+AC00..U+D7A3 start with the bytes EA..ED in UTF-8
bool hangul_at(const std::string& s, size_t at) {
    return at < s.size() && static_cast<unsigned char>(s[at]) >= 0xEA && static_cast<unsigned char>(s[at]) <= 0xED;
}
}  // namespace

std::vector<size_t> find_word(const std::string& prose, const std::string& written) {
    std::vector<size_t> at;
    const bool before_hangul = !written.empty() && written.back() == '~';
    const bool after_number = !written.empty() && written.front() == '#';
    const std::string form = written.substr(after_number ? 1 : 0, written.size() - (after_number ? 1 : 0) - (before_hangul ? 1 : 0));
    if (form.empty()) return at;
    for (size_t p = prose.find(form); p != std::string::npos; p = prose.find(form, p + 1)) {
        size_t start = p;
        if (after_number) {  // digits, then perhaps one lowercase letter ("3b"), then the form
            if (start > 0 && std::islower(static_cast<unsigned char>(prose[start - 1]))) --start;
            const size_t digits_end = start;
            while (start > 0 && std::isdigit(static_cast<unsigned char>(prose[start - 1]))) --start;
            if (start == digits_end) continue;
        }
        const bool left = start == 0 || !word_char(prose[start - 1]) || (!after_number && !word_char(form.front()));
        const size_t after = p + form.size();
        const bool right = after >= prose.size() || !word_char(prose[after]) || !word_char(form.back());
        if (left && right && (!before_hangul || hangul_at(prose, after))) at.push_back(start);
    }
    return at;
}

std::vector<std::pair<size_t, std::string>> capitalised_before_hangul(const std::string& prose,
                                                                       const std::vector<std::string>& names) {
    std::vector<std::pair<size_t, std::string>> out;
    for (size_t p = 0; p < prose.size(); ++p) {
        if (!std::isupper(static_cast<unsigned char>(prose[p])) || (p > 0 && word_char(prose[p - 1]))) continue;
        size_t end = p + 1;
        while (end < prose.size() && std::islower(static_cast<unsigned char>(prose[end]))) ++end;
        const std::string word = prose.substr(p, end - p);
        // the last word of an English phrase (a title: "Fixed Weights and Biases라는") is not one on its own
        size_t before = p;
        while (before > 0 && prose[before - 1] == ' ') --before;
        const bool in_phrase = before < p && before > 0 && std::isalpha(static_cast<unsigned char>(prose[before - 1]));
        if (end - p >= 2 && hangul_at(prose, end) && !in_phrase && std::find(names.begin(), names.end(), word) == names.end())
            out.push_back({p, word});
        p = end - 1;
    }
    return out;
}

namespace {
struct WordCounter {
    int operator()(const HtmlBlock& b) const { return count_words(b.markdown); }
    int operator()(const DemoBlock&) const { return 0; }
    int operator()(const CheckBlock& c) const {
        int n = count_words(c.prompt_markdown) + count_words(c.feedback_markdown);
        for (const auto& o : c.options) n += count_words(o.markdown) + count_words(o.feedback_markdown);
        return n;
    }
};
}  // namespace

int reading_words(const Lesson& lesson) {
    int words = 0;
    for (const auto& b : lesson.blocks) words += std::visit(WordCounter{}, b);
    return words;
}

int reading_minutes(int words) { return std::max(1, (words + 100) / 200); }

}  // namespace icl
