// The app's state and the actions that change it, apart from drawing: the lessons of
// both languages (parsed by core from lessons/<lang>/*.md), the open page with its
// demo instances and check answers, the saved progress, and notices for the learner.
#pragma once
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <icl/demo.h>
#include <icl/lesson.h>
#include <icl/quiz.h>

#include "demo_run.h"
#include "kept_run.h"
#include "markdown_view.h"
#include "progress_store.h"
#include "ui_text.h"

// A check block's texts, parsed once for drawing.
struct CheckDocs {
    MarkdownDoc prompt, feedback;
    std::vector<MarkdownDoc> options, option_feedback;  // by option index
};

struct LoadedLesson {
    icl::Lesson lesson;
    std::vector<MarkdownDoc> html_docs;    // by block index (empty for non-html blocks)
    std::vector<CheckDocs> check_docs;     // by block index (empty for non-check blocks)
    int check_count = 0;
    int minutes = 0;                       // of reading, at 200 words a minute (icl/glossary.h)
};

struct LessonLibrary {
    std::vector<std::string> languages = {"en"};          // en first, then each language folder
    std::map<std::string, std::vector<LoadedLesson>> by_lang;  // sorted by order
    std::vector<std::string> problems;     // lessons that did not parse ("file:line: message")
    std::map<std::string, std::map<std::string, GlossDoc>> glossary;  // language -> term id -> entry
    const std::vector<LoadedLesson>& of(const std::string& lang) const {
        static const std::vector<LoadedLesson> none;
        const auto it = by_lang.find(lang);
        return it == by_lang.end() ? none : it->second;
    }
};

// Parses every lessons/<lang>/*.md under `dir`; a lesson that fails is left out and
// named in `problems`.
LessonLibrary load_lesson_library(const std::string& dir);

// A demo on the open page.
struct DemoInstance {
    const icl::DemoDef* def = nullptr;
    std::string name;                  // instance name (a predict check refers to it)
    nlohmann::json lesson_params;      // the lesson's overrides
    nlohmann::json params;             // what the controls show now
    std::vector<icl::ParamSpec> controls;  // the parameters the lesson shows controls for (show= / hide=)
    uint64_t seed = 1;
    std::unique_ptr<DemoRun> run;
    nlohmann::json run_params;         // the params and seed `run` computes (what its result shows)
    uint64_t run_seed = 1;
    std::string error;                 // why the last start failed
    // An unfinished run of this demo kept on disk (kept_run.h), offered while the controls
    // show its parameters and seed; and a notice when a kept run could not be used.
    std::optional<KeptRun> kept;
    std::string kept_notice;
    bool press_stops = false;          // the Run/Stop button read Stop when this press began
    // The predict checks with hide=result that ask about this demo and have no answer yet:
    // while any is left, its result is computed but not shown (the controls are). The
    // learner's own run (Run, Reset, a changed control) or the last answer clears it.
    std::set<std::string> held_for;
};

// The learner's answer to one check, as it is being given, and its grade.
struct CheckInput {
    std::string choice;                // choice / truefalse / predict: the option key
    std::set<std::string> multi;       // multi: the option keys ticked
    std::string typed;                 // numeric / text
    std::optional<icl::Verdict> verdict;
    nlohmann::json graded_answer;      // the answer the verdict is for
    std::string error;                 // why the answer could not be graded
};

struct AppState {
    LessonLibrary library;
    std::string lang = "en";               // a language code: a folder of lessons/
    int lesson_index = -1;             // in library.of(lang); -1: a demo on its own
    std::string solo_demo;             // the demo shown when lesson_index == -1
    std::vector<DemoInstance> demos;   // of the open page
    std::map<std::string, CheckInput> checks;  // by check id, of the open lesson
    Progress progress;
    std::string progress_path;
    std::string transfer_path;         // the file the sidebar imports from and exports to
    // Review: the due checks (of lessons in this language), asked one at a time.
    bool reviewing = false;
    std::vector<icl::progress::DueCheck> review_queue;
    size_t review_pos = 0;
    std::vector<std::string> notices;  // shown at the top until dismissed
    float scroll_request = -1;        // >= 0: scroll the page there on the next frame

    const LoadedLesson* lesson() const;
};

void open_lesson(AppState& app, int index);
// The checks due for review now that a lesson of this language holds.
std::vector<icl::progress::DueCheck> due_for_review(const AppState& app);
// Opens the review page at its first due check; review_next moves on.
void open_review(AppState& app);
void review_next(AppState& app);
// The lesson and check block of the review page's current check (nullptrs when done).
std::pair<const LoadedLesson*, const icl::CheckBlock*> review_item(const AppState& app);
// Drops saved answers that no longer fit their checks (an unknown option...), with a notice.
void drop_unfit_answers(AppState& app);
void open_solo_demo(AppState& app, const std::string& demo_id);
// Switches language, keeping the open lesson (by id) when the other language has it.
void set_language(AppState& app, const std::string& lang);

// Starts the demo's run; with `resume`, from that kept checkpoint (kept_run.h).
void start_demo_run(AppState& app, DemoInstance& demo, nlohmann::json resume = nullptr);
// Whether the demo's kept run is of the setup its controls show (then it can be resumed).
bool kept_run_fits(const DemoInstance& demo);
// Reads the demo's kept run, if there is one (a file that cannot be read is set aside).
void look_for_kept_run(DemoInstance& demo);
DemoInstance* find_demo_instance(AppState& app, const std::string& name);
bool any_demo_running(const AppState& app);

// The answer in icl::grade's form, or an Error for an incomplete one ("choose an option").
icl::Expected<nlohmann::json> answer_json(const icl::CheckBlock& check, const CheckInput& input, const std::string& lang);
// Grades `answer` with core, shows the verdict and records it in the progress file
// (read-merge-write under its lock).
void submit_answer(AppState& app, const icl::CheckBlock& check, const nlohmann::json& answer);
// The lesson a check on the open page belongs to ("" if none).
std::string page_lesson_id(const AppState& app);
// Correct checks of a lesson in the saved progress.
int correct_checks(const AppState& app, const LoadedLesson& lesson);
void save(AppState& app);
