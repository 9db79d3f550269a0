// The app's fonts: DejaVu for Latin, Greek and math symbols, merged with Nanum for
// Hangul (Debian's fonts-dejavu-core and fonts-nanum), found at run time. Sizes follow
// the window's content scale (HiDPI).
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

struct Fonts {
    ImFont* body = nullptr;
    ImFont* italic = nullptr;
    ImFont* bold = nullptr;
    ImFont* heading = nullptr;     // h1/h2
    ImFont* subheading = nullptr;  // h3..h6
    ImFont* mono = nullptr;
    float body_size = 16;          // pixels, scale included
};

// Loads the fonts into ImGui's atlas at `scale`. `texts` are the strings the app will
// show (lesson sources, UI labels): their glyphs join the atlas, so every glyph they use
// is present without loading all of Unicode. The body font also gets every Hangul
// syllable (demo results may use any). `notices` receives a message for every font
// file that was not found (then ImGui's built-in font stands in: Hangul shows as '?').
Fonts load_fonts(float scale, const std::vector<std::string>& texts, std::vector<std::string>& notices);
