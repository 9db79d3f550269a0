// A language's words are its files: the catalogues of a lessons folder checked against
// English's (load_lesson_set's lint), and the skeleton `icl lessons new` writes, read from
// lessons/<lang>/catalogue/new-lesson.md.
#include "icl/lesson_set.h"

#include <filesystem>
#include <map>
#include <set>

#include "icl/assets.h"
#include "icl/file_read.h"
#include "icl/texts.h"

namespace icl {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The {name} placeholders of a catalogue message, sorted (texts.h's grammar).
std::set<std::string> placeholders(const std::string& text) {
    std::set<std::string> out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '{') continue;
        if (i + 1 < text.size() && text[i + 1] == '{') { ++i; continue; }
        const size_t close = text.find('}', i);
        if (close == std::string::npos) break;
        const std::string inner = text.substr(i + 1, close - i - 1);
        out.insert(inner.substr(0, inner.find(':')));
        i = close;
    }
    return out;
}

}  // namespace

// Each language's catalogues (<dir>/<lang>/catalogue/*.json) against English's: a file or
// key English has and the language lacks is a warning (English shows there); a key
// English does not have, a value that is not a string, placeholders that differ from
// English's, or a file that is not a JSON object of strings is an error.
void lint_catalogues(const std::string& dir, const std::vector<std::string>& langs, std::vector<Diagnostic>& out) {
    const auto read = [&](const fs::path& p, json& j) {
        auto text = read_regular_file(p.string(), file_limits::kRecipe);
        if (!text) { out.push_back({p.string(), 0, text.error().message, false}); return false; }
        j = json::parse(text.value(), nullptr, false);
        if (!j.is_object()) { out.push_back({p.string(), 1, "a catalogue is a JSON object of key → text", false}); return false; }
        for (const auto& [key, value] : j.items())
            if (!value.is_string()) { out.push_back({p.string(), 1, "'" + key + "' is not a string", false}); return false; }
        return true;
    };
    std::map<std::string, json> english;
    const fs::path en_dir = fs::path(dir) / "en" / "catalogue";
    std::error_code ec;
    for (fs::directory_iterator it(en_dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".json") {
            json j;
            if (read(it->path(), j)) english[it->path().filename().string()] = std::move(j);
        }
    // (a tree without en/catalogue/ — a test's, or lessons kept apart from the demos —
    // has nothing to compare; its demos say so when they run)
    for (const std::string& lang : langs) {
        if (lang == "en") continue;
        const fs::path lang_dir = fs::path(dir) / lang / "catalogue";
        for (const auto& [file, en] : english) {
            const fs::path p = lang_dir / file;
            if (!fs::exists(p, ec)) {
                out.push_back({p.string(), 0, "missing: its " + std::to_string(en.size()) + " texts show in English", true});
                continue;
            }
            json j;
            if (!read(p, j)) continue;
            std::string lacks;
            int lacking = 0;
            for (const auto& [key, value] : en.items()) {
                if (!j.contains(key)) {
                    if (++lacking <= 5) lacks += (lacks.empty() ? "" : ", ") + key;
                    continue;
                }
                const auto here = placeholders(j[key].get<std::string>()), there = placeholders(value.get<std::string>());
                if (here != there) {
                    std::string a, b;
                    for (const auto& n : here) a += "{" + n + "}";
                    for (const auto& n : there) b += "{" + n + "}";
                    out.push_back({p.string(), 1, "'" + key + "' has the placeholders " + (a.empty() ? "(none)" : a) +
                                                      " but English has " + (b.empty() ? "(none)" : b), false});
                }
            }
            if (lacking)
                out.push_back({p.string(), 0, "lacks " + std::to_string(lacking) + " of English's texts (" + lacks +
                                                  (lacking > 5 ? ", ..." : "") + "): English shows for them", true});
            for (const auto& [key, value] : j.items())
                if (!en.contains(key)) out.push_back({p.string(), 1, "'" + key + "' is not in English's " + file + " (a key no one asks for)", false});
        }
    }
}

Expected<std::string> lesson_skeleton(const std::string& id, const std::string& lang, int order, const std::string& dir) {
    const std::string file = "/catalogue/new-lesson.md";
    std::string text;
    bool found = false;
    // the lessons folder written into first, then the shipped one (the asset store)
    for (const std::string& l : {lang, std::string("en")}) {
        if (found || !check_lang_code(l).ok()) continue;
        if (!dir.empty()) {
            bool missing = false;
            auto read = read_regular_file(dir + "/" + l + file, file_limits::kRecipe, &missing);
            if (read) { text = read.value(), found = true; continue; }
            if (!missing) return read.error();
        }
        if (auto bytes = get_asset(l + file)) text.assign(bytes.value()->begin(), bytes.value()->end()), found = true;
    }
    if (!found) return make_error("cannot read lessons/en" + file + ", the skeleton of a new lesson");
    return fill_template(text, {{"id", id}, {"order", order}});
}

}  // namespace icl
