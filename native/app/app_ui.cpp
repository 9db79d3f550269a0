#include "app_ui.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "param_controls.h"
#include "result_view.h"
#include "ui_text.h"

namespace {

const ImVec4 kGood(0.45f, 0.85f, 0.45f, 1.0f);
const ImVec4 kBad(1.0f, 0.5f, 0.4f, 1.0f);
const ImVec4 kMuted(0.65f, 0.65f, 0.65f, 1.0f);

void handle_shortcuts(AppState& app) {
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.KeyCtrl) return;
    const int count = static_cast<int>(app.library.of(app.lang).size());
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown)) && count > 0)
        open_lesson(app, std::min(app.lesson_index + 1, count - 1));
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp)) && count > 0)
        open_lesson(app, std::max(app.lesson_index - 1, 0));
    // ImGui 1.86 indexes keys by the platform's codes; GLFW's code for a letter is its ASCII capital.
    if (ImGui::IsKeyPressed('L')) {  // the next language folder, round
        const auto& langs = app.library.languages;
        const auto at = std::find(langs.begin(), langs.end(), app.lang);
        set_language(app, at == langs.end() || at + 1 == langs.end() ? langs.front() : *(at + 1));
    }
}

void draw_top_bar(AppState& app, const Fonts& fonts) {
    ImGui::PushFont(fonts.bold);
    ImGui::TextUnformatted("ICL Lab");
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextColored(kMuted, "%s", ui(app.lang, "tagline"));
    // One button per language folder, each named in its own language (its app.json).
    const auto& langs = app.library.languages;
    float buttons_width = 0;
    for (const std::string& lang : langs)
        buttons_width += ImGui::CalcTextSize(ui(lang, "language_name")).x + 2 * ImGui::GetStyle().FramePadding.x + ImGui::GetStyle().ItemSpacing.x;
    ImGui::SameLine(ImGui::GetContentRegionMax().x - buttons_width + ImGui::GetStyle().ItemSpacing.x);
    for (size_t k = 0; k < langs.size(); ++k) {
        const bool active = app.lang == langs[k];
        ImGui::PushID(static_cast<int>(k));
        if (active) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (ImGui::Button(ui(langs[k], "language_name"))) set_language(app, langs[k]);
        if (active) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+L");
        ImGui::PopID();
        if (k + 1 < langs.size()) ImGui::SameLine();
    }
    for (size_t k = 0; k < app.notices.size(); ++k) {
        ImGui::PushID(static_cast<int>(k));
        if (ImGui::SmallButton("x")) {
            app.notices.erase(app.notices.begin() + k);
            ImGui::PopID();
            break;
        }
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.35f, 1.0f));
        ImGui::TextWrapped("%s", app.notices[k].c_str());
        ImGui::PopStyleColor();
        ImGui::PopID();
    }
    ImGui::Separator();
}

