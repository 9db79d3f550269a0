// The JSON files `icl lessons build` writes from a loaded lesson set (the index, one file
// a lesson, the glossaries, and the manifest that lets a rebuild remove what it wrote
// before), and `icl lessons new`'s skeleton of a lesson.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "icl/file_read.h"
#include "icl/lesson_set.h"
#include "icl/texts.h"
#include "lesson_set_blocks.h"

namespace icl {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace lesson_set_detail;

namespace {

// Lists the files `icl lessons build` wrote into its folder (write_lesson_json).
const char* const kBuildManifest = ".icl-lessons-build.json";

}  // namespace

json lesson_index_json(const LessonSet& set) {
    json index = json::object();
    for (const std::string& lang : set.languages) {
        json list = json::array();
        const auto it = set.lessons.find(lang);
        if (it != set.lessons.end()) {
            for (const Lesson& l : it->second) {
                json demos = json::array();
                for (const DemoBlock* d : demos_of(l))
                    if (std::find(demos.begin(), demos.end(), d->demo) == demos.end()) demos.push_back(d->demo);
                const int words = reading_words(l);
                list.push_back({{"id", l.id}, {"title", l.title}, {"order", l.order}, {"number", l.number()}, {"summary", l.summary},
                                {"words", words}, {"minutes", reading_minutes(words)},
                                {"checks", checks_of(l).size()}, {"demos", demos}});
            }
        }
        index[lang] = list;
    }
    return index;
}

Status write_lesson_json(const LessonSet& set, const std::string& out_dir) {
    if (set.errors() > 0) return make_error("the lessons have " + std::to_string(set.errors()) + " errors; nothing written");
    const auto write = [](const fs::path& path, const json& j) -> Status {
        std::ofstream out(path, std::ios::binary);
        out << j.dump(1) << "\n";
        out.close();
        if (!out) return make_error("cannot write " + path.string());
        return Ok{};
    };
    std::error_code ec;
    for (const std::string& lang : set.languages) {
        fs::create_directories(fs::path(out_dir) / lang, ec);
        if (ec) return make_error("cannot create " + (fs::path(out_dir) / lang).string() + ": " + ec.message());
    }
    // The files a previous build wrote, from its manifest: only those may be removed. A
    // file someone else put in the folder is never touched.
    const fs::path manifest_path = fs::path(out_dir) / kBuildManifest;
    std::set<std::string> previous;
    if (auto text = read_regular_file(manifest_path.string(), file_limits::kRecipe)) {
        const json m = json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
        if (m.is_object() && m.contains("files") && m["files"].is_array())
            for (const json& f : m["files"])
                if (f.is_string()) previous.insert(f.get<std::string>());
    }
    if (auto ok = write(fs::path(out_dir) / "index.json", lesson_index_json(set)); !ok) return ok;
    std::set<std::string> written = {"index.json"};
    for (const std::string& lang : set.languages) {
        const auto it = set.lessons.find(lang);
        if (it != set.lessons.end())
            for (const Lesson& l : it->second) {
                if (auto ok = write(fs::path(out_dir) / lang / (l.id + ".json"), to_json(l)); !ok) return ok;
                written.insert(lang + "/" + l.id + ".json");
            }
    }
    json glossaries = json::object();
    for (const auto& [lang, g] : set.glossaries) glossaries[lang] = to_json(g);
    if (auto ok = write(fs::path(out_dir) / "glossary.json", glossaries); !ok) return ok;
    written.insert("glossary.json");
    if (auto ok = write(manifest_path, json{{"written_by", "icl lessons build"}, {"files", written}}); !ok) return ok;
    // A lesson renamed or removed since the last build leaves no stale page behind: the
    // previous build's files that this one did not write again are removed (only names
    // of the form <lang>/<id>.json, so a hand-edited manifest cannot reach outside).
    for (const std::string& name : previous) {
        if (written.count(name)) continue;
        const size_t slash = name.find('/');
        const std::string lang = name.substr(0, slash == std::string::npos ? 0 : slash);
        const std::string base = slash == std::string::npos ? "" : name.substr(slash + 1);
        const bool shaped = check_lang_code(lang).ok() && base.size() > 5 && base.find('/') == std::string::npos &&
                            base.find("..") == std::string::npos && base.compare(base.size() - 5, 5, ".json") == 0;
        if (shaped) fs::remove(fs::path(out_dir) / lang / base, ec);
    }
    return Ok{};
}

Expected<std::string> write_lesson_skeleton(const std::string& dir, const std::string& id, const std::string& lang) {
    const bool id_ok = !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    });
    if (!id_ok)
        return make_error("lesson id '" + id + "' is not usable: use 1 to 64 letters, digits, '-' and '_' (e.g. attention-sinks)");
    if (lowercase(id) == "review")
        return make_error("lesson id '" + id + "' is taken: <lang>/review.html is the review page");
    if (auto code = check_lang_code(lang); !code) return code.error();
    const fs::path lang_dir = fs::path(dir) / lang;
    std::error_code ec;
    if (!fs::is_directory(lang_dir, ec))
        return make_error("no such directory " + lang_dir.string() + " (give the lessons folder with --dir; a new language " +
                          "starts as a folder: make it, then copy en/catalogue/ into it to translate)");
    // An existing lesson: by its front matter, or by its file name when it does not parse.
    const LessonSet set = load_lesson_set(dir, LintOptions{true, false});
    int order = -1, largest = 0;
    for (const auto& [l, list] : set.lessons)
        for (const Lesson& lesson : list) {
            largest = std::max(largest, lesson.order);
            // Case is ignored: where file names ignore it, Sinks.html would be sinks.html.
            if (lowercase(lesson.id) != lowercase(id)) continue;
            if (l == lang)
                return make_error("lesson '" + id + "' exists" + (lesson.id != id ? " as '" + lesson.id + "'" : std::string()) +
                                  ": " + (lang_dir / fs::path(lesson.source).filename()).string() + " (it is not overwritten)");
            if (lesson.id != id) continue;
            order = lesson.order;  // the translation of a lesson in another language: beside it
        }
    for (fs::directory_iterator it(lang_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = lowercase(it->path().filename().string());
        const std::string tail = "-" + lowercase(id) + ".md";
        if (name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
            return make_error("lesson '" + id + "' exists: " + (lang_dir / it->path().filename()).string() + " (it is not overwritten)");
    }
    if (order < 0) order = largest + 1;
    const std::string path = (lang_dir / ((order < 10 ? "0" : "") + std::to_string(order) + "-" + id + ".md")).string();
    auto skeleton = lesson_skeleton(id, lang, order, dir);
    if (!skeleton) return skeleton.error();
    const std::string& text = skeleton.value();
    std::FILE* f = std::fopen(path.c_str(), "wx");  // never over a file that appeared meanwhile
    if (!f) return make_error("cannot create " + path + ": " + std::strerror(errno));
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) return make_error("cannot write " + path);
    return path;
}

}  // namespace icl
