// The scripted runs of the desktop app: the answers, the drag and the summary the tests
// read (tests/app), each a frame's share of a run started with --frames.
#include "scripted_run.h"

#include <algorithm>
#include <cstdio>
#include <variant>

#include <imgui.h>

#include "math_view.h"
#include "param_controls.h"

namespace {

// An --answer value: JSON if it parses, else the text itself.
nlohmann::json parse_answer_value(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_discarded() ? nlohmann::json(text) : j;
}

const icl::CheckBlock* find_check(const AppState& app, const std::string& id) {
    if (app.reviewing) {
        const auto item = review_item(app);
        return item.second && item.second->id == id ? item.second : nullptr;
    }
    if (!app.lesson()) return nullptr;
    for (const icl::LessonBlock& b : app.lesson()->lesson.blocks)
        if (const auto* c = std::get_if<icl::CheckBlock>(&b); c && c->id == id) return c;
    return nullptr;
}

#ifndef __EMSCRIPTEN__
// Frame times as (frame number, ms); prints their summary and the slowest frame.
void print_frame_stats(const char* label, const std::vector<std::pair<int, double>>& frames) {
    if (frames.empty()) {
        std::printf("%s: 0 frames\n", label);
        return;
    }
    std::vector<double> ms;
    for (const auto& f : frames) ms.push_back(f.second);
    const auto slowest = *std::max_element(frames.begin(), frames.end(),
                                           [](const auto& a, const auto& b) { return a.second < b.second; });
    std::sort(ms.begin(), ms.end());
    double sum = 0;
    for (double m : ms) sum += m;
    const double mean = sum / ms.size();
    const double p95 = ms[std::min(ms.size() - 1, static_cast<size_t>(0.95 * ms.size()))];
    std::printf("%s: %zu frames, mean %.2f ms, median %.2f ms, p95 %.2f ms, max %.2f ms at frame %d (%.1f fps)\n",
                label, ms.size(), mean, ms[ms.size() / 2], p95, slowest.second, slowest.first, 1000.0 / mean);
}
#endif

}  // namespace

// --drag: drives the mouse over a frame each, after the backend read the real one.
void scripted_drag(Lab& lab) {
    if (lab.options.drag_param.empty() || lab.drag_phase >= 4) return;
    const icl::ParamSpec* spec = nullptr;
    for (const DemoInstance& d : lab.app.demos)
        if (d.def)
            for (const icl::ParamSpec& s : d.def->params)
                if (s.name == lab.options.drag_param && s.type == icl::ParamType::Points) spec = &s;
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    if (!spec || !points_canvas_at(spec->name, lab.options.drag[0], lab.options.drag[1], *spec, x0, y0)) return;
    points_canvas_at(spec->name, lab.options.drag[2], lab.options.drag[3], *spec, x1, y1);
    ImGuiIO& io = ImGui::GetIO();
    const int phase = lab.drag_phase++;
    io.MousePos = phase == 0 ? ImVec2(x0, y0) : phase == 1 ? ImVec2(x0, y0) : ImVec2(x1, y1);
    io.MouseDown[0] = phase == 1 || phase == 2;
    if (phase == 3) std::printf("dragged %s from (%g, %g) to (%g, %g)\n", spec->name.c_str(), lab.options.drag[0],
                                lab.options.drag[1], lab.options.drag[2], lab.options.drag[3]);
}

// Scripted answers: at once, or for a predict check once its demo has finished.
void submit_pending_answers(Lab& lab) {
    AppState& app = lab.app;
    for (auto it = lab.pending_answers.begin(); it != lab.pending_answers.end();) {
        const icl::CheckBlock* check = find_check(app, it->first);
        bool ready = true;
        if (check && check->type == icl::CheckType::Predict) {
            DemoInstance* demo = find_demo_instance(app, check->grading.value("demo", ""));
            ready = !(demo && demo->run && demo->run->running()) || lab.frame + 1 >= lab.options.frames;
        }
        if (!ready) { ++it; continue; }
        if (!check) {
            std::printf("check %s: error: no such check in this lesson\n", it->first.c_str());
            lab.exit_status = 2;
        } else {
            submit_answer(app, *check, parse_answer_value(it->second));
            const CheckInput& input = app.checks[check->id];
            if (input.verdict)
                std::printf("check %s: %s (correct answer: %s)\n", check->id.c_str(),
                            input.verdict->correct ? "correct" : "incorrect", input.verdict->correct_answer.c_str());
            else
                std::printf("check %s: error: %s\n", check->id.c_str(), input.error.c_str());
        }
        it = lab.pending_answers.erase(it);
    }
}

#ifndef __EMSCRIPTEN__
void print_summary(const Lab& lab) {
    for (const DemoInstance& d : lab.app.demos) {
        if (!d.error.empty()) std::printf("demo %s: refused: %s\n", d.name.c_str(), d.error.c_str());
        if (!d.held_for.empty()) {  // its result not shown: these predict checks wait for their answers
            std::printf("demo %s: result held for", d.name.c_str());
            for (const std::string& id : d.held_for) std::printf(" %s", id.c_str());
            std::printf("\n");
        }
        if (d.kept)  // as the page offers it (after the controls drew the parameters)
            std::printf("demo %s: kept run from step %ld%s\n", d.name.c_str(), d.kept->step,
                        kept_run_fits(d) ? "" : ", of another setup");
        if (!d.kept_notice.empty()) std::printf("demo %s: kept run set aside: %s\n", d.name.c_str(), d.kept_notice.c_str());
        if (!d.run) continue;
        if (d.run->resumed()) std::printf("demo %s: resumed a kept run\n", d.name.c_str());
        if (!d.run->notice().empty()) std::printf("demo %s: kept run set aside: %s\n", d.name.c_str(), d.run->notice().c_str());
        const auto result = d.run->snapshot();
        std::printf("demo %s: %s, progress %.3f, steps %ld%s%s\n", d.name.c_str(),
                    d.run->running() ? "running" : result->done ? "done" : "stopped", result->progress,
                    d.run->steps(), result->error.empty() ? "" : ", error: ", result->error.c_str());
        // The first scalars panel, so a scripted run can compare numbers with `icl run`.
        for (const icl::Panel& p : result->panels)
            if (const auto* s = std::get_if<icl::ScalarsPanel>(&p)) {
                std::printf("demo %s scalars:", d.name.c_str());
                for (const icl::Scalar& item : s->items) std::printf(" %s=%.9g", item.name.c_str(), item.value);
                std::printf("\n");
                break;
            }
        for (const icl::Panel& p : result->panels)  // the first bar chart's tallest bar, as drawn
            if (const auto* bars = std::get_if<icl::BarsPanel>(&p); bars && !bars->labels.empty()) {
                const size_t k = static_cast<size_t>(std::max_element(bars->values.begin(), bars->values.end()) - bars->values.begin());
                std::printf("demo %s: bars '%s': first %s = %.4g\n", d.name.c_str(), bars->title.c_str(),
                            bars->labels[k].c_str(), bars->values[k]);
                break;
            }
    }
    // The lesson's matrices as the last frame laid them out (the app suite checks they are grids).
    for (const DrawnMatrix& m : drawn_matrices())
        std::printf("math: %s %zux%zu [%s] %.0fx%.0f px, text line %.0f px\n", m.env.c_str(), m.rows, m.columns,
                    m.cells.c_str(), m.size.x, m.size.y, m.text_line);
    print_frame_stats("frames", lab.frame_ms);
    print_frame_stats("frames while a demo ran", lab.frame_ms_running);
}
#endif