void draw_sidebar(AppState& app, const Fonts& fonts) {
    // Review: how many checks are due, and the page that asks them.
    const size_t due = due_for_review(app).size();
    const std::string review_label = std::string(ui(app.lang, "review_due", {{"count", due}})) + "##review";
    if (due > 0) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.35f, 1.0f));
    if (ImGui::Selectable(review_label.c_str(), app.reviewing)) open_review(app);
    if (due > 0) ImGui::PopStyleColor();
    ImGui::Spacing();
    ImGui::PushFont(fonts.bold);
    ImGui::TextUnformatted(ui(app.lang, "lessons"));
    ImGui::PopFont();
    const auto& lessons = app.library.of(app.lang);
    if (lessons.empty())
        ImGui::TextWrapped("%s", ui(app.lang, "lessons_empty"));
    for (size_t k = 0; k < lessons.size(); ++k) {
        const LoadedLesson& l = lessons[k];
        const int correct = correct_checks(app, l);
        char label[512];
        std::snprintf(label, sizeof label, "%s. %s##lesson%zu", l.lesson.number().c_str(), l.lesson.title.c_str(), k);
        ImGui::PushTextWrapPos(0);
        if (ImGui::Selectable(label, app.lesson_index == static_cast<int>(k))) open_lesson(app, static_cast<int>(k));
        ImGui::PopTextWrapPos();
        if (ImGui::IsItemHovered() && !l.lesson.summary.empty()) ImGui::SetTooltip("%s", l.lesson.summary.c_str());
        if (l.check_count > 0) {
            char progress[64];
            std::snprintf(progress, sizeof progress, "%d / %d", correct, l.check_count);
            ImGui::PushStyleColor(ImGuiCol_PlotHistogram, correct == l.check_count ? kGood : ImVec4(0.3f, 0.55f, 0.9f, 1.0f));
            ImGui::ProgressBar(static_cast<float>(correct) / l.check_count, ImVec2(-1, fonts.body_size * 0.9f), progress);
            ImGui::PopStyleColor();
        }
    }
    ImGui::Spacing();
    ImGui::PushFont(fonts.bold);
    ImGui::TextUnformatted(ui(app.lang, "demos_heading"));
    ImGui::PopFont();
    for (const icl::DemoDef* def : icl::all_demos()) {
        const std::string label = demo_texts(app.lang, def->id)("title") + "##demo" + def->id;
        if (ImGui::Selectable(label.c_str(), app.lesson_index < 0 && app.solo_demo == def->id)) open_solo_demo(app, def->id);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", def->id.c_str());
    }
    // Import and export: the same document the lesson pages download and upload.
    ImGui::Spacing();
    ImGui::PushFont(fonts.bold);
    ImGui::TextUnformatted(ui(app.lang, "progress_heading"));
    ImGui::PopFont();
    ImGui::SetNextItemWidth(-1);
    ImGui::InputText("##transfer", &app.transfer_path);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", ui(app.lang, "progress_file"));
    if (ImGui::SmallButton(ui(app.lang, "import_progress"))) {
        auto merged = import_progress(app.progress, app.progress_path, app.transfer_path);
        if (merged)
            app.notices.push_back("imported " + app.transfer_path + ": " + std::to_string(merged.value().added) +
                                  " new, " + std::to_string(merged.value().updated) + " newer answers");
        else
            app.notices.push_back(merged.error().message);
        drop_unfit_answers(app);
    }
    ImGui::SameLine();
    if (ImGui::SmallButton(ui(app.lang, "export_progress"))) {
        auto written = export_progress(app.progress, app.transfer_path);
        app.notices.push_back(written ? "progress written to " + app.transfer_path : written.error().message);
    }
    ImGui::SameLine();
    if (ImGui::SmallButton(ui(app.lang, "export_csv"))) {
        const std::string csv = app.transfer_path + ".csv";
        auto written = export_summary_csv(app.progress, csv);
        app.notices.push_back(written ? "summary written to " + csv : written.error().message);
    }
    if (!app.library.problems.empty()) {
        ImGui::Spacing();
        ImGui::TextColored(kBad, "%s %zu", ui(app.lang, "source_problems"),
                           app.library.problems.size());
        if (ImGui::IsItemHovered()) {
            std::string all;
            for (const std::string& p : app.library.problems) all += p + "\n";
            ImGui::SetTooltip("%s", all.c_str());
        }
    }
}

// A kept unfinished run of the setup the controls show: Resume it, or Start over (which
// removes it); and why a kept run could not be used.
void draw_kept_run(AppState& app, DemoInstance& demo, bool running) {
    if (!running && kept_run_fits(demo)) {
        const long long step = demo.kept->step;
        ImGui::TextWrapped("%s", ui(app.lang, "note.kept_run.text", {{"step", step}}));
        const std::string resume = std::string(ui(app.lang, "button.resume_kept", {{"step", step}})) + "###resume_kept";
        if (ImGui::Button(resume.c_str())) {
            demo.held_for.clear();
            start_demo_run(app, demo, std::move(demo.kept->checkpoint));
            return;
        }
        ImGui::SameLine();
        if (ImGui::Button(ui(app.lang, "button.discard_kept"))) {
            discard_kept_run(kept_run_path(demo.def->id));
            demo.kept.reset();
        }
    }
    std::string problem = demo.kept_notice;
    if (demo.run && !demo.run->notice().empty()) problem = demo.run->notice();
    if (!problem.empty()) ImGui::TextColored(kBad, "%s", ui(app.lang, "note.resume_failed.text", {{"problem", problem}}));
    if (demo.run && !demo.run->keep_error().empty())
        ImGui::TextColored(kBad, "%s", ui(app.lang, "note.not_kept.text", {{"problem", demo.run->keep_error()}}));
}

