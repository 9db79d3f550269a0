#include "fonts.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <imgui_internal.h>  // ImTextCharFromUtf8

namespace fs = std::filesystem;

namespace {

// Looks for a font file by name under the usual font directories (once per name).
std::string find_font_file(const std::string& file_name) {
    static std::map<std::string, std::string> found;
    if (auto it = found.find(file_name); it != found.end()) return it->second;
    std::string& path = found[file_name];
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
            if (it->path().filename() == file_name) return path = it->path().string();
    }
    return path;
}

// Hangul compatibility jamo and CJK punctuation (syllables come from the texts).
const ImWchar kHangulJamo[] = {0x3000, 0x303F, 0x3131, 0x318F, 0};

// A font's files, each with a stand-in (the browser build packs only the regular and
// bold faces).
struct FontFiles { const char* latin; const char* latin_standin; const char* hangul; const char* hangul_standin; };

std::string find_either(const char* file, const char* standin) {
    std::string path = find_font_file(file);
    return path.empty() ? find_font_file(standin) : path;
}

ImFont* add_font(const FontFiles& files, float size, const ImWchar* ranges, std::vector<std::string>& notices) {
    ImGuiIO& io = ImGui::GetIO();
    const std::string latin = find_either(files.latin, files.latin_standin);
    const std::string hangul = find_either(files.hangul, files.hangul_standin);
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
        font = io.Fonts->AddFontFromFileTTF(latin.c_str(), size, &config, ranges);
    } else {
        ImFontConfig fallback;
        fallback.SizePixels = size;
        font = io.Fonts->AddFontDefault(&fallback);
    }
    if (!hangul.empty()) {
        ImFontConfig merge;
        merge.MergeMode = true;
        merge.OversampleH = 1;  // Hangul is large; no sub-pixel oversampling keeps the atlas small
        io.Fonts->AddFontFromFileTTF(hangul.c_str(), size, &merge, ranges);
    }
    return font;
}

}  // namespace

Fonts load_fonts(float scale, const std::vector<std::string>& texts, std::vector<std::string>& notices) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();

    static ImVector<ImWchar> ranges, result_ranges;  // must outlive the atlas build
    ranges.clear();
    result_ranges.clear();
    ImFontGlyphRangesBuilder used;
    used.AddRanges(io.Fonts->GetGlyphRangesDefault());
    static const ImWchar kGreekAndPunctuation[] = {0x0391, 0x03C9, 0x2010, 0x2027, 0x2030, 0x203A, 0};
    used.AddRanges(kGreekAndPunctuation);
    used.AddRanges(kHangulJamo);
    for (const std::string& t : texts) used.AddText(t.c_str(), t.c_str() + t.size());
    used.BuildRanges(&ranges);
    // Demo results (drawn in the body and bold fonts) also get the symbol blocks they
    // tend to use, so a new result rarely forces a rebuild of the atlas.
    static const ImWchar kResultSymbols[] = {0x0100, 0x017F, 0x0300, 0x036F, 0x0370, 0x03FF, 0x1D00, 0x1DBF,
                                             0x2000, 0x209F, 0x2100, 0x214F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0};
    used.AddRanges(kResultSymbols);
    used.BuildRanges(&result_ranges);

    Fonts fonts;
    fonts.body_size = 16.0f * scale;
    const FontFiles regular{"DejaVuSans.ttf", "DejaVuSans.ttf", "NanumGothic.ttf", "NanumGothic.ttf"},
        oblique{"DejaVuSans-Oblique.ttf", "DejaVuSans.ttf", "NanumGothic.ttf", "NanumGothic.ttf"},
        bold{"DejaVuSans-Bold.ttf", "DejaVuSans-Bold.ttf", "NanumGothicBold.ttf", "NanumGothic.ttf"},
        mono{"DejaVuSansMono.ttf", "DejaVuSans.ttf", "NanumGothicCoding.ttf", "NanumGothic.ttf"};
    fonts.body = add_font(regular, fonts.body_size, result_ranges.Data, notices);
    fonts.italic = add_font(oblique, fonts.body_size, ranges.Data, notices);
    fonts.bold = add_font(bold, fonts.body_size, result_ranges.Data, notices);
    fonts.title = add_font(bold, 28.0f * scale, ranges.Data, notices);
    fonts.heading = add_font(bold, 22.0f * scale, ranges.Data, notices);
    fonts.subheading = add_font(bold, 18.0f * scale, ranges.Data, notices);
    fonts.mono = add_font(mono, 15.0f * scale, ranges.Data, notices);
    io.Fonts->Build();
    return fonts;
}

bool covers(const Fonts& fonts, const std::string& text) {
    const char* p = text.c_str();
    const char* end = p + text.size();
    while (p < end) {
        unsigned int c = 0;
        const int n = ImTextCharFromUtf8(&c, p, end);
        if (n <= 0) break;
        p += n;
        if (c >= 0x20 && !fonts.body->FindGlyphNoFallback(static_cast<ImWchar>(c))) return false;
    }
    return true;
}
