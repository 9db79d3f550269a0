// Loading the lesson tree and its lint (icl/lesson_set.h); the JSON files `icl lessons
// build` writes and a new lesson's skeleton are in lesson_set_write.cpp.
#include "icl/lesson_set.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "icl/demo.h"
#include "icl/file_read.h"
#include "icl/lesson_prose.h"
#include "icl/quiz.h"
#include "lesson_set_blocks.h"

namespace icl {

using nlohmann::json;
namespace fs = std::filesystem;

int LessonSet::errors() const {
    return static_cast<int>(std::count_if(problems.begin(), problems.end(), [](const Diagnostic& d) { return !d.warning; }));
}
int LessonSet::warnings() const { return static_cast<int>(problems.size()) - errors(); }

namespace lesson_set_detail {

std::string lowercase(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::vector<const DemoBlock*> demos_of(const Lesson& l) {
    std::vector<const DemoBlock*> out;
    for (const auto& b : l.blocks)
        if (const auto* d = std::get_if<DemoBlock>(&b)) out.push_back(d);
    return out;
}

std::vector<const CheckBlock*> checks_of(const Lesson& l) {
    std::vector<const CheckBlock*> out;
    for (const auto& b : l.blocks)
        if (const auto* c = std::get_if<CheckBlock>(&b)) out.push_back(c);
    return out;
}

}  // namespace lesson_set_detail

using namespace lesson_set_detail;

namespace {

// The languages of a lessons folder: en first, then every subfolder named by a language
// code (icl/texts.h's check_lang_code: "ko", "pt-BR"; "checkpoints" is not one), sorted.
std::vector<std::string> languages_of(const std::string& dir) {
    std::vector<std::string> out = {"en"};
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code sec;
        if (name != "en" && check_lang_code(name).ok() && fs::is_directory(it->path(), sec)) out.push_back(name);
    }
    std::sort(out.begin() + 1, out.end());
    return out;
}

// Folder names the site uses for its own pages beside the language folders
// (web/build-site.mjs, scripts/build): a language folder so named would overwrite them.
const char* const kReservedFolders[] = {"lab", "assets", "lessons", "embed", "catalogue", "checkpoints"};

bool reserved_folder(const std::string& name) {
    for (const char* r : kReservedFolders)
        if (name == r) return true;
    return false;
}

// Whether `p` (made canonical) lies in the folder `root` (canonical too).
bool inside(const fs::path& p, const fs::path& root) {
    auto r = root.begin(), q = p.begin();
    for (; r != root.end(); ++r, ++q)
        if (q == p.end() || *q != *r) return false;
    return true;
}

struct Source {
    std::string path;   // as shown in messages: <dir>/<lang>/<file>
    Lesson lesson;
    bool parsed = false;
};

std::string known_demo_ids() {
    std::string ids;
    for (const DemoDef* d : all_demos()) ids += (ids.empty() ? "" : ", ") + d->id;
    return ids.empty() ? "none registered" : ids;
}

// <NN>-<id>.md, NN the order.
void lint_file_name(const Source& s, const std::string& base, std::vector<Diagnostic>& out) {
    const bool lettered = base.size() > 3 && base[2] >= 'a' && base[2] <= 'z' && base[3] == '-';  // 03b-
    const bool shaped = base.size() > 6 && std::isdigit(static_cast<unsigned char>(base[0])) &&
                        std::isdigit(static_cast<unsigned char>(base[1])) && (base[2] == '-' || lettered);
    const std::string expected = (s.lesson.order < 10 ? "0" : "") + s.lesson.number() + "-" + s.lesson.id + ".md";
    if (!shaped || base != expected)
        out.push_back({s.path, 1, "file name should be " + expected + " (<NN>-<id>.md with NN = order " +
                                       s.lesson.number() + " and id " + s.lesson.id + ")", false});
}

// A demo block's parameters with a figure's changes over them (none: the block's as they are)
json with_changes(const DemoBlock& d, const json& changed) {
    if (changed.empty()) return d.params;
    json params = d.params.is_object() ? d.params : json::object();
    params.update(changed);
    return params;
}

void lint_one(const Source& s, const LintOptions& options, std::vector<Diagnostic>& out) {
    for (const DemoBlock* d : demos_of(s.lesson)) {
        const DemoDef* def = find_demo(d->demo);
        if (!def) {
            out.push_back({s.path, d->line, "unknown demo '" + d->demo + "' (known: " + known_demo_ids() + ")", false});
            continue;
        }
        auto valid = validate_params(def->params, d->params);
        if (!valid) out.push_back({s.path, d->line, "demo " + d->demo + ": " + valid.error().message, false});
        for (const auto* list : {&d->show, &d->hide})
            for (const std::string& p : *list)
                if (std::none_of(def->params.begin(), def->params.end(), [&](const ParamSpec& spec) { return spec.name == p; })) {
                    std::string names;
                    for (const ParamSpec& spec : def->params) names += (names.empty() ? "" : ", ") + spec.name;
                    out.push_back({s.path, d->line, "demo " + d->demo + ": " + (list == &d->show ? "show=" : "hide=") +
                                                        " names '" + p + "', which is not one of its parameters (" + names + ")", false});
                }
    }
    for (const Figure& f : s.lesson.figures) {
        const auto demos = demos_of(s.lesson);
        const auto d = std::find_if(demos.begin(), demos.end(), [&](const DemoBlock* b) { return b->name == f.instance; });
        if (d == demos.end()) {
            out.push_back({s.path, f.line, "figure " + f.text + " quotes demo instance '" + f.instance +
                                               "', which is not on this page", false});
            continue;
        }
        const DemoDef* def = find_demo((*d)->demo);
        if (!def || f.params.empty()) continue;
        if (auto valid = validate_params(def->params, with_changes(**d, f.params)); !valid)
            out.push_back({s.path, f.line, "figure " + f.text + " (" + f.source() + "): demo " + (*d)->demo + ": " +
                                               valid.error().message, false});
    }
    for (Diagnostic& d : figures_giving_answers_away(s.lesson, s.path)) out.push_back(std::move(d));
    for (const ProseMention& m : source_text_mentions(s.lesson))
        out.push_back({s.path, m.line, "the text refers to '" + m.phrase + "', a source text the learner cannot open: teach "
                                       "the idea itself (the index page names the course's sources)", false});
    const auto checks = checks_of(s.lesson);
    const bool has_demo = !demos_of(s.lesson).empty();
    const bool has_predict = std::any_of(checks.begin(), checks.end(),
                                         [](const CheckBlock* c) { return c->type == CheckType::Predict; });
    if (checks.size() < 4)
        out.push_back({s.path, 1, "the lesson has " + std::to_string(checks.size()) + " checks (a lesson needs at least 4)",
                       options.draft});
    if (has_demo && !has_predict)
        out.push_back({s.path, 1, "the lesson shows a demo but has no predict check (a demo lesson needs at least one)",
                       options.draft});
    lint_lesson_frame(s.lesson, s.path, options.draft, out);
}

std::string where(const Source& s, int line) { return s.path + ":" + std::to_string(line); }

// The translation `ko` must match `en` in everything but language.
void lint_pair(const Source& en, const Source& ko, std::vector<Diagnostic>& out) {
    const auto mismatch = [&](int line, const std::string& message) { out.push_back({ko.path, line, message, false}); };
    if (en.lesson.number() != ko.lesson.number())
        mismatch(1, "order " + ko.lesson.number() + " differs from " + en.lesson.number() + " in " + en.path);
    const auto en_demos = demos_of(en.lesson), ko_demos = demos_of(ko.lesson);
    for (size_t i = 0; i < std::max(en_demos.size(), ko_demos.size()); ++i) {
        if (i >= ko_demos.size()) { mismatch(1, "demo instance '" + en_demos[i]->name + "' of " + where(en, en_demos[i]->line) + " is missing here"); break; }
        if (i >= en_demos.size()) { mismatch(ko_demos[i]->line, "demo instance '" + ko_demos[i]->name + "' is not in " + en.path); break; }
        const DemoBlock &e = *en_demos[i], &k = *ko_demos[i];
        if (e.demo != k.demo || e.name != k.name || e.params != k.params || e.show != k.show || e.hide != k.hide) {
            const auto said = [](const DemoBlock& d) {
                std::string out = d.demo + " name=" + d.name;
                for (const auto* list : {&d.show, &d.hide}) {
                    if (list->empty()) continue;
                    out += list == &d.show ? " show=" : " hide=";
                    for (size_t n = 0; n < list->size(); ++n) out += (n ? "," : "") + (*list)[n];
                }
                return out + " " + d.params.dump();
            };
            mismatch(k.line, "demo " + said(k) + " differs from " + said(e) + " at " + where(en, e.line));
            break;
        }
    }
    // The same figures quoted (value, tolerance, instance and its changed parameters, scalar), in any order: a
    // translation may put them in another place in a sentence, not show another number
    // or hold it to another tolerance.
    const auto figure_list = [](const Lesson& l) {
        std::vector<std::string> v;
        for (const Figure& f : l.figures) {
            std::ostringstream tol;
            tol << f.tol << (f.relative ? "%" : "");
            v.push_back(f.text + " ±" + tol.str() + " @" + f.source());
        }
        std::sort(v.begin(), v.end());
        return v;
    };
    const auto en_figures = figure_list(en.lesson), ko_figures = figure_list(ko.lesson);
    if (en_figures != ko_figures) {
        std::vector<std::string> only_en, only_ko;
        std::set_difference(en_figures.begin(), en_figures.end(), ko_figures.begin(), ko_figures.end(), std::back_inserter(only_en));
        std::set_difference(ko_figures.begin(), ko_figures.end(), en_figures.begin(), en_figures.end(), std::back_inserter(only_ko));
        const auto join = [](const std::vector<std::string>& v) {
            std::string out;
            for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
            return out.empty() ? std::string("none") : out;
        };
        mismatch(1, "quoted figures differ from " + en.path + ": only there " + join(only_en) + "; only here " + join(only_ko));
    }
    const auto en_checks = checks_of(en.lesson), ko_checks = checks_of(ko.lesson);
    for (size_t i = 0; i < std::max(en_checks.size(), ko_checks.size()); ++i) {
        if (i >= ko_checks.size()) { mismatch(1, "check '" + en_checks[i]->id + "' of " + where(en, en_checks[i]->line) + " is missing here"); break; }
        if (i >= en_checks.size()) { mismatch(ko_checks[i]->line, "check '" + ko_checks[i]->id + "' is not in " + en.path); break; }
        const CheckBlock &e = *en_checks[i], &k = *ko_checks[i];
        std::string what;
        if (e.id != k.id) what = "check id '" + k.id + "' differs from '" + e.id + "'";
        else if (e.type != k.type) what = "check '" + k.id + "' is " + check_type_name(k.type) + " here but " + check_type_name(e.type);
        else if (e.options.size() != k.options.size())
            what = "check '" + k.id + "' has " + std::to_string(k.options.size()) + " options here but " + std::to_string(e.options.size());
        else if (k.type != CheckType::Text && e.grading != k.grading)
            what = "check '" + k.id + "' grades " + k.grading.dump() + " here but " + e.grading.dump();
        if (!what.empty()) {
            mismatch(k.line, what + " at " + where(en, e.line) + " (checks must match in order)");
            break;
        }
    }
}

// A demo instance of the page with `changed` over its parameters (a figure's
// instance[...]), and its key in the lint's results: demo + params. nullptr when the
// instance is not on the page or names no demo (reported by the parser / lint_one).
const DemoBlock* instance_of(const Source& s, const std::string& instance, const json& changed, std::string& key,
                             json& params) {
    const DemoBlock* demo = nullptr;
    for (const DemoBlock* d : demos_of(s.lesson))
        if (d->name == instance) demo = d;
    if (!demo || !find_demo(demo->demo)) return nullptr;
    params = with_changes(*demo, changed);
    key = demo->demo + " " + params.dump();
    return demo;
}

// The Result JSON of one demo at seed 1, as `icl run` gives it; nullopt when its
// parameters are bad (reported by the parser / lint_one).
std::optional<json> run_demo(const std::string& demo, const json& params) {
    // (texts: none — only the numbers are read, to grade own-run checks)
    auto session = start_demo(demo, params, Texts(), 1);
    if (!session) return std::nullopt;
    while (!session.value()->done()) session.value()->step(64);
    return to_json(session.value()->result());
}

// Every instance the figures and predict checks of every page name, each run once (cached
// across pages and languages), side by side on the machine's cores: the lint's time is
// these runs'.
void run_instances(const std::map<std::string, std::vector<Source>>& sources, std::map<std::string, json>& results) {
    struct Job {
        std::string key, demo;
        json params;
        std::optional<json> result;
    };
    std::vector<Job> jobs;
    std::set<std::string> queued;
    const auto add = [&](const Source& s, const std::string& instance, const json& changed) {
        std::string key;
        json params;
        const DemoBlock* demo = instance_of(s, instance, changed, key, params);
        if (demo && !results.count(key) && queued.insert(key).second) jobs.push_back({key, demo->demo, params, {}});
    };
    for (const auto& [lang, list] : sources)
        for (const auto& s : list) {
            if (!s.parsed) continue;
            for (const CheckBlock* c : checks_of(s.lesson))
                if (c->type == CheckType::Predict) add(s, c->grading.at("demo"), json::object());
            for (const Figure& f : s.lesson.figures) add(s, f.instance, f.params);
        }
    std::atomic<size_t> next{0};
    const auto work = [&] {
        for (size_t i; (i = next++) < jobs.size();) jobs[i].result = run_demo(jobs[i].demo, jobs[i].params);
    };
#if defined(__EMSCRIPTEN__)
    const size_t threads = 1;  // the browser build of the app has no threads
#else
    const size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), jobs.size());
#endif
    std::vector<std::thread> pool;
    for (size_t i = 1; i < threads; ++i) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    for (Job& j : jobs)
        if (j.result) results[j.key] = std::move(*j.result);
}

