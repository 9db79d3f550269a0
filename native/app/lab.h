// The desktop app's command-line options and what its main loop keeps between frames
// (main.cpp), shared with the scripted runs the tests drive (scripted_run.cpp).
#pragma once
#include <chrono>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <GLFW/glfw3.h>

#include "app_state.h"
#include "fonts.h"

struct Options {
    std::string lesson, demo, lang, lessons_dir, screenshot, import_file, export_file, export_csv;
    bool run_demos = false, review = false, resume_kept = false;
    std::vector<std::pair<std::string, std::string>> answers;  // check id, value
    std::vector<std::string> sets;     // "<instance>.<name>=<value>"
    int frames = 0;
    float scroll = 0;
    int width = 1280, height = 800;
    float scale = 0;
    std::string drag_param;       // --drag: the points parameter, from and to in data units
    double drag[4] = {0, 0, 0, 0};
};

// Everything the main loop keeps between frames.
struct Lab {
    Options options;
    bool scripted = false;
    AppState app;
    GLFWwindow* window = nullptr;
    float scale = 1;
    Fonts fonts;
    std::vector<std::string> atlas_texts, font_notices;
    std::set<std::string> added_to_atlas;  // texts added after the first build
    bool atlas_stale = false;
    std::chrono::steady_clock::time_point last_atlas_build, last;
    std::vector<std::pair<std::string, std::string>> pending_answers;
    std::vector<std::pair<int, double>> frame_ms, frame_ms_running;
    int frame = 0;
    int exit_status = 0;
    int drag_phase = 0;  // --drag: 0 waiting for the canvas, 1 over the start, 2 pressed, 3 moved, 4 released
};
