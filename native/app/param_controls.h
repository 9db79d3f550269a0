// A demo's controls, built from its ParamSpecs: sliders for numbers (logarithmic when
// the range spans decades), a checkbox for a bool, a combo for a choice, a canvas and
// a table for points. Values live
// in a params JSON object (demo.h's form), which start_demo validates.
#pragma once
#include <string>
#include <vector>

#include <icl/demo.h>
#include <nlohmann/json.hpp>

#include "ui_text.h"

// Draws one control per spec, editing `values` (absent names show their default).
// Returns true when a value changed this frame.
bool draw_param_controls(const std::vector<icl::ParamSpec>& specs, nlohmann::json& values, const icl::Texts& texts,
                         const std::string& lang);
// Screen position of the data point (x, y) on the canvas of the points parameter `name`
// as drawn last frame; false if none was drawn (the scripted drag uses it).
bool points_canvas_at(const std::string& name, double x, double y, const icl::ParamSpec& spec, float& sx, float& sy);