// The Result JSON of a demo instance of the page (run_instances ran it); nullptr when the
// instance is not on the page or its parameters are bad.
const json* run_instance(const Source& s, const std::string& instance, std::map<std::string, json>& results,
                         const json& changed = json::object()) {
    std::string key;
    json params;
    if (!instance_of(s, instance, changed, key, params)) return nullptr;
    if (!results.count(key)) {
        std::optional<json> run = run_demo(key.substr(0, key.find(' ')), params);
        if (!run) return nullptr;
        results[key] = std::move(*run);
    }
    return &results[key];
}

// Every quoted figure against its demo's real value: further than the stated
// tolerance is an error (the text drifted from the demo, or the demo changed).
void lint_figures(const Source& s, std::map<std::string, json>& results, std::vector<Diagnostic>& out) {
    for (const Figure& f : s.lesson.figures) {
        const json* result = run_instance(s, f.instance, results, f.params);
        if (!result) continue;
        const std::string prefix = "figure " + f.text + " (" + f.source() + "): ";
        if (!result->at("error").get<std::string>().empty()) {
            out.push_back({s.path, f.line, prefix + "the demo failed: " + result->at("error").get<std::string>(), false});
            continue;
        }
        auto value = find_result_scalar(*result, f.scalar);
        if (!value) {
            out.push_back({s.path, f.line, prefix + value.error().message, false});
            continue;
        }
        const double allowed = f.relative ? f.tol / 100 * std::fabs(f.value) : f.tol;
        if (!(std::fabs(value.value() - f.value) <= allowed)) {
            char shown[96];
            std::snprintf(shown, sizeof shown, "the demo gives %.4g (seed 1), more than \xC2\xB1%g%s away", value.value(), f.tol,
                          f.relative ? "%" : "");
            const std::string msg = shown;
            out.push_back({s.path, f.line, prefix + msg + ": update the text (or the demo)", false});
        }
    }
}

