// icl-lab: the ICL Lab desktop app (Dear ImGui + GLFW + OpenGL3).
// Interactive by default; with --frames it draws that many frames and exits, which the
// tests use together with --screenshot, --answer and --run-demos (scripted_run.cpp).
// Exit status: 0 success, 1 the app could not run (no display, screenshot failed),
// 2 bad usage (unknown option, lesson or demo).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <icl/assets.h>
#include "icl/data_dir.h"
#include "icl/process_memory.h"

#include "app_state.h"
#include "app_ui.h"
#include "lab.h"
#include "param_controls.h"
#include "fonts.h"
#include "math_view.h"
#include "result_view.h"
#include "scripted_run.h"
#include "ui_text.h"
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/html5.h>
#else
#include "screenshot.h"
#endif

namespace {

const char* kUsage =
    "usage: icl-lab [options]\n"
    "  --lesson <id>          open this lesson (default: the last one opened)\n"
    "  --demo <id>            open this demo on its own\n"
    "  --lang en|ko           the language of lessons and labels\n"
    "  --lessons <dir>        the lesson sources (default: $ICL_LESSONS_DIR, the installed\n"
    "                         share/icl-lab/lessons, or lessons/ of the source tree)\n"
    "  --run-demos            start every demo on the page at once\n"
    "  --resume-kept          with --run-demos: a demo with a kept run of its setup resumes it\n"
    "  --set <inst>.<name>=<v> set a demo's parameter as its control would (a text as typed)\n"
    "  --answer <check>=<v>   answer a check of the open lesson; v is JSON (\"b\", [\"a\",\"c\"],\n"
    "                         true, 0.2) or plain text; the verdict is printed\n"
    "  --drag <p>=<x0>,<y0>:<x1>,<y1>  with --frames: press the mouse on the canvas of the\n"
    "                         points parameter p at data (x0, y0), drag to (x1, y1), release\n"
    "  --frames <n>           draw n frames, print frame times, and exit\n"
    "  --screenshot <file>    write the last frame as a PNG (with --frames)\n"
    "  --scroll <pixels>      scroll the page down this far (with --frames, for screenshots)\n"
    "  --size <w>x<h>         window size in screen coordinates (default 1280x800)\n"
    "  --scale <f>            UI scale (default: the monitor's content scale)\n"
    "  --review               open the review page (the checks due again)\n"
    "  --import <file>        merge a progress file (e.g. from the lesson pages) into yours, and exit\n"
    "  --export <file>        write your progress to a file, and exit\n"
    "  --export-csv <file>    write a summary of your answers as CSV (for a teacher), and exit\n"
    "  --version, --help\n"
    "keys: Tab / arrows / Space to move and press; Ctrl+PageDown / Ctrl+PageUp next /\n"
    "previous lesson; Ctrl+L switch language.\n";

int usage_error(const std::string& message) {
    std::fprintf(stderr, "icl-lab: %s\n(see icl-lab --help)\n", message.c_str());
    return 2;
}

// Parses argv; returns -1 to go on, else an exit status.
int parse_options(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char* v = nullptr;
        if (a == "--help") { std::fputs(kUsage, stdout); return 0; }
        if (a == "--version") { std::printf("icl-lab %s\n", ICL_VERSION); return 0; }
        if (a == "--run-demos") { o.run_demos = true; continue; }
        if (a == "--resume-kept") { o.resume_kept = true; continue; }
        if (a == "--review") { o.review = true; continue; }
        if (a != "--lesson" && a != "--demo" && a != "--lang" && a != "--lessons" && a != "--answer" && a != "--set" &&
            a != "--frames" && a != "--screenshot" && a != "--size" && a != "--scale" && a != "--scroll" &&
            a != "--import" && a != "--export" && a != "--export-csv" && a != "--drag")
            return usage_error("unknown option '" + a + "'");
        if (i + 1 >= argc) return usage_error(a + " needs a value");
        v = argv[++i];
        const std::string s = v;
        if (a == "--lesson") o.lesson = s;
        else if (a == "--demo") o.demo = s;
        else if (a == "--lang") {
            if (auto code = icl::check_lang_code(s); !code) return usage_error("--lang: " + code.error().message);
            o.lang = s;
        } else if (a == "--lessons") o.lessons_dir = s;
        else if (a == "--screenshot") o.screenshot = s;
        else if (a == "--import") o.import_file = s;
        else if (a == "--export") o.export_file = s;
        else if (a == "--export-csv") o.export_csv = s;
        else if (a == "--drag") {
            const auto eq = s.find('=');
            char tail = 0;
            if (eq == std::string::npos || eq == 0 ||
                std::sscanf(s.c_str() + eq + 1, "%lf,%lf:%lf,%lf%c", &o.drag[0], &o.drag[1], &o.drag[2], &o.drag[3], &tail) != 4)
                return usage_error("--drag needs <param>=<x0>,<y0>:<x1>,<y1>, not '" + s + "'");
            o.drag_param = s.substr(0, eq);
        }
        else if (a == "--set") o.sets.push_back(s);
        else if (a == "--answer") {
            const size_t eq = s.find('=');
            if (eq == std::string::npos || eq == 0) return usage_error("--answer needs <check id>=<answer>, not '" + s + "'");
            o.answers.emplace_back(s.substr(0, eq), s.substr(eq + 1));
        } else if (a == "--frames") {
            char* end = nullptr;
            const long n = std::strtol(s.c_str(), &end, 10);
            if (*end || n < 1 || n > 1000000) return usage_error("--frames must be a whole number from 1 to 1000000");
            o.frames = static_cast<int>(n);
        } else if (a == "--size") {
            if (std::sscanf(s.c_str(), "%dx%d", &o.width, &o.height) != 2 || o.width < 320 || o.height < 240 ||
                o.width > 8192 || o.height > 8192)
                return usage_error("--size must be <w>x<h>, each from 320x240 to 8192x8192");
        } else if (a == "--scroll") {
            char* end = nullptr;
            o.scroll = std::strtof(s.c_str(), &end);
            if (*end || !(o.scroll >= 0 && o.scroll <= 1e6f)) return usage_error("--scroll must be a number of pixels from 0 to 1000000");
        } else if (a == "--scale") {
            char* end = nullptr;
            o.scale = std::strtof(s.c_str(), &end);
            if (*end || !(o.scale >= 0.5f && o.scale <= 4.0f)) return usage_error("--scale must be a number from 0.5 to 4");
        }
    }
    if (!o.screenshot.empty() && o.frames == 0) return usage_error("--screenshot needs --frames");
    if (!o.drag_param.empty() && o.frames == 0) return usage_error("--drag needs --frames");
    if (!o.lesson.empty() && !o.demo.empty()) return usage_error("give --lesson or --demo, not both");
    return -1;
}

