// The one generic view of a demo's Result: every panel kind drawn from the core's
// structs (demo.h) — line plots (axes, ticks, legend, hover values), heatmaps (colour
// scale, hover values), bars, tables, scalars and notes. No panel knows its demo.
#pragma once
#include <icl/demo.h>

#include "fonts.h"

// Draws `result` at the cursor, full content width: its headline, then every panel but
// those drawn beside a control (a panel's `beside`), which draw_beside_panels draws.
void draw_result(const icl::Result& result, const Fonts& fonts);
// True if a panel of `result` is to be drawn beside a parameter's control.
bool has_beside_panels(const icl::Result& result);
// The panels of `result` that are drawn beside a control, at the cursor.
void draw_beside_panels(const icl::Result& result, const Fonts& fonts);
// Every string the result shows (to check the font atlas has its glyphs).
std::string result_texts(const icl::Result& result);