// Runs the demo instances predict checks name and checks that the named scalar lands
// in exactly one range.
void lint_predictions(const Source& s, std::map<std::string, json>& results, std::vector<Diagnostic>& out) {
    for (const CheckBlock* c : checks_of(s.lesson)) {
        if (c->type != CheckType::Predict) continue;
        const std::string instance = c->grading.at("demo"), scalar = c->grading.at("scalar");
        const json* run = run_instance(s, instance, results);
        if (!run) continue;
        const json& result = *run;
        const std::string prefix = "predict check '" + c->id + "': ";
        if (!result.at("error").get<std::string>().empty()) {
            out.push_back({s.path, c->line, prefix + "demo " + instance + " failed: " + result.at("error").get<std::string>(), false});
            continue;
        }
        auto value = find_result_scalar(result, scalar);
        if (!value) {
            out.push_back({s.path, c->line, prefix + value.error().message, false});
            continue;
        }
        if (c->grading.value("run", "lesson") == "own") continue;  // the learner's run decides the option
        const double v = value.value();
        char shown[32];
        std::snprintf(shown, sizeof shown, "%.4g", v);
        const CheckOption* hit = nullptr;
        for (const auto& o : c->options)
            if ((!o.range_lo || *o.range_lo <= v) && (!o.range_hi || v < *o.range_hi)) hit = &o;
        if (!hit) {
            out.push_back({s.path, c->line, prefix + "demo " + instance + " gives " + scalar + " = " + shown +
                                                 " (seed 1), which is in no option's range", false});
            continue;
        }
        // Near an edge: within 5% of the edge's size and of the range's width. An edge at
        // 0 is a natural bound (a norm, an error), never "near".
        const double width = hit->range_lo && hit->range_hi ? *hit->range_hi - *hit->range_lo : INFINITY;
        const auto near = [&](const std::optional<double>& edge) {
            const double gap = edge ? std::fabs(v - *edge) : INFINITY;
            return edge && *edge != 0 && gap <= 0.05 * std::fabs(*edge) && gap <= 0.05 * width;
        };
        if (near(hit->range_lo) || near(hit->range_hi))
            out.push_back({s.path, c->line, prefix + "demo " + instance + " gives " + scalar + " = " + shown +
                                                 " (seed 1), near the edge of option " + hit->key +
                                                 "'s range: another seed may change the right answer", true});
    }
}


}  // namespace

