// A lesson: one markdown source (lessons/<lang>/<NN>-<id>.md) parsed into front matter
// and a list of blocks — rendered text, demos and check questions. Native only (md4c);
// the web receives the same lesson as JSON (to_json below) at build time.
//
// Source format
//
//   ---                                   front matter: exactly the keys id, title,
//   id: dual-form                         order (an integer >= 0, or one followed by a
//                                         letter: 3b sorts after 3, before 4) and summary, one
//   title: Attention is the dual form     `key: value` line each; a value may be
//   order: 2                              wrapped in "..." (kept verbatim inside)
//   summary: One sentence.
//   ---
//   CommonMark text with $inline$ and $$display$$ math and tables. Raw HTML is not
//   passed through: `<script>` is shown as text. Math may use only the TeX the desktop
//   app's pass shows (icl/tex_text.h); anything else is a math problem at its line. Each run of text between directives
//   is rendered on its own (a link reference definition does not reach past a demo or
//   check block).
//
//   ```demo dual_form name=adam           a demo instance; name= defaults to the demo id
//   n_train: 8                            `name: value` overrides; value: true|false,
//   lr: 0.1                               a number, "a quoted string" or a bare word.
//   ```                                   Blank lines and lines starting with # are skipped.
//
//   ```box in-short                      a framed box (in-short, you-need, take-away;
//   - markdown                             icl/glossary.h): markdown, drawn under the
//   ```                                    box's heading. Each kind at most once.
//                                          ```box reproduce: see ```reproduce below.
//
//   [text](term:perplexity)               a glossary link: the front ends show the
//                                          term's gloss in place (icl/glossary.h)
//
//   ```check id=q1 type=choice answer=b   info: key=value words, values may be "quoted";
//                                          any type may add from=<lesson id>: the check
//                                          was in that lesson once, and a learner's saved
//                                          answer moves with it (progress::move_checks)
//   The prompt (markdown).                 choice answer=b | multi answer=a,c |
//   a) option a                            truefalse answer=true|false |
//   b) option b                            numeric answer=0.2 tol=0.02 (absolute) |
//   ---                                    text answer="cold|chilly" |
//   The feedback (markdown).               predict demo=<instance> scalar="<name>"
//   a: feedback shown when a was chosen    (each option carries a range: a) [0, 1e-4] ...)
//   ```                                    [run=lesson|own]
//
//   ```box reproduce                      a "Reproduce this" box: markdown (commands, build
//   `icl run gpt_scaling`                 and timing details) that both front ends show
//   ```                                   collapsed; the same text rules as the prose;
//                                         any number of them. ```reproduce is the same.
//                                         A code fence inside needs a longer outer fence.
//
// Own-run grading: a predict check with run=own is graded against the learner's current
// run of the demo instance (whatever they typed or moved), not the lesson's setup: "predict
// what adding this demonstration will do, then add it". Its grading JSON carries
// "run": "own"; the front ends pass the current finished Result to icl::grade. The lint
// (--run-demos) runs the lesson's setup only to check that the scalar exists; it does not
// require that setup's value to fall in an option, since the learner's run decides.
//
// Figures quoted from a demo
//   `{{0.76 @attention_dual:cosine_median ±0.05}}` anywhere in text, a check's prompt or
//   its feedback shows "0.76" and records that the figure is the scalar cosine_median of
//   the demo instance attention_dual on this page (its parameters, seed 1), within ±0.05
//   (absolute; `±10%` is relative to the shown value; `+-` may stand for ±). The instance
//   must be on the page; `icl lessons check --run-demos` runs it and fails when the demo's
//   value is further from the shown one than the tolerance, so a number in the prose
//   cannot drift from the demo that produced it. The en and ko versions must quote the
//   same figures. A `{{` not followed by a number and an `@` (TeX's `x^{{2}}`) is text.
//
// Which fences are directives
//   A fenced code block (``` or ~~~) that starts at column 0 and whose info string's
//   first word is `demo`, `check` or `box` is a directive. Every other fence is ordinary code
//   and stays in the text. Two cases are errors instead of silent code, because they
//   are almost always a mistake: a demo/check fence indented by 1-3 spaces (it would
//   otherwise render as code), and a fence whose first info word is a near miss of a
//   directive (`chek`, `Check`, `demos`: case-insensitive equal or one edit away).
//   A lesson that wants to show a literal directive puts it inside a longer fence
//   (````) or an indented code block.
//
// Check bodies
//   Prompt lines, then for choice/multi/predict the options: one line each, `a) text`,
//   keys a, b, c, ... in order, nothing but blank lines between or after them. For
//   predict each option text starts with its range `[lo, hi]` — always read as the
//   half-open [lo, hi); lo/hi may be -inf/inf. Then a line `---`, the feedback
//   (markdown, required), and optionally, as the last lines, per-option feedback:
//   `a: ...` (truefalse: `true: ...` / `false: ...`).
//   truefalse checks get the options true/false (labels True/False, ko 참/거짓).
//
// JSON (the contract with the web pages; `icl lessons build` writes it):
//   {"id", "lang", "title", "order", "number" (order and part: "3b"), "summary", "source": "lessons/en/02-x.md",
//    "words", "minutes" (reading time at 200 words a minute, icl/glossary.h), "blocks": [
//     {"kind": "html", "html": "<p>..<x-equation>TeX</x-equation>..</p>", "markdown": "...", "box"?: "in-short"},
//     (box "reproduce" for a Reproduce box)
//     {"kind": "demo", "demo": "dual_form", "name": "dual_form", "params": {...}, "line": 12},
//     {"kind": "check", "id", "type", "line", "prompt_html",
//      "options": [{"key": "a", "html": "inline html", "feedback_html": ""}, ...],
//      "feedback_html", "grading": {...see quiz.h...}, "hides_result": bool[, "from"]}]}
//   Math: $..$ -> <x-equation>TeX</x-equation>, $$..$$ -> <x-equation type="display">;
//   the TeX inside is HTML-escaped (a<b is written a&lt;b), unescape it before KaTeX.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/expected.h"