void draw_demo(AppState& app, DemoInstance& demo, const Fonts& fonts) {
    ImGui::PushID(demo.name.c_str());
    const float pad = fonts.body_size * 0.5f;
    ImGui::Dummy(ImVec2(0, pad));
    ImGui::Separator();
    if (!demo.def) {
        ImGui::TextColored(kBad, "%s", demo.error.c_str());
        ImGui::PopID();
        return;
    }
    const icl::DemoDef& def = *demo.def;
    ImGui::PushFont(fonts.subheading);
    const icl::Texts& texts = demo_texts(app.lang, def.id);
    ImGui::TextWrapped("%s %s", ui(app.lang, "demo"), texts("title").c_str());
    ImGui::PopFont();
    const std::string summary = texts("summary");
    if (!summary.empty()) ImGui::TextWrapped("%s", summary.c_str());
    if (!def.paper.empty()) ImGui::TextColored(kMuted, "%s %s", ui(app.lang, "paper"), def.paper.c_str());

    const bool running = demo.run && demo.run->running();
    // A result of other parameters than the controls show is dimmed under a note.
    auto full = [&](nlohmann::json p) {  // absent and null values read as their defaults
        if (!p.is_object()) p = nlohmann::json::object();
        for (const icl::ParamSpec& spec : def.params)
            if (!p.contains(spec.name) || p[spec.name].is_null()) p[spec.name] = icl::default_json(spec);
        return p;
    };
    const bool stale = demo.run && (full(demo.run_params) != full(demo.params) || demo.run_seed != demo.seed);
    // Panels that answer a control (a point editor's lines, a prompt's answer) are drawn
    // in a column beside the parameters.
    const auto shown = demo.run ? demo.run->snapshot() : nullptr;
    const bool held = !demo.held_for.empty();  // a predict check on it waits for its answer
    const bool beside = shown && !held && has_beside_panels(*shown) &&
                        ImGui::BeginTable("##beside", 2, ImGuiTableFlags_SizingStretchSame);
    if (beside) ImGui::TableNextColumn();
    if (ImGui::TreeNodeEx(ui(app.lang, "parameters"), ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::BeginDisabled(running && !def.analytic);  // an analytic demo restarts on every edit
        const bool changed = draw_param_controls(demo.controls, demo.params, texts, app.lang);
        int seed = static_cast<int>(demo.seed);
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted("seed");
        ImGui::SameLine(ImGui::GetFontSize() * 9);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
        const bool seed_changed = ImGui::InputInt("##seed", &seed);
        if (seed_changed) demo.seed = static_cast<uint64_t>(std::max(0, seed));
        ImGui::EndDisabled();
        // Analytic demos follow their controls live; training demos wait for Run.
        if (changed || seed_changed) demo.held_for.clear();  // the learner's own setup: shown
        if ((changed || seed_changed) && def.analytic) start_demo_run(app, demo);
        ImGui::TreePop();
    }
    if (beside) {
        ImGui::TableNextColumn();
        if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * 0.45f);
        draw_beside_panels(*shown, fonts);
        if (stale) ImGui::PopStyleVar();
        ImGui::EndTable();
    }

    // One button, Run or Stop, that does what it read when the press began: an edit can
    // start a run between the press and the release (an analytic demo follows its
    // controls), and that release means Run, not the Stop the button has become.
    const std::string run_label = std::string(ui(app.lang, running ? "stop" : "run")) + "###run";
    const bool pressed = ImGui::Button(run_label.c_str());
    if (ImGui::IsItemActivated()) demo.press_stops = running;
    if (pressed) {
        if (demo.press_stops && running) demo.run->stop();
        else if (!running) {
            demo.held_for.clear();
            start_demo_run(app, demo);
        }
        demo.press_stops = false;
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(running);
    if (ImGui::Button(ui(app.lang, "reset_button"))) {
        demo.params = demo.lesson_params;
        demo.seed = 1;
        demo.held_for.clear();
        if (def.analytic) start_demo_run(app, demo);
    }
    ImGui::EndDisabled();
    if (!demo.error.empty()) ImGui::TextColored(kBad, "%s", demo.error.c_str());
    draw_kept_run(app, demo, running);

    if (demo.run) {
        const auto result = demo.run->snapshot();
        if (!def.analytic || running) {
            char overlay[96];
            const char* state = running ? ui(app.lang, "running")
                                : result->done ? ui(app.lang, "done")
                                : ui(app.lang, "stopped");
            std::snprintf(overlay, sizeof overlay, "%s — %.0f%%", state, 100 * result->progress);
            ImGui::ProgressBar(static_cast<float>(result->progress), ImVec2(-1, 0), overlay);
        }
        if (stale) ImGui::TextColored(kMuted, "%s", ui(app.lang, demo.error.empty() ? "stale_note" : "stale_after_error"));
        if (held) {
            ImGui::TextColored(kMuted, "%s", ui(app.lang, "held_note"));
        } else {
            if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * 0.45f);
            draw_result(*result, fonts, ui(app.lang, "folded_results", {{"count", folded_panels(*result)}}));
            if (stale) ImGui::PopStyleVar();
        }
    } else if (!def.analytic) {
        ImGui::TextColored(kMuted, "%s", ui(app.lang, "run_hint"));
    }
    ImGui::Separator();
    ImGui::Dummy(ImVec2(0, pad));
    ImGui::PopID();
}

