#include "app_state.h"

#include <icl/lesson_set.h>

#include <cstdio>
#include <functional>
#include <map>

#include "ui_text.h"

namespace {

LoadedLesson prepare(icl::Lesson lesson) {
    LoadedLesson loaded;
    loaded.html_docs.resize(lesson.blocks.size());
    loaded.check_docs.resize(lesson.blocks.size());
    for (size_t k = 0; k < lesson.blocks.size(); ++k) {
        if (const auto* html = std::get_if<icl::HtmlBlock>(&lesson.blocks[k])) {
            loaded.html_docs[k] = parse_markdown(html->markdown);
        } else if (const auto* check = std::get_if<icl::CheckBlock>(&lesson.blocks[k])) {
            CheckDocs& docs = loaded.check_docs[k];
            docs.prompt = parse_markdown(check->prompt_markdown);
            docs.feedback = parse_markdown(check->feedback_markdown);
            for (const icl::CheckOption& option : check->options) {
                docs.options.push_back(parse_markdown(option.markdown));
                docs.option_feedback.push_back(parse_markdown(option.feedback_markdown));
            }
            ++loaded.check_count;
        }
    }
    loaded.minutes = icl::reading_minutes(icl::reading_words(lesson));
    loaded.lesson = std::move(lesson);
    return loaded;
}

void stop_all_demos(AppState& app) {
    for (DemoInstance& d : app.demos) if (d.run) d.run->stop();
    app.demos.clear();  // joins the workers
}

// A check's answer back in the input widgets' form (to show a saved answer).
CheckInput input_from_answer(const icl::CheckBlock& check, const nlohmann::json& answer) {
    CheckInput input;
    switch (check.type) {
    case icl::CheckType::Choice:
    case icl::CheckType::Predict:
        if (answer.is_string()) input.choice = answer.get<std::string>();
        break;
    case icl::CheckType::TrueFalse:
        if (answer.is_boolean()) input.choice = answer.get<bool>() ? "true" : "false";
        break;
    case icl::CheckType::Multi:
        if (answer.is_array())
            for (const auto& k : answer) if (k.is_string()) input.multi.insert(k.get<std::string>());
        break;
    case icl::CheckType::Numeric:
    case icl::CheckType::Text:
        input.typed = answer.is_string() ? answer.get<std::string>() : answer.is_number() ? answer.dump() : "";
        break;
    }
    return input;
}

}  // namespace

LessonLibrary load_lesson_library(const std::string& dir) {
    LessonLibrary library;
    icl::LintOptions options;
    options.draft = true;  // the app shows lessons still being written
    icl::LessonSet set = icl::load_lesson_set(dir, options);
    for (const icl::Diagnostic& d : set.problems)
        if (!d.warning) library.problems.push_back(icl::to_string(d));
    library.languages = set.languages;
    for (const auto& [lang, g] : set.glossaries)
        for (const icl::GlossaryTerm& t : g.terms) library.glossary[lang][t.id] = GlossDoc{t.term, parse_markdown(t.gloss_markdown)};
    for (auto& [lang, lessons] : set.lessons)
        for (icl::Lesson& lesson : lessons) library.by_lang[lang].push_back(prepare(std::move(lesson)));
    return library;
}

const LoadedLesson* AppState::lesson() const {
    const auto& lessons = library.of(lang);
    return lesson_index >= 0 && lesson_index < static_cast<int>(lessons.size()) ? &lessons[lesson_index] : nullptr;
}

void open_lesson(AppState& app, int index) {
    stop_all_demos(app);
    app.checks.clear();
    app.reviewing = false;
    app.solo_demo.clear();
    app.lesson_index = index;
    app.scroll_request = 0;
    const LoadedLesson* loaded = app.lesson();
    if (!loaded) return;
    const auto saved = app.progress.checks.find(loaded->lesson.id);
    std::vector<std::pair<std::string, std::string>> unanswered;  // (demo instance, check id), hide=result
    for (const icl::LessonBlock& block : loaded->lesson.blocks) {
        if (const auto* demo = std::get_if<icl::DemoBlock>(&block)) {
            DemoInstance instance;
            instance.def = icl::find_demo(demo->demo);
            instance.name = demo->name;
            instance.lesson_params = demo->params;
            instance.params = demo->params;
            if (!instance.def) instance.error = "unknown demo '" + demo->demo + "'";
            else
                for (const icl::ParamSpec& spec : instance.def->params)
                    if (demo->shows(spec.name)) instance.controls.push_back(spec);
            app.demos.push_back(std::move(instance));
        } else if (const auto* check = std::get_if<icl::CheckBlock>(&block)) {
            CheckInput input;
            if (saved != app.progress.checks.end()) {
                auto record = saved->second.find(check->id);
                if (record != saved->second.end()) input = input_from_answer(*check, record->second.answer);
            }
            app.checks[check->id] = input;
            if (check->type == icl::CheckType::Predict && check->hides_result &&
                (saved == app.progress.checks.end() || !saved->second.count(check->id)))
                unanswered.emplace_back(check->grading.value("demo", ""), check->id);
        }
    }
    for (const auto& [instance, id] : unanswered)
        if (DemoInstance* d = find_demo_instance(app, instance)) d->held_for.insert(id);
    app.progress.last_lesson = loaded->lesson.id;
    save(app);
    // Analytic demos are cheap: show their result at once.
    for (DemoInstance& d : app.demos) {
        if (d.def && d.def->analytic) start_demo_run(app, d);
        else look_for_kept_run(d);
    }
}

