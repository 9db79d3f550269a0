// The app's fonts: DejaVu for Latin, Greek and math symbols, merged with Nanum for
// Hangul (Debian's fonts-dejavu-core and fonts-nanum), found at run time. Sizes follow
// the window's content scale (HiDPI).
//
// The atlas holds only the glyphs of the texts the app shows (all of Hangul would make
// a 2048x4096 texture that slows software rendering); text that appears later — a
// demo's result — is checked with covers() and the atlas is rebuilt with it.
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

struct Fonts {
    ImFont* body = nullptr;
    ImFont* italic = nullptr;
    ImFont* bold = nullptr;
    ImFont* title = nullptr;       // the lesson's title
    ImFont* heading = nullptr;     // h1/h2
    ImFont* subheading = nullptr;  // h3..h6, demo titles
    ImFont* mono = nullptr;
    float body_size = 16;          // pixels, scale included
};

// Loads the fonts into ImGui's atlas at `scale`, with the glyphs of `texts` plus
// Latin-1, Greek letters and common punctuation. `notices` receives a
// message for every font file that was not found (ImGui's built-in font stands in;
// Hangul then shows as '?'). The caller (re)creates the GPU texture.
Fonts load_fonts(float scale, const std::vector<std::string>& texts, std::vector<std::string>& notices);
// True if every character of `text` has a glyph in the atlas.
bool covers(const Fonts& fonts, const std::string& text);
