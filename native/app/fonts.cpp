#include "fonts.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace {

// Looks for a font file by name under the usual font directories.
std::string find_font_file(const std::string& file_name) {
    std::vector<fs::path> roots;
    if (const char* data_home = std::getenv("XDG_DATA_HOME"); data_home && *data_home)
        roots.emplace_back(fs::path(data_home) / "fonts");
    if (const char* home = std::getenv("HOME"); home && *home) {
        roots.emplace_back(fs::path(home) / ".local/share/fonts");
        roots.emplace_back(fs::path(home) / ".fonts");
    }
    roots.emplace_back("/usr/share/fonts");
    roots.emplace_back("/usr/local/share/fonts");
    for (const fs::path& root : roots) {
        std::error_code ec;
        for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().filename() == file_name) return it->path().string();
    }
    return "";
}

// Hangul syllables and compatibility jamo, plus CJK punctuation.
const ImWchar kHangulRanges[] = {0x3000, 0x303F, 0x3131, 0x318F, 0xAC00, 0xD7A3, 0};

struct FontFiles { const char* latin; const char* hangul; };

ImFont* add_font(const FontFiles& files, float size, const ImWchar* latin_ranges, const ImWchar* hangul_ranges,
                 std::vector<std::string>& notices) {
    ImGuiIO& io = ImGui::GetIO();
    const std::string latin = find_font_file(files.latin);
    const std::string hangul = find_font_file(files.hangul);
    auto notice_once = [&notices](const std::string& message) {
        if (std::find(notices.begin(), notices.end(), message) == notices.end()) notices.push_back(message);
    };
    if (latin.empty())
        notice_once(std::string("font ") + files.latin + " not found (install fonts-dejavu-core); using ImGui's built-in font");
    if (hangul.empty())
        notice_once(std::string("Korean font ") + files.hangul +
                    " not found (install fonts-nanum: apt-get install fonts-nanum); Hangul will show as '?'");
    ImFontConfig config;
    config.OversampleH = 2;
    ImFont* font = nullptr;
    if (!latin.empty()) {
        font = io.Fonts->AddFontFromFileTTF(latin.c_str(), size, &config, latin_ranges);
    } else {
        ImFontConfig fallback;
        fallback.SizePixels = size;
        font = io.Fonts->AddFontDefault(&fallback);
    }
    if (!hangul.empty()) {
        ImFontConfig merge;
        merge.MergeMode = true;
        merge.OversampleH = 1;  // Hangul is large; no sub-pixel oversampling keeps the atlas small
        io.Fonts->AddFontFromFileTTF(hangul.c_str(), size, &merge, hangul_ranges);
    }
    return font;
}

}  // namespace

Fonts load_fonts(float scale, const std::vector<std::string>& texts, std::vector<std::string>& notices) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();

    // Glyphs the texts use, plus Latin-1, Greek and the math/arrow/sub-superscript blocks.
    static ImVector<ImWchar> used_ranges;
    static ImVector<ImWchar> body_hangul_ranges;
    used_ranges.clear();
    body_hangul_ranges.clear();
    ImFontGlyphRangesBuilder used;
    used.AddRanges(io.Fonts->GetGlyphRangesDefault());
    static const ImWchar kSymbolRanges[] = {0x0370, 0x03FF, 0x1D00, 0x1DBF, 0x2000, 0x22FF, 0x25A0, 0x25FF,
                                            0x27E6, 0x27EF, 0x2C7C, 0x2C7C, 0};
    used.AddRanges(kSymbolRanges);
    for (const std::string& t : texts) used.AddText(t.c_str(), t.c_str() + t.size());
    used.BuildRanges(&used_ranges);

    ImFontGlyphRangesBuilder body_hangul;
    body_hangul.AddRanges(kHangulRanges);
    for (const std::string& t : texts) body_hangul.AddText(t.c_str(), t.c_str() + t.size());
    body_hangul.BuildRanges(&body_hangul_ranges);

    Fonts fonts;
    fonts.body_size = 16.0f * scale;
    fonts.body = add_font({"DejaVuSans.ttf", "NanumGothic.ttf"}, fonts.body_size, used_ranges.Data,
                          body_hangul_ranges.Data, notices);
    fonts.italic = add_font({"DejaVuSans-Oblique.ttf", "NanumGothic.ttf"}, fonts.body_size, used_ranges.Data,
                            used_ranges.Data, notices);
    fonts.bold = add_font({"DejaVuSans-Bold.ttf", "NanumGothicBold.ttf"}, fonts.body_size, used_ranges.Data,
                          used_ranges.Data, notices);
    fonts.heading = add_font({"DejaVuSans-Bold.ttf", "NanumGothicBold.ttf"}, 24.0f * scale, used_ranges.Data,
                             used_ranges.Data, notices);
    fonts.subheading = add_font({"DejaVuSans-Bold.ttf", "NanumGothicBold.ttf"}, 19.0f * scale, used_ranges.Data,
                                used_ranges.Data, notices);
    fonts.mono = add_font({"DejaVuSansMono.ttf", "NanumGothicCoding.ttf"}, 15.0f * scale, used_ranges.Data,
                          used_ranges.Data, notices);
    io.Fonts->Build();
    return fonts;
}