void open_solo_demo(AppState& app, const std::string& demo_id) {
    stop_all_demos(app);
    app.checks.clear();
    app.reviewing = false;
    app.lesson_index = -1;
    app.solo_demo = demo_id;
    app.scroll_request = 0;
    DemoInstance instance;
    instance.def = icl::find_demo(demo_id);
    instance.name = demo_id;
    instance.lesson_params = nlohmann::json::object();
    instance.params = nlohmann::json::object();
    if (!instance.def) instance.error = "unknown demo '" + demo_id + "'";
    else instance.controls = instance.def->params;
    app.demos.push_back(std::move(instance));
    if (app.demos.back().def && app.demos.back().def->analytic) start_demo_run(app, app.demos.back());
    else look_for_kept_run(app.demos.back());
}

void set_language(AppState& app, const std::string& lang) {
    if (lang == app.lang) return;
    const std::string open_id = app.lesson() ? app.lesson()->lesson.id : "";
    app.lang = lang;
    app.progress.lang = lang;
    if (app.reviewing) {
        open_review(app);
        save(app);
        return;
    }
    if (app.lesson_index < 0) {
        if (!app.solo_demo.empty()) open_solo_demo(app, app.solo_demo);  // its texts are per language
        save(app);
        return;
    }
    const auto& lessons = app.library.of(lang);
    int index = lessons.empty() ? -1 : 0;
    for (size_t k = 0; k < lessons.size(); ++k)
        if (lessons[k].lesson.id == open_id) index = static_cast<int>(k);
    if (!open_id.empty() && (index < 0 || lessons[index].lesson.id != open_id))
        app.notices.push_back(std::string(ui(lang, "no_translation")) + " " + open_id);
    open_lesson(app, index);
}

namespace {
// A catalogue, loaded once: `load` is icl::load_texts or the app's own (app.json).
const icl::Texts& cached(const std::string& key, const std::function<icl::Expected<icl::Texts>()>& load) {
    static std::map<std::string, icl::Texts> cache;
    auto it = cache.find(key);
    if (it == cache.end()) {
        auto texts = load();
        if (!texts) std::fprintf(stderr, "icl-lab: %s\n", texts.error().message.c_str());
        it = cache.emplace(key, texts ? texts.value() : icl::Texts()).first;
    }
    return it->second;
}
}  // namespace

const icl::Texts& demo_texts(const std::string& lang, const std::string& id) {
    return cached(lang + "/" + id, [&] { return icl::load_texts(lang, id); });
}

std::string learner_text(const std::string& lang, const icl::Error& error) {
    return cached(lang + "#common", [&] { return icl::load_catalogue(lang, {"common"}); })(error);
}

const char* ui(const std::string& lang, const char* key, std::initializer_list<icl::TextArg> args) {
    static std::map<std::string, std::string> shown;  // node-stable: the pointers stay valid
    const icl::Texts& t = cached(lang + "#app", [&] { return icl::load_catalogue(lang, {"app"}); });
    std::string text = t(key, args);
    auto it = shown.find(text);
    if (it == shown.end()) it = shown.emplace(text, text).first;
    return it->second.c_str();
}

std::vector<std::string> all_label_texts(const std::string& lang) {
    std::vector<std::string> out;
    const icl::Texts& t = cached(lang + "#app", [&] { return icl::load_catalogue(lang, {"app"}); });
    for (const auto& [key, text] : t.messages().items()) out.push_back(text.get<std::string>());
    return out;
}

void look_for_kept_run(DemoInstance& demo) {
    if (!demo.def || demo.def->analytic) return;
    LoadedKeptRun loaded = load_kept_run(kept_run_path(demo.def->id));
    demo.kept_notice = loaded.notice;
    if (loaded.run && loaded.run->demo == demo.def->id) demo.kept = std::move(loaded.run);
}