namespace icl {

// A problem in a lesson source, at a line (1-based; 0 = the file as a whole).
struct Diagnostic {
    std::string file;
    int line = 0;
    std::string message;
    bool warning = false;
};
// "file:line: message" ("file:line: warning: message" for warnings).
std::string to_string(const Diagnostic& d);

enum class CheckType { Choice, Multi, TrueFalse, Numeric, Text, Predict };
const char* check_type_name(CheckType t);  // "choice", "multi", ...

// A run of markdown between directives, rendered.
struct HtmlBlock {
    int line = 0;             // first line of the run in the source
    std::string markdown;     // the source text of the run
    std::string html;
    std::string box;          // "" for running text, else a box kind (icl/glossary.h): in-short, you-need, take-away, reproduce
};

struct DemoBlock {
    int line = 0;             // line of the opening fence
    std::string demo;         // registry id
    std::string name;         // instance name on the page (default: the demo id)
    nlohmann::json params = nlohmann::json::object();  // overrides, numbers/bools/strings
    // The controls the page shows (show=a,b: only those; hide=a,b: all but those; neither:
    // all). A parameter not shown keeps the lesson's value; the lint checks the names.
    std::vector<std::string> show, hide;
    bool shows(const std::string& param) const {
        const auto in = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), param) != v.end(); };
        return show.empty() ? !in(hide) : in(show);
    }
};

struct CheckOption {
    std::string key;                    // "a", "b", ... (truefalse: "true", "false")
    std::string markdown, html;         // label (inline html: no wrapping <p>)
    std::string feedback_markdown, feedback_html;  // shown when this option was chosen
    // predict: the half-open range [lo, hi) of the demo's scalar that makes this option
    // right; nullopt = unbounded on that side.
    std::optional<double> range_lo, range_hi;
};

