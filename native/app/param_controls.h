// A demo's controls, built from its ParamSpecs: sliders for numbers (logarithmic when
// the range spans decades), a checkbox for a bool, a combo for a choice. Values live
// in a params JSON object (demo.h's form), which start_demo validates.
#pragma once
#include <vector>

#include <icl/demo.h>
#include <nlohmann/json.hpp>

// The spec's default value in the params JSON form.
nlohmann::json default_param_value(const icl::ParamSpec& spec);
// Draws one control per spec, editing `values` (absent names show their default).
// Returns true when a value changed this frame.
bool draw_param_controls(const std::vector<icl::ParamSpec>& specs, nlohmann::json& values, icl::Lang lang);