std::string find_lessons_dir(const std::string& given) {
    if (!given.empty()) return given;
#ifdef __EMSCRIPTEN__
    return "lessons";  // packed into icl-lab.data at /lessons (native/app/CMakeLists.txt)
#else
    return icl::find_lessons_dir(ICL_SOURCE_DIR);  // icl/data_dir.h
#endif
}

// Every string the app may draw with the fonts that hold only the glyphs in use.
std::vector<std::string> texts_to_show(const AppState& app) {
    std::vector<std::string> texts;
    for (const auto& [lang, lessons] : app.library.by_lang)
        for (const LoadedLesson& l : lessons) {
            texts.push_back(l.lesson.title + l.lesson.summary);
            for (const MarkdownDoc& d : l.html_docs) texts.push_back(shown_text(d));
            for (const CheckDocs& c : l.check_docs) {
                texts.push_back(shown_text(c.prompt) + shown_text(c.feedback));
                for (const MarkdownDoc& d : c.options) texts.push_back(shown_text(d));
                for (const MarkdownDoc& d : c.option_feedback) texts.push_back(shown_text(d));
            }
        }
    for (const auto& [lang, terms] : app.library.glossary)
        for (const auto& [id, entry] : terms) texts.push_back(entry.term + shown_text(entry.gloss));
    for (const icl::DemoDef* d : icl::all_demos()) {
        for (const std::string& lang : app.library.languages)
            for (const auto& [key, text] : demo_texts(lang, d->id).messages().items()) texts.push_back(text.get<std::string>());
        texts.push_back(d->paper);
        for (const icl::ParamSpec& p : d->params) {
            for (const std::string& c : p.choices) texts.push_back(c);
            texts.push_back(p.default_text);
            for (const std::string& w : p.vocabulary) texts.push_back(w);
        }
    }
    return texts;
}

// Texts the app shows that are not known at start: results, notices, answers.
std::vector<std::string> dynamic_texts(const AppState& app) {
    std::vector<std::string> texts = app.notices;
    for (const DemoInstance& d : app.demos) {
        texts.push_back(d.error);
        for (const auto& item : d.params.items())  // what the learner typed into a text field
            if (item.value().is_string()) texts.push_back(item.value().get<std::string>());
        if (d.run) texts.push_back(result_texts(*d.run->snapshot()));
    }
    for (const auto& [id, input] : app.checks) {
        texts.push_back(input.typed + input.error);
        if (input.verdict) texts.push_back(input.verdict->correct_answer);
    }
    return texts;
}