bool kept_run_fits(const DemoInstance& demo) {
    if (!demo.def || !demo.kept || demo.kept->seed != demo.seed) return false;
    // As the demo reads them: a control that writes every parameter, or 3 as 3.0, is the same setup.
    auto kept = icl::validate_params(demo.def->params, demo.kept->params);
    auto shown = icl::validate_params(demo.def->params, demo.params);
    return kept && shown && kept.value().to_json() == shown.value().to_json();
}

void start_demo_run(AppState& app, DemoInstance& demo, nlohmann::json resume) {
    if (!demo.def) return;
    demo.run.reset();  // stops and joins a previous run (which writes its checkpoint)
    demo.kept.reset();  // this run is now the kept one
    demo.kept_notice.clear();
    const DemoRun::Keep keep{demo.def->analytic ? "" : kept_run_path(demo.def->id), resume};
    auto run = DemoRun::start(demo.def->id, demo.params, demo_texts(app.lang, demo.def->id), demo.seed, keep);
    if (!run) {
        demo.error = demo_texts(app.lang, demo.def->id)(run.error());
        return;
    }
    demo.error.clear();
    demo.run = std::move(run.value());
    demo.run_params = demo.params;
    demo.run_seed = demo.seed;
}

DemoInstance* find_demo_instance(AppState& app, const std::string& name) {
    for (DemoInstance& d : app.demos) if (d.name == name) return &d;
    return nullptr;
}

bool any_demo_running(const AppState& app) {
    for (const DemoInstance& d : app.demos) if (d.run && d.run->running()) return true;
    return false;
}

icl::Expected<nlohmann::json> answer_json(const icl::CheckBlock& check, const CheckInput& input, const std::string& lang) {
    switch (check.type) {
    case icl::CheckType::Choice:
    case icl::CheckType::Predict:
        if (input.choice.empty()) return icl::make_error(ui(lang, "choose_option"));
        return nlohmann::json(input.choice);
    case icl::CheckType::TrueFalse:
        if (input.choice.empty()) return icl::make_error(ui(lang, "choose_true_false"));
        return nlohmann::json(input.choice == "true");
    case icl::CheckType::Multi: {
        nlohmann::json keys = nlohmann::json::array();
        for (const std::string& k : input.multi) keys.push_back(k);
        return keys;
    }
    case icl::CheckType::Numeric:
    case icl::CheckType::Text:
        if (input.typed.find_first_not_of(" \t") == std::string::npos)
            return icl::make_error(ui(lang, "type_answer"));
        return nlohmann::json(input.typed);
    }
    return icl::make_error("unknown check type");
}

void submit_answer(AppState& app, const icl::CheckBlock& check, const nlohmann::json& answer) {
    CheckInput& input = app.checks[check.id];
    input.verdict.reset();
    input.error.clear();
    // Refused before it is graded: what is stored must read back (icl/progress.h).
    if (auto fits = icl::progress::check_answer(answer); !fits) {
        const size_t bytes = answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
        input.error = ui(app.lang, "answer_too_long", {{"bytes", bytes}, {"max", icl::progress::Bounds{}.max_answer_bytes}});
        return;
    }
    nlohmann::json demo_result = nullptr;
    if (check.type == icl::CheckType::Predict) {
        const std::string instance = check.grading.value("demo", "");
        DemoInstance* demo = find_demo_instance(app, instance);
        auto snapshot = demo && demo->run ? demo->run->snapshot() : nullptr;
        if (!snapshot || !snapshot->done) {
            input.error = std::string(ui(app.lang, "run_demo_first")) + " " + instance;
            return;
        }
        demo_result = icl::to_json(*snapshot);
    }
    auto verdict = icl::grade(icl::to_json(check), answer, demo_result);
    if (!verdict) {
        input.error = learner_text(app.lang, verdict.error());
        return;
    }
    input.verdict = verdict.value();
    input.graded_answer = answer;
    if (check.type == icl::CheckType::Predict)
        if (DemoInstance* demo = find_demo_instance(app, check.grading.value("demo", ""))) demo->held_for.erase(check.id);
    const std::string lesson = page_lesson_id(app);
    if (lesson.empty()) return;
    const bool correct = verdict.value().correct;
    std::vector<std::string> notices;
    auto saved = update_progress(app.progress, app.progress_path, [&](Progress& p) {
        icl::progress::record_answer(p, lesson, check.id, answer, correct, progress_now_ms());
    }, &notices);
    for (const std::string& n : notices) app.notices.push_back(n);
    if (!saved) app.notices.push_back("progress not saved: " + saved.error().message);
}