void draw_check(AppState& app, const icl::CheckBlock& check, const CheckDocs& docs, const Fonts& fonts) {
    CheckInput& input = app.checks[check.id];
    ImGui::PushID(check.id.c_str());
    ImGui::Dummy(ImVec2(0, fonts.body_size * 0.3f));
    ImGui::BeginGroup();
    ImGui::PushFont(fonts.bold);
    ImGui::TextUnformatted(ui(app.lang, "check_heading"));
    ImGui::PopFont();
    draw_markdown(docs.prompt, fonts, "prompt");
    if (check.type == icl::CheckType::Predict && check.grading.value("run", "lesson") == "own")
    {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", ui(app.lang, "own_run_note"));
        ImGui::PopTextWrapPos();
    }

    const float option_indent = fonts.body_size * 1.8f;
    switch (check.type) {
    case icl::CheckType::Choice:
    case icl::CheckType::Predict:
    case icl::CheckType::TrueFalse:
    case icl::CheckType::Multi:
        for (size_t k = 0; k < check.options.size(); ++k) {
            const std::string& key = check.options[k].key;
            ImGui::PushID(key.c_str());
            bool picked;
            if (check.type == icl::CheckType::Multi) {
                picked = input.multi.count(key) > 0;
                if (ImGui::Checkbox("##pick", &picked)) {
                    if (picked) input.multi.insert(key); else input.multi.erase(key);
                }
            } else if (ImGui::RadioButton("##pick", input.choice == key)) {
                input.choice = key;
            }
            ImGui::SameLine(option_indent);
            ImGui::BeginGroup();
            if (check.type == icl::CheckType::TrueFalse && check.options[k].markdown.empty())
                ImGui::TextUnformatted(key == "true" ? ui(app.lang, "true_label") : ui(app.lang, "false_label"));
            else
                draw_markdown(docs.options[k], fonts, "option");
            ImGui::EndGroup();
            ImGui::PopID();
        }
        break;
    case icl::CheckType::Numeric:
    case icl::CheckType::Text:
        ImGui::SetNextItemWidth(fonts.body_size * 16);
        ImGui::InputText("##typed", &input.typed);
        break;
    }

    if (ImGui::Button(ui(app.lang, "check_button"))) {
        auto answer = answer_json(check, input, app.lang);
        if (answer) submit_answer(app, check, answer.value());
        else input.error = learner_text(app.lang, answer.error());
    }
    if (!input.error.empty()) ImGui::TextColored(kBad, "%s", input.error.c_str());
    if (input.verdict) {
        const icl::Verdict& v = *input.verdict;
        if (v.correct) {
            ImGui::TextColored(kGood, "%s", ui(app.lang, "correct"));
        } else {
            ImGui::TextColored(kBad, "%s %s", ui(app.lang, "wrong_answer"),
                               v.correct_answer.c_str());
        }
        ImGui::Indent(option_indent);
        draw_markdown(docs.feedback, fonts, "feedback");
        // The chosen options' own feedback.
        for (size_t k = 0; k < check.options.size(); ++k) {
            const std::string& key = check.options[k].key;
            const nlohmann::json& a = input.graded_answer;
            const bool chosen = (a.is_string() && a.get<std::string>() == key) ||
                                (a.is_boolean() && (a.get<bool>() ? "true" : "false") == key) ||
                                (a.is_array() && std::find(a.begin(), a.end(), key) != a.end());
            if (chosen && !docs.option_feedback[k].blocks.empty()) {
                ImGui::PushID(static_cast<int>(k));
                ImGui::TextColored(kMuted, "%s:", key.c_str());
                ImGui::SameLine();
                ImGui::BeginGroup();
                draw_markdown(docs.option_feedback[k], fonts, "option-feedback");
                ImGui::EndGroup();
                ImGui::PopID();
            }
        }
        ImGui::Unindent(option_indent);
    } else {
        const auto saved = app.progress.checks.find(page_lesson_id(app));
        if (saved != app.progress.checks.end() && saved->second.count(check.id))
            ImGui::TextColored(kMuted, "%s", saved->second.at(check.id).correct
                                                 ? ui(app.lang, "answered_right")
                                                 : ui(app.lang, "answered_wrong"));
    }
    ImGui::EndGroup();
    ImGui::Dummy(ImVec2(0, fonts.body_size * 0.5f));
    ImGui::PopID();
}

