// The `icl` command: list and run demos, lint and build the lessons (more commands join
// as core grows).
// Exit status: 0 success, 1 the work failed (e.g. training diverged), 2 bad usage or
// a bad parameter (with a message naming it).
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "icl/assets.h"
#include "icl/file_read.h"
#include "icl/recipe_file.h"
#include "icl/checkpoint.h"
#include "icl/data_dir.h"
#include "icl/process_memory.h"
#include "icl/demo.h"
#include "icl/lesson_set.h"
#include "icl/recipe.h"
#include "icl/demo_grid.h"
#include "teachers.h"
#include "train_grid.h"

namespace {

const char* kUsage =
    "usage: icl <command> [options]\n"
    "\n"
    "commands:\n"
    "  demos [--lang xx]               list the demos, one line each\n"
    "  params <id> [--lang xx]         list a demo's parameters with ranges and defaults\n"
    "  run <id> [--set name=value]... [--seed n] [--json] [--lang xx]\n"
    "                                  run a demo to completion; print a summary or JSON\n"
    "  lessons check [--dir lessons] [--draft] [--run-demos]\n"
    "                                  lint the lesson sources: one line per problem\n"
    "                                  (file:line: message); --draft makes the lesson-size\n"
    "                                  rules (check counts) warnings; --run-demos runs the\n"
    "                                  demos predict checks name and checks their ranges\n"
    "  lessons build --out <dir> [--dir lessons] [--draft]\n"
    "                                  lint, then write <dir>/index.json and\n"
    "                                  <dir>/<lang>/<id>.json (nothing if the lint fails)\n"
    "  lessons new <id> [--lang xx] [--dir lessons]\n"
    "                                  write <dir>/<lang>/<NN>-<id>.md, a skeleton lesson\n"
    "                                  with one demo and one check (docs/authoring.md)\n"
    "  lessons package --scorm <out.zip> [--scorm-2004] [--site build/site] [--lang en]\n"
    "                  [--dir lessons] [--xapi-endpoint URL [--xapi-auth VALUE]]\n"
    "                                  the built site as a SCORM 1.2 package (2004 4th\n"
    "                                  edition with --scorm-2004), each lesson a SCO;\n"
    "                                  with an endpoint the pages send xAPI statements\n"
    "                                  there (docs/teachers.md)\n"
    "  class report <statements.json | answers.csv | progress.json>... --out report.html\n"
    "               [--lang en] [--dir lessons]\n"
    "                                  a class's answers as one offline page: per check\n"
    "                                  answered, right at the first try, the wrong answers\n"
    "                                  with the lesson's reasons; per learner, progress\n"
    "  train <recipe.json> [--out file.icl] [--eval-only | --restore]\n"
    "                                  train a checkpoint from its recipe (deterministic),\n"
    "                                  write it beside the recipe (or to --out) in the\n"
    "                                  recipe's storage (f32 | f16) and record the stored\n"
    "                                  form's eval figures in the recipe; --eval-only\n"
    "                                  re-evaluates the existing checkpoint; --restore\n"
    "                                  rewrites it in the recipe's storage if the recorded\n"
    "                                  figures still hold within the tolerance\n"
    "  train <grid.json> [--jobs n] [--check]\n"
    "                                  a demo over a grid of two parameters (a phase\n"
    "                                  diagram's background): run every cell, n side by\n"
    "                                  side, and write the figures into the file; --check\n"
    "                                  compares them with the recorded ones instead\n"
    "  --version                       print the version\n"
    "  --help                          print this help\n";

int usage_error(const std::string& message) {
    std::fprintf(stderr, "icl: %s\n", message.c_str());
    return 2;
}

// Reads `--lang x` if present at argv[i]; returns false on a bad value. Any language
// with a folder of catalogues (lessons/<x>/catalogue/) is one; load_texts says if not.
bool take_lang(int argc, char** argv, int& i, std::string& lang, int& status) {
    if (std::strcmp(argv[i], "--lang") != 0) return false;
    if (i + 1 >= argc) { status = usage_error("--lang needs a language code (a folder of lessons/, e.g. en or ko)"); return true; }
    auto parsed = icl::check_lang_code(argv[++i]);
    if (!parsed) { status = usage_error(parsed.error().message); return true; }
    lang = parsed.value();
    return true;
}

int cmd_demos(int argc, char** argv) {
    std::string lang = "en";
    for (int i = 2; i < argc; ++i) {
        int status = 0;
        if (take_lang(argc, argv, i, lang, status)) { if (status) return status; continue; }
        return usage_error(std::string("demos: unknown option '") + argv[i] + "'");
    }
    for (const icl::DemoDef* d : icl::all_demos()) {
        auto texts = icl::load_texts(lang, d->id);
        if (!texts) return usage_error(texts.error().message);
        std::printf("%-24s %s\n", d->id.c_str(), texts.value()("title").c_str());
    }
    return 0;
}

int cmd_params(int argc, char** argv) {
    if (argc < 3) return usage_error("params needs a demo id (see icl demos)");
    std::string lang = "en";
    for (int i = 3; i < argc; ++i) {
        int status = 0;
        if (take_lang(argc, argv, i, lang, status)) { if (status) return status; continue; }
        return usage_error(std::string("params: unknown option '") + argv[i] + "'");
    }
    const icl::DemoDef* def = icl::find_demo(argv[2]);
    if (!def) return usage_error(std::string("unknown demo '") + argv[2] + "' (see icl demos)");
    auto texts = icl::load_texts(lang, def->id);
    if (!texts) return usage_error(texts.error().message);
    std::printf("%s\n", icl::to_json(*def, texts.value()).dump(2).c_str());
    return 0;
}

int cmd_run(int argc, char** argv) {
    if (argc < 3) return usage_error("run needs a demo id (see icl demos)");
    const std::string id = argv[2];
    std::vector<std::string> sets;
    uint64_t seed = 1;
    bool as_json = false;
    std::string lang = "en";
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        int status = 0;
        if (take_lang(argc, argv, i, lang, status)) { if (status) return status; continue; }
        if (a == "--json") {
            as_json = true;
        } else if (a == "--set" && i + 1 < argc) {
            sets.push_back(argv[++i]);
        } else if (a == "--seed" && i + 1 < argc) {
            char* end = nullptr;
            const char* text = argv[++i];
            errno = 0;
            const unsigned long long v = std::strtoull(text, &end, 10);
            // Digits only: strtoull skips leading white space and reads " -3" as 2^64 - 3.
            bool digits = *text != '\0';
            for (const char* c = text; *c; ++c) digits = digits && *c >= '0' && *c <= '9';
            if (!digits || *end || errno == ERANGE)
                return usage_error(std::string("--seed needs a non-negative integer below 2^64, got '") + text + "'");
            seed = v;
        } else {
            return usage_error("run: unknown or incomplete option '" + a + "'");
        }
    }
    const icl::DemoDef* def = icl::find_demo(id);
    if (!def) return usage_error("unknown demo '" + id + "' (see icl demos)");
    auto texts = icl::load_texts(lang, id);
    if (!texts) return usage_error(texts.error().message);
    // A value that does not fit is worded in --lang (English: its message).
    auto params = icl::parse_param_strings(def->params, sets);
    if (!params) return usage_error(id + ": " + texts.value()(params.error()));
    auto session = icl::start_demo(id, params.value(), texts.value(), seed);
    if (!session) {
        const icl::Error& e = session.error();
        return usage_error(e.key.empty() ? e.message : id + ": " + texts.value()(e));
    }
    auto& s = *session.value();
    while (!s.done()) s.step(64);
    const icl::Result result = s.result();
    if (as_json) std::printf("%s\n", icl::to_json(result).dump().c_str());
    else std::fputs(icl::to_text(result).c_str(), stdout);
    if (!result.error.empty()) {
        std::fprintf(stderr, "icl: %s: %s\n", id.c_str(), result.error.c_str());
        return 1;
    }
    return 0;
}