void glfw_error(int code, const char* message) { std::fprintf(stderr, "icl-lab: GLFW error %d: %s\n", code, message); }

// Opens the window and sets up ImGui and the fonts; false (with a message) if it cannot.
bool open_window(Lab& lab) {
    glfwSetErrorCallback(glfw_error);
    if (!glfwInit()) {
        std::fprintf(stderr, "icl-lab: cannot open a window: no display? (on a machine without one, run under xvfb-run)\n");
        return false;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
#ifdef __EMSCRIPTEN__
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);  // WebGL2
    lab.options.width = static_cast<int>(EM_ASM_INT({ return window.innerWidth; }));
    lab.options.height = static_cast<int>(EM_ASM_INT({ return window.innerHeight; }));
#endif
    lab.window = glfwCreateWindow(lab.options.width, lab.options.height, "ICL Lab", nullptr, nullptr);
    if (!lab.window) {
        std::fprintf(stderr, "icl-lab: cannot create an OpenGL 3 window\n");
        glfwTerminate();
        return false;
    }
    glfwMakeContextCurrent(lab.window);
    glfwSwapInterval(lab.scripted ? 0 : 1);  // scripted runs measure the frame's own cost

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    io.IniFilename = nullptr;  // layout is fixed; nothing to remember
    ImGui::StyleColorsDark();
    lab.scale = lab.options.scale;
    if (lab.scale == 0) {
#ifdef __EMSCRIPTEN__
        lab.scale = static_cast<float>(emscripten_get_device_pixel_ratio());
#else
        float xscale = 1, yscale = 1;
        glfwGetWindowContentScale(lab.window, &xscale, &yscale);
        lab.scale = xscale;
#endif
        lab.scale = std::clamp(lab.scale, 0.5f, 4.0f);
    }
    ImGui::GetStyle().ScaleAllSizes(lab.scale);
    ImGui_ImplGlfw_InitForOpenGL(lab.window, true);
#ifdef __EMSCRIPTEN__
    ImGui_ImplOpenGL3_Init("#version 300 es");
#else
    ImGui_ImplOpenGL3_Init("#version 130");
#endif

    lab.atlas_texts = texts_to_show(lab.app);
    for (const std::string& lang : lab.app.library.languages)
        for (const std::string& t : all_label_texts(lang)) lab.atlas_texts.push_back(t);
    for (const std::string& t : lab.app.notices) lab.atlas_texts.push_back(t);
    lab.fonts = load_fonts(lab.scale, lab.atlas_texts, lab.font_notices);
    lab.last_atlas_build = std::chrono::steady_clock::now();
    for (const std::string& n : lab.font_notices) {
        lab.app.notices.push_back(n);
        std::fprintf(stderr, "icl-lab: %s\n", n.c_str());
    }
    return true;
}

// Text that appeared since the atlas was built (a demo's result, a typed answer):
// rebuild the atlas with it, at most once a second.
void update_font_atlas(Lab& lab) {
    for (const std::string& text : dynamic_texts(lab.app))
        if (!covers(lab.fonts, text) && lab.added_to_atlas.insert(text).second) {
            lab.atlas_texts.push_back(text);
            lab.atlas_stale = true;
        }
    if (!lab.atlas_stale || std::chrono::steady_clock::now() - lab.last_atlas_build < std::chrono::seconds(1)) return;
    const auto t0 = std::chrono::steady_clock::now();
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    lab.fonts = load_fonts(lab.scale, lab.atlas_texts, lab.font_notices);
    ImGui_ImplOpenGL3_CreateFontsTexture();
    lab.last_atlas_build = std::chrono::steady_clock::now();
    if (lab.scripted)
        std::printf("font atlas rebuilt at frame %d in %.0f ms\n", lab.frame + 1,
                    std::chrono::duration<double, std::milli>(lab.last_atlas_build - t0).count());
    lab.atlas_stale = false;
}