std::string page_lesson_id(const AppState& app) {
    if (app.reviewing) {
        const auto item = review_item(app);
        return item.first ? item.first->lesson.id : "";
    }
    return app.lesson() ? app.lesson()->lesson.id : "";
}

std::vector<icl::progress::DueCheck> due_for_review(const AppState& app) {
    std::vector<icl::progress::DueCheck> due;
    for (const auto& d : icl::progress::due_checks(app.progress, progress_now_ms()))
        for (const LoadedLesson& l : app.library.of(app.lang))
            if (l.lesson.id == d.lesson)
                for (const icl::LessonBlock& b : l.lesson.blocks)
                    if (const auto* c = std::get_if<icl::CheckBlock>(&b); c && c->id == d.check) due.push_back(d);
    return due;
}

std::pair<const LoadedLesson*, const icl::CheckBlock*> review_item(const AppState& app) {
    if (!app.reviewing || app.review_pos >= app.review_queue.size()) return {nullptr, nullptr};
    const auto& want = app.review_queue[app.review_pos];
    for (const LoadedLesson& l : app.library.of(app.lang))
        if (l.lesson.id == want.lesson)
            for (const icl::LessonBlock& b : l.lesson.blocks)
                if (const auto* c = std::get_if<icl::CheckBlock>(&b); c && c->id == want.check) return {&l, c};
    return {nullptr, nullptr};
}

namespace {
// The review page's check, with its demo when it is a predict check (run it, then answer).
void prepare_review_item(AppState& app) {
    stop_all_demos(app);
    app.checks.clear();
    app.scroll_request = 0;
    const auto [loaded, check] = review_item(app);
    if (!check) return;
    app.checks[check->id] = CheckInput{};
    if (check->type != icl::CheckType::Predict) return;
    const std::string instance = check->grading.value("demo", "");
    for (const icl::LessonBlock& b : loaded->lesson.blocks)
        if (const auto* demo = std::get_if<icl::DemoBlock>(&b); demo && demo->name == instance) {
            DemoInstance d;
            d.def = icl::find_demo(demo->demo);
            d.name = demo->name;
            d.lesson_params = demo->params;
            d.params = demo->params;
            if (!d.def) d.error = "unknown demo '" + demo->demo + "'";
            if (check->hides_result) d.held_for.insert(check->id);  // asked again: not shown before the answer
            app.demos.push_back(std::move(d));
        }
    for (DemoInstance& d : app.demos)
        if (d.def && d.def->analytic) start_demo_run(app, d);
}
}  // namespace

void open_review(AppState& app) {
    app.reviewing = true;
    app.lesson_index = -1;
    app.solo_demo.clear();
    app.review_queue = due_for_review(app);
    app.review_pos = 0;
    prepare_review_item(app);
}

void review_next(AppState& app) {
    if (app.review_pos < app.review_queue.size()) ++app.review_pos;
    prepare_review_item(app);
}

void drop_unfit_answers(AppState& app) {
    for (const auto& [lang, lessons] : app.library.by_lang)
        for (const LoadedLesson& l : lessons) {
            std::vector<nlohmann::json> checks;
            for (const icl::LessonBlock& b : l.lesson.blocks)
                if (const auto* c = std::get_if<icl::CheckBlock>(&b)) checks.push_back(icl::to_json(*c));
            icl::progress::move_checks(app.progress, l.lesson.id, checks);
            for (const std::string& n : icl::progress::drop_unfit_answers(app.progress, l.lesson.id, checks))
                app.notices.push_back(n);
        }
}

int correct_checks(const AppState& app, const LoadedLesson& lesson) {
    const auto saved = app.progress.checks.find(lesson.lesson.id);
    if (saved == app.progress.checks.end()) return 0;
    int correct = 0;
    for (const icl::LessonBlock& block : lesson.lesson.blocks)
        if (const auto* check = std::get_if<icl::CheckBlock>(&block)) {
            auto record = saved->second.find(check->id);
            if (record != saved->second.end() && record->second.correct) ++correct;
        }
    return correct;
}

void save(AppState& app) {
    std::vector<std::string> notices;
    auto saved = update_progress(app.progress, app.progress_path, nullptr, &notices);
    for (const std::string& n : notices) app.notices.push_back(n);
    if (!saved) {
        const std::string notice = "progress not saved: " + saved.error().message;
        if (app.notices.empty() || app.notices.back() != notice) app.notices.push_back(notice);
    }
}
