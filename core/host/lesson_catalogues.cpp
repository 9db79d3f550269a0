// A language's words are its files: the catalogues of a lessons folder checked against
// English's (load_lesson_set's lint), and the skeleton `icl lessons new` writes, read from
// lessons/<lang>/catalogue/new-lesson.md.
#include "icl/lesson_set.h"

#include <algorithm>
#include <cctype>
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

// The first words of a text as a key would spell them: ASCII letters and digits
// lowercased, anything else a break ("The answer's probability" -> the, answer, s, ...).
std::vector<std::string> slug_words(const std::string& text, size_t most) {
    std::vector<std::string> words(1);
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 128) {
            words.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else if (!words.back().empty()) {
            if (words.size() == most) break;
            words.emplace_back();
        }
    }
    if (words.back().empty()) words.pop_back();
    return words;
}

// Why a key of English's catalogue `file` does not say what its text is, or "" when it
// does (docs/authoring.md, "Catalogue keys"). A key is a name: in a demo's catalogue
// one of the shapes below; in every catalogue, no part of it is the first 2-4 words of
// its English text (`the_answer_s_probability_3`), which change when the text does and
// leave a demo file unreadable without its JSON.
std::string key_problem(const std::string& file, const std::string& key, const std::string& text) {
    static const std::set<std::string> kUi = {"common.json", "site.json", "app.json", "class-report.json"};
    // names the code gives (a parameter, a scalar, a member of a set the demo enumerates)
    static const std::set<std::string> kNamed = {"param", "scalar", "arm", "condition", "method", "mask",
                                                 "heat", "quartile", "phase", "task", "error"};
    // ids the catalogue gives: a panel, a series, a note, a headline, a shared axis or
    // label, the error a run stops with
    static const std::set<std::string> kIds = {"panel", "series", "note", "headline", "changed", "axis", "label",
                                               "result_headline", "run_error"};
    std::vector<std::string> segs;
    for (size_t a = 0, b; a <= key.size(); a = b + 1) {
        b = key.find('.', a);
        if (b == std::string::npos) b = key.size();
        segs.push_back(key.substr(a, b - a));
    }
    const bool ui = kUi.count(file) > 0;
    if (!ui && segs.size() == 1 && (key == "title" || key == "summary" || key == "result_headline")) return "";
    const bool code_name = !ui && segs.size() >= 2 && kNamed.count(segs[0]);  // may read like its text
    const std::vector<std::string> words = slug_words(text, 4);
    for (size_t i = 0; !code_name && i < segs.size(); ++i) {
        std::string s = segs[i].substr(0, segs[i].find('='));
        // a number after the words ("_3") made the key unique, it is still the words
        const size_t us = s.find_last_of('_');
        if (us != std::string::npos && us + 1 < s.size() && s.find_first_not_of("0123456789", us + 1) == std::string::npos)
            s = s.substr(0, us);
        std::string prefix;
        for (size_t n = 1; n <= words.size(); ++n) {
            prefix += (n > 1 ? "_" : "") + words[n - 1];
            if (n >= 2 && s == prefix)
                return "'" + key + "' is the first words of its text, not a name: key a text by what it is "
                       "(scalar.<name>.help, panel.<id>.title, series.<id>, note.<id>.text: docs/authoring.md)";
        }
    }
    if (ui) return "";
    bool named = segs.size() >= 2 && (kNamed.count(segs[0]) || kIds.count(segs[0]));
    for (size_t i = 1; named && i < segs.size(); ++i) {
        const std::string& s = segs[i];
        const size_t eq = s.find('=');
        const std::string name = s.substr(0, eq);
        named = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
            const auto u = static_cast<unsigned char>(c);
            return (u < 128 && std::isalnum(u)) || c == '_';
        });
        if (named && eq != std::string::npos) {
            const std::string v = s.substr(eq + 1);
            named = !v.empty() && v.find_first_not_of("-0123456789") == std::string::npos;
        }
    }
    if (!named)
        return "'" + key + "' is not a catalogue key: a demo's keys are title, summary, result_headline[.<x>], "
               "param.<name>, scalar.<name>[.label|.help|=<v>], panel.<id>.<part>, series.<id>, note.<id>.<part>, "
               "headline.<id>, changed.<id>, axis.<name>, label.<name>, run_error.<id> or a set the demo names (arm., condition., "
               "method., mask., heat., quartile., phase.)";
    return "";
}

// The line of `key` in a catalogue's text (1 where it cannot be found).
int key_line(const std::string& text, const std::string& key) {
    const size_t at = text.find("\"" + key + "\":");
    return at == std::string::npos ? 1 : 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

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

// Each language's catalogues (<dir>/<lang>/catalogue/*.json) against English's: English's
// keys are names, not the first words of their texts (key_problem); a file or
// key English has and the language lacks is a warning (English shows there); a key
// English does not have, a value that is not a string, placeholders that differ from
// English's, or a file that is not a JSON object of strings is an error.
void lint_catalogues(const std::string& dir, const std::vector<std::string>& langs, std::vector<Diagnostic>& out) {
    std::string last_text;  // the text of the file `read` read last
    const auto read = [&](const fs::path& p, json& j) {
        auto text = read_regular_file(p.string(), file_limits::kRecipe);
        if (!text) { out.push_back({p.string(), 0, text.error().message, false}); return false; }
        last_text = text.value();
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
            if (!read(it->path(), j)) continue;
            const std::string file = it->path().filename().string();
            // (a translation has English's keys, or the loop below says so)
            for (const auto& [key, value] : j.items()) {
                const std::string why = key_problem(file, key, value.get<std::string>());
                if (!why.empty()) out.push_back({it->path().string(), key_line(last_text, key), why, false});
            }
            english[file] = std::move(j);
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