// Default lessons folder: ./lessons when there is one (a checkout), else the shipped lessons.
std::string default_lessons_dir() {
    std::error_code ec;
    return std::filesystem::is_directory("lessons", ec) ? "lessons" : icl::find_lessons_dir(ICL_SOURCE_DIR);
}

// `icl lessons new <id>`: exit 0 written, 2 a bad id or language, an existing lesson, no
// such folder, 1 the file could not be written.
int cmd_lessons_new(int argc, char** argv) {
    if (argc < 4 || argv[3][0] == '-') return usage_error("lessons new needs a lesson id (e.g. icl lessons new attention-sinks --lang en)");
    const std::string id = argv[3];
    std::string dir = default_lessons_dir(), lang = "en";
    for (int i = 4; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dir" && i + 1 < argc) dir = argv[++i];
        else if (a == "--lang" && i + 1 < argc) lang = argv[++i];
        else return usage_error("lessons new: unknown or incomplete option '" + a + "'");
    }
    auto written = icl::write_lesson_skeleton(dir, id, lang);
    if (!written) {
        const std::string& message = written.error().message;
        if (message.rfind("cannot ", 0) != 0) return usage_error(message);  // what was asked for is wrong
        std::fprintf(stderr, "icl: %s\n", message.c_str());                // the write failed
        return 1;
    }
    std::printf("wrote %s: one demo block and one predict check.\n"
                "  icl lessons check --draft --dir %s   passes it as a draft; a published lesson needs 4 checks\n"
                "  and a version in each language with the same demos and checks (docs/authoring.md).\n",
                written.value().c_str(), dir.c_str());
    return 0;
}

