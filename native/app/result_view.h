// The one generic view of a demo's Result: every panel kind drawn from the core's
// structs (demo.h) — line plots (axes, ticks, legend, hover values), heatmaps (colour
// scale, hover values), bars, tables, scalars and notes. No panel knows its demo.
#pragma once
#include <icl/demo.h>

#include "fonts.h"

// Draws every panel of `result` at the cursor, full content width.
void draw_result(const icl::Result& result, const Fonts& fonts);
// Every string the result shows (to check the font atlas has its glyphs).
std::string result_texts(const icl::Result& result);