LessonSet load_lesson_set(const std::string& dir, const LintOptions& options) {
    LessonSet set;
    std::map<std::string, std::vector<Source>> sources;
    set.languages = languages_of(dir);
    for (const std::string& lang : set.languages)
        if (reserved_folder(lang))
            set.problems.push_back({(fs::path(dir) / lang).string(), 0, "'" + lang + "' cannot name a language: the site keeps its own "
                                    "pages in /" + lang + "/ (reserved: lab, assets, lessons, embed, catalogue, checkpoints); "
                                    "rename the folder (a language code such as ko or pt-BR)", false});
    set.languages.erase(std::remove_if(set.languages.begin(), set.languages.end(), reserved_folder), set.languages.end());
    std::error_code root_ec;
    fs::path real_root = fs::weakly_canonical(fs::path(dir), root_ec);
    if (!real_root.has_filename()) real_root = real_root.parent_path();  // "lessons/" -> "lessons"
    for (const std::string& lang : set.languages) {
        const fs::path lang_dir = fs::path(dir) / lang;
        std::error_code ec;
        if (!fs::is_directory(lang_dir, ec)) {
            set.problems.push_back({lang_dir.string(), 0, "no such directory (the English lessons, which every language follows, live in " + dir + "/en)", false});
            continue;
        }
        // A link that loops or dangles, a folder or a FIFO named *.md: a problem naming the
        // file, and the other files are read (never an exception out of the iterator).
        std::vector<fs::path> files;
        fs::directory_iterator it(lang_dir, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            const fs::path& p = it->path();
            if (p.extension() != ".md") continue;
            const std::string shown = (fs::path(dir) / lang / p.filename()).string();
            std::error_code sec;
            const fs::file_status st = fs::status(p, sec);
            if (sec) {
                ++set.files;
                const std::string why = sec.message();
                const bool link = fs::is_symlink(fs::symlink_status(p, sec));
                set.problems.push_back({shown, 0, "cannot read the file: " + why + (link ? " (a link that loops or leads nowhere?)" : ""), false});
            } else if (!fs::is_regular_file(st)) {
                ++set.files;
                set.problems.push_back({shown, 0, "not a regular file (a lesson is a .md file); it was not read", false});
            } else if (const fs::path real = fs::weakly_canonical(p, sec);
                       !root_ec && !sec && fs::is_symlink(fs::symlink_status(p, sec)) && !inside(real, real_root)) {
                // A link to a file elsewhere is not read: its text would be shown (the watch
                // mode's problem page quotes source lines) as if it were a lesson's.
                ++set.files;
                set.problems.push_back({shown, 0, "a link to a file outside " + dir + " (" + real.string() +
                                                      "); a lesson lives in the lessons folder, it was not read", false});
            } else {
                files.push_back(p);
            }
        }
        if (ec) set.problems.push_back({lang_dir.string(), 0, "cannot list the directory: " + ec.message(), false});
        std::sort(files.begin(), files.end());
        for (const auto& file : files) {
            Source s;
            s.path = (fs::path(dir) / lang / file.filename()).string();
            const auto text = read_regular_file(file.string(), file_limits::kLesson);
            ++set.files;
            if (!text) {
                set.problems.push_back({s.path, 0, text.error().message, false});
                continue;
            }
            LessonParse parsed = parse_lesson_collect(text.value(), s.path);
            set.problems.insert(set.problems.end(), parsed.problems.begin(), parsed.problems.end());
            set.problems.insert(set.problems.end(), parsed.math_problems.begin(), parsed.math_problems.end());
            s.lesson = std::move(parsed.lesson);
            s.parsed = parsed.problems.empty();
            if (!s.lesson.id.empty()) lint_file_name(s, file.filename().string(), set.problems);
            if (s.parsed) lint_one(s, options, set.problems);
            sources[lang].push_back(std::move(s));
        }
    }
    // Unique ids and orders within a language; the same ids across languages.
    std::map<std::string, std::map<std::string, const Source*>> by_id, by_lower_id;
    for (const auto& [lang, list] : sources) {
        std::map<std::string, const Source*> by_order;
        for (const auto& s : list) {
            if (s.lesson.id.empty()) continue;
            auto [it, fresh] = by_id[lang].emplace(s.lesson.id, &s);
            if (!fresh) set.problems.push_back({s.path, 1, "lesson id '" + s.lesson.id + "' is also used by " + it->second->path, false});
            // dual-form.html and Dual-Form.html are one file where case is ignored.
            auto [lt, fresh_lower] = by_lower_id[lang].emplace(lowercase(s.lesson.id), &s);
            if (fresh && !fresh_lower)
                set.problems.push_back({s.path, 1, "lesson id '" + s.lesson.id + "' differs from '" + lt->second->lesson.id + "' of " +
                                                       lt->second->path + " only in case (their pages would be one file where "
                                                       "file names ignore case)", false});
            auto [ot, fresh_order] = by_order.emplace(s.lesson.number(), &s);
            if (!fresh_order)
                set.problems.push_back({s.path, 1, "order " + s.lesson.number() + " is also used by " + ot->second->path, false});
        }
    }
    // English is the reference: a lesson another language lacks is a warning (that
    // language shows fewer lessons); one English lacks is an error; a translation must
    // match English in everything but language (lint_pair).
    for (const std::string& lang : set.languages) {
        if (lang == "en") continue;
        for (const auto& [id, s] : by_id["en"]) {
            const auto it = by_id[lang].find(id);
            if (it == by_id[lang].end())
                set.problems.push_back({s->path, 1, "lesson '" + id + "' has no " + lang + " version (expected " + dir + "/" + lang + "/" +
                                                      fs::path(s->path).filename().string() + "): the " + lang + " lessons lack it", true});
            else if (s->parsed && it->second->parsed)
                lint_pair(*s, *it->second, set.problems);
        }
        for (const auto& [id, s] : by_id[lang])
            if (!by_id["en"].count(id))
                set.problems.push_back({s->path, 1, "lesson '" + id + "' has no en version (expected " + dir + "/en/" +
                                                      fs::path(s->path).filename().string() + "; English is the reference)", false});
    }
    lint_catalogues(dir, set.languages, set.problems);
    {
        std::map<std::string, std::vector<std::pair<std::string, const Lesson*>>> parsed;
        for (const auto& [lang, list] : sources)
            for (const auto& s : list)
                if (s.parsed) parsed[lang].push_back({s.path, &s.lesson});
        lint_glossaries(dir, set.languages, parsed, set.glossaries, set.problems);
    }
    if (options.run_demos) {
        std::map<std::string, json> results;
        run_instances(sources, results);
        for (const auto& [lang, list] : sources)
            for (const auto& s : list)
                if (s.parsed) {
                    lint_predictions(s, results, set.problems);
                    lint_figures(s, results, set.problems);
                }
    }
    for (auto& [lang, list] : sources) {
        for (auto& s : list)
            if (s.parsed) set.lessons[lang].push_back(std::move(s.lesson));
        std::sort(set.lessons[lang].begin(), set.lessons[lang].end(),
                  [](const Lesson& a, const Lesson& b) { return std::tie(a.order, a.part) < std::tie(b.order, b.part); });
    }
    std::stable_sort(set.problems.begin(), set.problems.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return a.file != b.file ? a.file < b.file : a.line < b.line;
    });
    return set;
}

}  // namespace icl