// `icl lessons check|build`: exit 0 clean (warnings allowed), 1 lint errors or a failed
// write, 2 bad usage.
int cmd_lessons(int argc, char** argv) {
    if (argc < 3) return usage_error("lessons needs check, build, new or package");
    const std::string action = argv[2];
    if (action == "new") return cmd_lessons_new(argc, argv);
    if (action == "package") return cmd_lessons_package(argc, argv);
    if (action != "check" && action != "build") return usage_error("lessons: unknown action '" + action + "' (expected check, build, new or package)");
    std::string dir = default_lessons_dir(), out;
    icl::LintOptions options;
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dir" && i + 1 < argc) dir = argv[++i];
        else if (a == "--out" && i + 1 < argc && action == "build") out = argv[++i];
        else if (a == "--draft") options.draft = true;
        else if (a == "--run-demos") options.run_demos = true;
        else return usage_error("lessons " + action + ": unknown or incomplete option '" + a + "'");
    }
    if (action == "build" && out.empty()) return usage_error("lessons build needs --out <dir>");
    const icl::LessonSet set = icl::load_lesson_set(dir, options);
    for (const auto& d : set.problems) std::printf("%s\n", icl::to_string(d).c_str());
    std::printf("lessons: %d files, %d errors, %d warnings\n", set.files, set.errors(), set.warnings());
    if (set.errors() > 0) {
        if (action == "build") std::fprintf(stderr, "icl: lessons build: the lint failed; nothing written\n");
        return 1;
    }
    if (action == "check") return 0;
    const auto written = icl::write_lesson_json(set, out);
    if (!written) {
        std::fprintf(stderr, "icl: lessons build: %s\n", written.error().message.c_str());
        return 1;
    }
    size_t count = 0;
    for (const auto& [lang, list] : set.lessons) count += list.size();
    std::printf("lessons: wrote index.json and %zu lesson files to %s\n", count, out.c_str());
    return 0;
}