// The review page: the due checks one at a time, graded as on their lesson's page.
void draw_review(AppState& app, const Fonts& fonts) {
    ImGui::PushFont(fonts.title);
    ImGui::TextWrapped("%s", ui(app.lang, "review"));
    ImGui::PopFont();
    const auto [loaded, check] = review_item(app);
    if (!check) {
        ImGui::TextWrapped("%s", ui(app.lang, "nothing_due"));
        return;
    }
    ImGui::TextColored(kMuted, "%s %zu / %zu — %s %s", ui(app.lang, "review_of"), app.review_pos + 1,
                       app.review_queue.size(), ui(app.lang, "from_lesson"), loaded->lesson.title.c_str());
    ImGui::Separator();
    for (DemoInstance& d : app.demos) draw_demo(app, d, fonts);
    size_t block = 0;
    for (size_t k = 0; k < loaded->lesson.blocks.size(); ++k)
        if (std::get_if<icl::CheckBlock>(&loaded->lesson.blocks[k]) == check) block = k;
    draw_check(app, *check, loaded->check_docs[block], fonts);
    if (app.checks[check->id].verdict && ImGui::Button(ui(app.lang, "next_check"))) review_next(app);
}

// A lesson's In short, You need or Take away box: its heading and text, a bar beside them.
void draw_box(const AppState& app, const icl::HtmlBlock& html, const MarkdownDoc& doc, const Fonts& fonts) {
    const std::string title = ui(app.lang, ("box." + html.box).c_str());
    if (html.box == "reproduce") {  // starts collapsed, as on the page (<details>)
        if (ImGui::CollapsingHeader(title.c_str())) draw_markdown(doc, fonts, "text");
        return;
    }
    const float pad = fonts.body_size * 0.8f;
    ImGui::Dummy(ImVec2(0, fonts.body_size * 0.3f));
    ImGui::Indent(pad);
    ImGui::BeginGroup();
    ImGui::PushFont(fonts.bold);
    ImGui::TextUnformatted(title.c_str());
    ImGui::PopFont();
    draw_markdown(doc, fonts, "box");
    ImGui::EndGroup();
    ImGui::Unindent(pad);
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    const ImU32 colour = html.box == "take-away" ? IM_COL32(60, 170, 120, 255) : IM_COL32(80, 150, 230, 255);
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(lo.x - pad, lo.y), ImVec2(lo.x - pad + 4, hi.y), colour);
    ImGui::Dummy(ImVec2(0, fonts.body_size * 0.3f));
}

