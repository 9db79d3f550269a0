// The lesson tree (lessons/en/*.md, lessons/ko/*.md) as a whole: loading it, the lint
// that `icl lessons check` runs, and the JSON files `icl lessons build` writes.
// Native only (files).
//
// What the lint requires, beyond each file parsing (lesson.h):
//   - file names <NN>-<id>.md, NN the two-digit order (with its letter: 03b), id the front-matter id;
//   - ids and orders unique within a language;
//   - every demo block names a registered demo and its overrides pass the demo's
//     ParamSpecs (icl::validate_params);
//   - English is the reference: a lesson of another language has an en version with the
//     same order, the same demo instances (demo, name, params) and the same checks (id,
//     type, options count, grading — except text answers, which are in the page's
//     language) in the same order; a lesson a language lacks is a warning;
//   - each language's catalogues (<lang>/catalogue/*.json) hold strings with the same
//     placeholders as English's and no key English lacks; a missing file or key is a
//     warning (English shows there).
//   - each lesson has >= 4 checks, and >= 1 predict check when it shows a demo.
//     These two are errors, or warnings with LintOptions::draft.
//   - with LintOptions::run_demos: every demo instance a predict check names is run
//     (seed 1, as `icl run`), and its scalar must exist and fall in one option's range;
//     a value near an edge of its range (within 5% of the edge and of the range's
//     width; an edge at 0 excepted) is a warning: another seed may flip the answer.
//   - every quoted figure ({{0.76 @instance:scalar ±0.05}}, lesson.h) names a demo
//     instance on its page; en and ko quote the same figures; with run_demos the
//     instance is run (seed 1) and a figure further from the demo's value than its
//     tolerance is an error.
//   - each lesson has the boxes in-short and you-need before its first demo or check
//     and take-away after its last (icl/glossary.h; errors, or warnings as a draft);
//   - each language's glossary (<lang>/glossary.json) has English's terms, no more; every
//     term link of a lesson ([text](term:id)) names a term of its language's glossary;
//     no lesson prose (outside code and math) and no catalogue text of a language uses a
//     form its glossary lists under "avoid" (lint_glossaries).
//   - every $...$ and $$...$$ uses only TeX the desktop app shows (icl/tex_text.h, the
//     front end that shows the least): an unknown command or environment, a matrix
//     inside an argument, a stray & or an unbalanced brace is an error at its line,
//     naming the construct; the lesson is still loaded (the app shows it as written).
// Each file is parsed on its own: a broken lesson does not hide problems in the others.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/expected.h"
#include "icl/glossary.h"
#include "icl/lesson.h"

namespace icl {

struct LintOptions {
    bool draft = false;      // lesson-size rules (check counts) are warnings, not errors
    bool run_demos = false;  // run the demos predict checks name, check their ranges
};

struct LessonSet {
    std::vector<std::string> languages;                   // en first, then each <dir>/<code>/ folder, sorted
    std::map<std::string, std::vector<Lesson>> lessons;  // language -> lessons sorted by order
    std::vector<Diagnostic> problems;                     // sorted by file, then line
    std::map<std::string, Glossary> glossaries;           // language -> its lessons/<lang>/glossary.json, when it has one
    int files = 0;                                        // lesson sources read
    int errors() const;
    int warnings() const;
};

// Reads <dir>/<lang>/*.md for every language folder (en, and each folder named by a
// language code), parses and lints them, and lints the catalogues. Messages name files
// as <dir>/<lang>/<file>.
LessonSet load_lesson_set(const std::string& dir, const LintOptions& options = {});

// {"en": [{"id", "title", "order", "number" ("3b"), "summary", "words", "minutes", "checks": N, "demos": [demo ids]}, ...], "ko": [...]}
nlohmann::json lesson_index_json(const LessonSet& set);

// Writes <out>/index.json, <out>/<lang>/<id>.json and <out>/glossary.json
// ({"<lang>": {"<term id>": {"term", "html"}}}). Refuses a set with errors.
Status write_lesson_json(const LessonSet& set, const std::string& out_dir);

// Each language's catalogues (<dir>/<lang>/catalogue/*.json) against English's, for
// load_lesson_set's lint: a file or key the language lacks is a warning (English shows
// there); a key English does not have, a value that is not a string, placeholders that
// differ from English's, or a file that is not a JSON object of strings is an error.
void lint_catalogues(const std::string& dir, const std::vector<std::string>& langs, std::vector<Diagnostic>& out);

// The frame rule for one lesson (its three boxes, in place); `draft` makes them warnings.
void lint_lesson_frame(const Lesson& lesson, const std::string& path, bool draft, std::vector<Diagnostic>& out);

// Reads each language's <dir>/<lang>/glossary.json into `glossaries` and lints them, the
// term links of `lessons` (language -> (path, lesson)) and the avoided forms in those
// lessons and in <dir>/<lang>/catalogue/*.json.
void lint_glossaries(const std::string& dir, const std::vector<std::string>& langs,
                     const std::map<std::string, std::vector<std::pair<std::string, const Lesson*>>>& lessons,
                     std::map<std::string, Glossary>& glossaries, std::vector<Diagnostic>& out);

// `icl lessons new`: the text of a new lesson's skeleton in `lang`: its
// catalogue/new-lesson.md (front matter, a paragraph, one demo block and one predict
// check on it) with {id} and {order} filled in — from `dir`'s <lang>, else the shipped
// lessons' (the asset store), else English's. The shipped ones parse, and pass the lint
// as a draft (LintOptions::draft: a lesson needs 4 checks; the skeleton has one, to be
// copied).
Expected<std::string> lesson_skeleton(const std::string& id, const std::string& lang, int order,
                                      const std::string& dir = "");

// Writes lesson_skeleton(id, lang, order, dir) to <dir>/<lang>/<NN>-<id>.md and returns that
// path. order: the lesson's order in another language when it has this id there (the
// translation goes beside it), else one past the largest order in <dir>. Refuses, naming
// the problem: an id that is not letters, digits, '-' and '_' (or is 'review', the review
// page's name), a language the lessons are not written in, a missing <dir>/<lang>, a
// lesson with this id in <dir>/<lang> (it is never overwritten).
Expected<std::string> write_lesson_skeleton(const std::string& dir, const std::string& id, const std::string& lang);

}  // namespace icl