struct CheckBlock {
    int line = 0;             // line of the opening fence
    std::string id;
    CheckType type = CheckType::Choice;
    std::string prompt_markdown, prompt_html;
    std::vector<CheckOption> options;   // choice, multi, predict, truefalse
    std::string feedback_markdown, feedback_html;
    nlohmann::json grading;             // what icl::grade needs, see quiz.h
    // predict, hide=result: the front ends hold back the demo instance's result (its
    // headline and panels) until this check is answered or the learner runs the demo,
    // and the lint refuses a figure of the predicted scalar quoted above the check.
    bool hides_result = false;
    std::string from;                   // from=: the lesson the check was in before ("" none)
};

using LessonBlock = std::variant<HtmlBlock, DemoBlock, CheckBlock>;

// A figure the text quotes from a demo instance: {{text @instance:scalar ±tol[%]}}, or
// from a run of it with some parameters changed: {{text @instance[name=value, ...]:scalar ±tol}}
// (a spread over more seeds than the page's block trains, say).
struct Figure {
    int line = 0;             // where it stands in the source
    std::string text;         // what the page shows, e.g. "0.76"
    double value = 0;         // text as a number
    std::string instance;     // demo instance name on the page
    nlohmann::json params = nlohmann::json::object();  // what the run changes of the instance's parameters
    std::string scalar;       // the demo's scalar it quotes
    double tol = 0;           // allowed |demo − value|; when relative, in percent of |value|
    bool relative = false;    // tol was written with %
    // "instance:scalar", or "instance[name=value,...]:scalar" with the changed parameters
    std::string source() const;
};

// A link to a glossary term, [text](term:id) (icl/glossary.h).
struct TermLink {
    int line = 0;
    std::string id;
};

struct Lesson {
    std::string id, title, summary;
    int order = 0;
    std::string part;         // "" or the letter after the order ("b" of order 3b)
    std::string number() const { return std::to_string(order) + part; }  // "3b": what a learner sees
    std::string lang;         // "en" / "ko" from the path (lessons/<lang>/...), else ""
    std::string source;       // "lessons/<lang>/<file>" when the path has that shape, else the path
    std::vector<LessonBlock> blocks;
    std::vector<Figure> figures;  // quoted figures, in source order (markdown holds only their text)
    std::vector<TermLink> term_links;  // glossary links ([text](term:id)), in source order
};

struct LessonParse {
    Lesson lesson;                      // as far as it could be parsed
    std::vector<Diagnostic> problems;   // empty: the lesson is good
    // Math the desktop app cannot show (a TeX construct its pass, icl/tex_text.h, does not
    // know): errors too, but the lesson is whole — the app still opens it, showing that
    // TeX as written.
    std::vector<Diagnostic> math_problems;
};

// Parses a lesson and reports every problem it finds (a bad block does not hide the
// next one). `file_name` is used in the messages and to derive lang/source.
LessonParse parse_lesson_collect(const std::string& text, const std::string& file_name);
// The same, but fails with the first problem, or else the first math problem
// ("file:line: message").
Expected<Lesson> parse_lesson(const std::string& text, const std::string& file_name);

// Markdown -> HTML with the lesson flags (math spans, tables, strikethrough, no raw HTML).
std::string render_markdown(const std::string& markdown);

// One error (at the figure's line) for each figure that quotes, above a predict check
// with hide=result, the instance and scalar that check asks the learner to predict
// (whatever parameters the figure changes): the text would give the answer away.
std::vector<Diagnostic> figures_giving_answers_away(const Lesson& lesson, const std::string& file);

nlohmann::json to_json(const CheckBlock& check);   // the check block JSON icl::grade takes
nlohmann::json to_json(const Lesson& lesson);      // {"id", "lang", ..., "blocks": [...]}

}  // namespace icl