void draw_page(AppState& app, const Fonts& fonts) {
    if (app.scroll_request >= 0) {
        ImGui::SetScrollY(app.scroll_request);
        app.scroll_request = -1;
    }
    const float max_width = fonts.body_size * 48;  // readable line length
    const float avail = ImGui::GetContentRegionAvail().x;
    if (avail > max_width) ImGui::Indent((avail - max_width) / 2);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::min(avail, max_width));
    ImGui::BeginGroup();
    ImGui::PushItemWidth(std::min(avail, max_width));
    const LoadedLesson* loaded = app.lesson();
    if (app.reviewing) {
        draw_review(app, fonts);
    } else if (loaded) {
        const auto glossary = app.library.glossary.find(app.lang);
        set_glossary(glossary == app.library.glossary.end() ? nullptr : &glossary->second);
        ImGui::PushFont(fonts.title);
        ImGui::TextWrapped("%s", loaded->lesson.title.c_str());
        ImGui::PopFont();
        if (!loaded->lesson.summary.empty()) ImGui::TextColored(kMuted, "%s", loaded->lesson.summary.c_str());
        ImGui::TextColored(kMuted, "%s", ui(app.lang, "minutes", {{"n", loaded->minutes}}));
        ImGui::Separator();
        size_t demo_index = 0;
        for (size_t k = 0; k < loaded->lesson.blocks.size(); ++k) {
            const icl::LessonBlock& block = loaded->lesson.blocks[k];
            ImGui::PushID(static_cast<int>(k));
            if (const auto* html = std::get_if<icl::HtmlBlock>(&block); html && !html->box.empty()) {
                draw_box(app, *html, loaded->html_docs[k], fonts);
            } else if (html) {
                draw_markdown(loaded->html_docs[k], fonts, "text");
            } else if (std::holds_alternative<icl::DemoBlock>(block)) {
                if (demo_index < app.demos.size()) draw_demo(app, app.demos[demo_index++], fonts);
            } else if (const auto* check = std::get_if<icl::CheckBlock>(&block)) {
                draw_check(app, *check, loaded->check_docs[k], fonts);
            }
            ImGui::PopID();
            if (app.lesson() != loaded) break;  // a control opened another page this frame
        }
    } else if (!app.demos.empty()) {
        draw_demo(app, app.demos.front(), fonts);
    } else {
        ImGui::TextWrapped("%s", ui(app.lang, "choose_lesson"));
    }
    ImGui::PopItemWidth();
    ImGui::EndGroup();
    ImGui::PopTextWrapPos();
}

}  // namespace

void draw_app(AppState& app, const Fonts& fonts) {
    handle_shortcuts(app);
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->WorkPos);
    ImGui::SetNextWindowSize(viewport->WorkSize);
    ImGui::Begin("ICL Lab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus |
                     ImGuiWindowFlags_NoBackground);  // the clear colour is the background: one full-screen blend less
    draw_top_bar(app, fonts);
    const float sidebar_width = std::min(fonts.body_size * 19, ImGui::GetContentRegionAvail().x * 0.3f);
    ImGui::BeginChild("sidebar", ImVec2(sidebar_width, 0), true);
    draw_sidebar(app, fonts);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("page", ImVec2(0, 0), true);
    draw_page(app, fonts);
    ImGui::EndChild();
    ImGui::End();
}
