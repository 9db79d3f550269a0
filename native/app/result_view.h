// The one generic view of a demo's Result: every panel kind drawn from the core's
// structs (demo.h) — line plots (axes, ticks, legend, hover values), heatmaps (colour
// scale, hover values), bars, tables, scalars and notes. No panel knows its demo.
#pragma once
#include <icl/demo.h>

#include "fonts.h"

// Draws `result` at the cursor, full content width: its headline, the panels it leads
// with (icl::lead_panels: its headline numbers, its notes, its main chart), then the rest
// under a collapsing header labelled `more_label` (ImGui keeps it open or closed per
// demo for the session). Panels drawn beside a control (a panel's `beside`) are left to
// draw_beside_panels.
void draw_result(const icl::Result& result, const Fonts& fonts, const std::string& more_label);
// How many panels of `result` draw_result folds under its collapsing header.
size_t folded_panels(const icl::Result& result);
// True if a panel of `result` is to be drawn beside a parameter's control.
bool has_beside_panels(const icl::Result& result);
// The panels of `result` that are drawn beside a control, at the cursor.
void draw_beside_panels(const icl::Result& result, const Fonts& fonts);
// Every string the result shows (to check the font atlas has its glyphs).
std::string result_texts(const icl::Result& result);