// One frame: events, scripted work, drawing. False when a scripted run is over.
bool draw_frame(Lab& lab) {
    AppState& app = lab.app;
#ifdef __EMSCRIPTEN__
    // Follow the browser window's size; run demos in slices of this frame.
    const int width = EM_ASM_INT({ return window.innerWidth; }), height = EM_ASM_INT({ return window.innerHeight; });
    if (width != lab.options.width || height != lab.options.height) {
        lab.options.width = width;
        lab.options.height = height;
        glfwSetWindowSize(lab.window, width, height);
    }
    for (DemoInstance& d : app.demos) {
        if (!d.run || !d.run->running()) continue;
        d.run->advance(8.0 / std::max<size_t>(1, app.demos.size()));
        if (!d.run->running())  // just finished: say so on the console (the browser test reads it)
            std::printf("demo %s: %s, steps %ld\n", d.name.c_str(), d.run->snapshot()->done ? "done" : "stopped",
                        d.run->steps());
    }
    glfwPollEvents();
#else
    // Idle and interactive: sleep until an event; otherwise keep drawing.
    if (!lab.scripted && !any_demo_running(app)) glfwWaitEventsTimeout(0.25);
    else glfwPollEvents();
#endif
    const bool running = any_demo_running(app);
    submit_pending_answers(lab);
    update_font_atlas(lab);

    if (lab.options.scroll > 0) app.scroll_request = lab.options.scroll;  // until the page is long enough to take it
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (lab.scripted) scripted_drag(lab);
    ImGui::NewFrame();
    begin_drawn_matrices();
    draw_app(app, lab.fonts);
    ImGui::Render();
    int fb_width = 0, fb_height = 0;
    glfwGetFramebufferSize(lab.window, &fb_width, &fb_height);
    glViewport(0, 0, fb_width, fb_height);
    glClearColor(0.09f, 0.09f, 0.11f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++lab.frame;
    const bool last_frame = lab.scripted && lab.frame >= lab.options.frames;
    double screenshot_ms = 0;  // not part of the frame's cost
#ifndef __EMSCRIPTEN__
    if (last_frame && !lab.options.screenshot.empty()) {
        const auto t0 = std::chrono::steady_clock::now();
        auto written = write_screenshot(lab.options.screenshot, fb_width, fb_height);
        if (written) std::printf("screenshot %s (%dx%d)\n", lab.options.screenshot.c_str(), fb_width, fb_height);
        else { std::fprintf(stderr, "icl-lab: %s\n", written.error().message.c_str()); lab.exit_status = 1; }
        screenshot_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    glfwSwapBuffers(lab.window);
#endif

    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - lab.last).count() - screenshot_ms;
    lab.last = now;
    if (lab.frame > 1) {  // the first frame includes start-up
        lab.frame_ms.emplace_back(lab.frame, ms);
        if (running) lab.frame_ms_running.emplace_back(lab.frame, ms);
    }
    return !last_frame;
}

}  // namespace