// icl train --restore: the shipped checkpoint rewritten in the recipe's storage, only if
// the re-stored weights still give every recorded figure within the recipe's tolerance.
// The recorded figures stay as they are (the test reproduces them on the stored form).
int restore_checkpoint(const icl::recipe::Recipe& recipe, const std::string& out) {
    icl::checkpoint::Encoding was = icl::checkpoint::Encoding::f32;
    auto m = icl::checkpoint::load_file(out, &was);
    if (!m) { std::fprintf(stderr, "icl: %s\n", m.error().message.c_str()); return 1; }
    auto bytes = icl::checkpoint::save(m.value(), recipe.storage);
    if (!bytes) { std::fprintf(stderr, "icl: %s: %s\n", out.c_str(), bytes.error().message.c_str()); return 1; }
    auto stored = icl::checkpoint::load(bytes.value().data(), bytes.value().size());
    if (!stored) { std::fprintf(stderr, "icl: %s: %s\n", out.c_str(), stored.error().message.c_str()); return 1; }
    auto figures = icl::recipe::evaluate(recipe, stored.value());
    if (!figures) { std::fprintf(stderr, "icl: %s\n", figures.error().message.c_str()); return 1; }
    double worst = 0;
    std::string worst_name;
    for (const auto& [k, recorded] : recipe.figures) {
        const auto it = figures.value().find(k);
        const double d = it == figures.value().end() ? 1e9 : std::fabs(it->second - recorded);
        std::printf("%-28s recorded %.4f  %s %.4f\n", k.c_str(), recorded, icl::checkpoint::encoding_name(recipe.storage),
                    it == figures.value().end() ? NAN : it->second);
        if (d > worst) { worst = d; worst_name = k; }
    }
    if (worst > recipe.tolerance) {
        std::fprintf(stderr, "icl: %s as %s: figure %s moves by %.4f, more than the tolerance %.4f; %s is unchanged\n",
                     out.c_str(), icl::checkpoint::encoding_name(recipe.storage), worst_name.c_str(), worst,
                     recipe.tolerance, out.c_str());
        return 1;
    }
    if (auto w = icl::replace_file(out, std::string(bytes.value().begin(), bytes.value().end())); !w) {
        std::fprintf(stderr, "icl: %s\n", w.error().message.c_str());
        return 1;
    }
    std::printf("wrote %s as %s (was %s): %zu bytes; largest figure change %.4f (%s), tolerance %.4f\n", out.c_str(),
                icl::checkpoint::encoding_name(recipe.storage), icl::checkpoint::encoding_name(was), bytes.value().size(),
                worst, worst_name.empty() ? "-" : worst_name.c_str(), recipe.tolerance);
    return 0;
}