int main(int argc, char** argv) {
#ifndef __EMSCRIPTEN__
    icl::keep_freed_memory();  // icl/process_memory.h (the wasm heap keeps everything)
#endif
    Options options;
    if (int status = parse_options(argc, argv, options); status >= 0) return status;
    const bool scripted = options.frames > 0;

    AppState app;
    const std::string lessons_dir = find_lessons_dir(options.lessons_dir);
    app.library = load_lesson_library(lessons_dir);
    icl::set_asset_dir(lessons_dir);  // the catalogues' texts, and the checkpoints the task-model demos read
    if (!app.library.problems.empty())
        app.notices.push_back(std::to_string(app.library.problems.size()) +
                              " problem(s) in the lesson sources; run `icl lessons check` to see them");
    app.progress_path = default_progress_path();
    LoadedProgress loaded = load_progress(app.progress_path);
    app.progress = loaded.progress;
    if (!loaded.notice.empty()) app.notices.push_back(loaded.notice);
    drop_unfit_answers(app);  // a saved "zzz" must not make its check ungradable
    for (const std::string& n : app.notices) std::fprintf(stderr, "icl-lab: %s\n", n.c_str());
    if (const char* home = std::getenv("HOME"); home && *home)
        app.transfer_path = std::string(home) + "/icl-lab-progress.json";

    // File operations without a window: import, export, the CSV summary.
    if (!options.import_file.empty() || !options.export_file.empty() || !options.export_csv.empty()) {
        int status = 0;
        if (!options.import_file.empty()) {
            auto merged = import_progress(app.progress, app.progress_path, options.import_file);
            if (merged)
                std::printf("imported %s: %d new, %d newer answers\n", options.import_file.c_str(),
                            merged.value().added, merged.value().updated);
            else {
                std::fprintf(stderr, "icl-lab: %s\n", merged.error().message.c_str());
                status = 1;
            }
        }
        if (!options.export_file.empty()) {
            if (auto w = export_progress(app.progress, options.export_file); !w) {
                std::fprintf(stderr, "icl-lab: %s\n", w.error().message.c_str());
                status = 1;
            } else std::printf("exported %s\n", options.export_file.c_str());
        }
        if (!options.export_csv.empty()) {
            if (auto w = export_summary_csv(app.progress, options.export_csv); !w) {
                std::fprintf(stderr, "icl-lab: %s\n", w.error().message.c_str());
                status = 1;
            } else std::printf("exported %s\n", options.export_csv.c_str());
        }
        return status;
    }
    // The language: --lang, else the saved one, if the lessons folder has it; else English.
    const auto& langs = app.library.languages;
    const auto known = [&](const std::string& l) { return std::find(langs.begin(), langs.end(), l) != langs.end(); };
    if (!options.lang.empty() && !known(options.lang)) {
        std::string list;
        for (const std::string& l : langs) list += (list.empty() ? "" : ", ") + l;
        std::fprintf(stderr, "icl-lab: no language '%s' in the lessons folder (it has %s; a language is a folder)\n",
                     options.lang.c_str(), list.c_str());
        return 2;
    }
    app.lang = !options.lang.empty() ? options.lang : known(app.progress.lang) ? app.progress.lang : "en";
    app.progress.lang = app.lang;

    // Which page opens: --lesson, --demo, else the last lesson, else the first.
    const std::string wanted = !options.lesson.empty() ? options.lesson : app.progress.last_lesson;
    const auto& lessons = app.library.of(app.lang);
    int lesson_index = lessons.empty() ? -1 : 0;
    bool found = false;
    for (size_t k = 0; k < lessons.size(); ++k)
        if (lessons[k].lesson.id == wanted) { lesson_index = static_cast<int>(k); found = true; }
    if (!options.lesson.empty() && !found) {
        std::string ids;
        for (const LoadedLesson& l : lessons) ids += " " + l.lesson.id;
        return usage_error("no lesson '" + options.lesson + "' in " + options.lang + " (lessons:" + ids + ")");
    }
    if (!options.demo.empty() && !icl::find_demo(options.demo)) return usage_error("unknown demo '" + options.demo + "'");
    if (!options.answers.empty() && options.lesson.empty()) return usage_error("--answer needs --lesson");

    Lab lab;
    lab.options = options;
    lab.scripted = scripted;
    lab.app = std::move(app);
    if (!open_window(lab)) return 1;
    if (!options.demo.empty()) open_solo_demo(lab.app, options.demo);
    else open_lesson(lab.app, lesson_index);
    if (options.review) open_review(lab.app);
#ifndef __EMSCRIPTEN__
    if (scripted)
#endif
    {   // for the tests (and /lab/'s console): what was read from the stored progress
        size_t answered = 0;
        for (const auto& [lesson, records] : lab.app.progress.checks) answered += records.size();
        std::printf("progress: %zu checks answered, %zu due for review\n", answered, due_for_review(lab.app).size());
    }
    if (lab.app.lesson())
        std::printf("lesson %s %s\n", lab.app.lesson()->lesson.id.c_str(), lab.app.lang.c_str());
    for (const std::string& set : options.sets) {  // as if typed into the demo's control
        const size_t dot = set.find('.'), eq = set.find('=');
        DemoInstance* d = dot < eq && eq != std::string::npos ? find_demo_instance(lab.app, set.substr(0, dot)) : nullptr;
        if (!d || !d->def) return usage_error("--set needs <demo instance on the page>.<parameter>=<value>, not '" + set + "'");
        auto typed = icl::parse_param_strings(d->def->params, {set.substr(dot + 1)});
        if (!typed) return usage_error(typed.error().message);
        for (const auto& item : typed.value().items()) d->params[item.key()] = item.value();
    }
    if (options.run_demos)
        for (DemoInstance& d : lab.app.demos)
            start_demo_run(lab.app, d, options.resume_kept && kept_run_fits(d) ? d.kept->checkpoint : nlohmann::json());
    lab.pending_answers = options.answers;
    lab.last = std::chrono::steady_clock::now();
#ifdef __EMSCRIPTEN__
    // The browser calls draw_frame once per animation frame; main returns at once.
    emscripten_set_main_loop_arg([](void* lab) { draw_frame(*static_cast<Lab*>(lab)); }, new Lab(std::move(lab)), 0, false);
    return 0;
#else
    while (!glfwWindowShouldClose(lab.window) && draw_frame(lab)) {}
    if (scripted) print_summary(lab);
    lab.app.demos.clear();  // stop and join the workers before the window goes
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(lab.window);
    glfwTerminate();
    return lab.exit_status;
#endif
}