// icl train: the recipe names the checkpoint (<name>.icl beside the recipe file).
int cmd_train(int argc, char** argv) {
    if (argc < 3) return usage_error("train needs a recipe file (lessons/checkpoints/<name>.json)");
    const std::string path = argv[2];
    auto text = icl::read_regular_file(path, icl::file_limits::kRecipe);
    if (!text) return usage_error("cannot open recipe '" + path + "': " + text.error().message);
    if (icl::grid::is_grid(text.value())) {  // a demo over a grid of two parameters (icl/demo_grid.h)
        int jobs = 1;
        bool check = false;
        for (int i = 3; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--jobs" && i + 1 < argc) {
                const std::string v = argv[++i];
                if (v.size() != 1 || v[0] < '1' || v[0] > '8') return usage_error("train: --jobs takes a whole number from 1 to 8, not '" + v + "'");
                jobs = v[0] - '0';
            } else if (a == "--check") check = true;
            else return usage_error("train: a grid takes --jobs n and --check, not '" + a + "'");
        }
        return train_grid(path, text.value(), jobs, check);
    }
    std::string out;
    bool eval_only = false, restore = false;
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--out" && i + 1 < argc) out = argv[++i];
        else if (a == "--eval-only") eval_only = true;
        else if (a == "--restore") restore = true;
        else return usage_error("train: unknown or incomplete option '" + a + "'");
    }
    auto parsed = icl::recipe::parse(text.value(), path);
    if (!parsed) return usage_error(parsed.error().message);
    icl::recipe::Recipe recipe = parsed.value();
    // Before any training: the recipe can be written back (within the bounds it is read with).
    if (auto dry = icl::recipe::rewrite(recipe, text.value(), path); !dry) return usage_error(dry.error().message);
    const size_t slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    if (out.empty()) out = dir + "/" + recipe.name + ".icl";

    icl::gpt::Model model;
    if (restore) return restore_checkpoint(recipe, out);
    if (eval_only) {
        auto m = icl::checkpoint::load_file(out);
        if (!m) { std::fprintf(stderr, "icl: %s\n", m.error().message.c_str()); return 1; }
        model = std::move(m.value());
    } else {
        auto training = icl::recipe::Training::make(recipe);
        if (!training) { std::fprintf(stderr, "icl: %s: %s\n", path.c_str(), training.error().message.c_str()); return 1; }
        const auto t0 = std::chrono::steady_clock::now();
        double avg = 0;
        for (int s = 1; s <= recipe.steps; ++s) {
            auto loss = training.value()->step();
            if (!loss) { std::fprintf(stderr, "icl: %s: %s\n", path.c_str(), loss.error().message.c_str()); return 1; }
            avg = s == 1 ? loss.value() : 0.98 * avg + 0.02 * loss.value();
            if (s % 100 == 0 || s == recipe.steps)
                std::fprintf(stderr, "step %d/%d loss %.4f (%.0f s)\n", s, recipe.steps, avg,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        recipe.train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (auto s = icl::checkpoint::save_file(training.value()->model(), out, recipe.storage); !s) { std::fprintf(stderr, "icl: %s\n", s.error().message.c_str()); return 1; }
        // The figures are the stored form's: what the demos will load.
        auto m = icl::checkpoint::load_file(out);
        if (!m) { std::fprintf(stderr, "icl: %s\n", m.error().message.c_str()); return 1; }
        model = std::move(m.value());
    }
    auto figures = icl::recipe::evaluate(recipe, model);
    if (!figures) { std::fprintf(stderr, "icl: %s\n", figures.error().message.c_str()); return 1; }
    recipe.figures = figures.value();
    for (const auto& [k, v] : recipe.figures) std::printf("%-28s %.4f\n", k.c_str(), v);
    auto rewritten = icl::recipe::rewrite(recipe, text.value(), path);
    if (!rewritten) { std::fprintf(stderr, "icl: %s (the recipe was left as it was)\n", rewritten.error().message.c_str()); return 1; }
    if (auto w = icl::replace_file(path, rewritten.value()); !w) {
        std::fprintf(stderr, "icl: %s (the recipe was left as it was)\n", w.error().message.c_str());
        return 1;
    }
    std::printf("wrote %s and the figures into %s\n", out.c_str(), path.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    icl::keep_freed_memory();
    // Demos read their checkpoints from the lessons folder: $ICL_LESSONS_DIR, the
    // installed share/icl-lab/lessons, or this checkout's (icl/data_dir.h).
    icl::set_asset_dir(icl::find_lessons_dir(ICL_SOURCE_DIR));
    if (argc < 2) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (cmd == "--version") {
        std::printf("icl %s\n", ICL_VERSION);
        return 0;
    }
    if (cmd == "demos") return cmd_demos(argc, argv);
    if (cmd == "params") return cmd_params(argc, argv);
    if (cmd == "run") return cmd_run(argc, argv);
    if (cmd == "lessons") return cmd_lessons(argc, argv);
    if (cmd == "train") return cmd_train(argc, argv);
    if (cmd == "class") return cmd_class(argc, argv);
    return usage_error("unknown command '" + cmd + "' (see icl --help)");
}
