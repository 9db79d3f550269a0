#include "result_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>

#include <imgui.h>

#include "icl/format.h"
#include <icl/result_layout.h>

namespace {

using icl::display_number;

// Okabe & Ito's palette, in the order of the web's plots (web/src/plots/common.js,
// SERIES_COLOURS) so a series has the same colour on both: blue, orange, bluish green,
// reddish purple, sky blue, vermillion, black, yellow. The web darkens four of them for
// its white plot; on this dark one they keep Okabe & Ito's own values, and black is white.
const ImU32 kPalette[] = {IM_COL32(0, 114, 178, 255),   IM_COL32(230, 159, 0, 255),  IM_COL32(0, 158, 115, 255),
                          IM_COL32(204, 121, 167, 255), IM_COL32(86, 180, 233, 255), IM_COL32(213, 94, 0, 255),
                          IM_COL32(255, 255, 255, 255), IM_COL32(240, 228, 66, 255)};
const int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
const ImU32 kAxisColour = IM_COL32(200, 200, 200, 255);
const ImU32 kGridColour = IM_COL32(255, 255, 255, 28);

// An axis: data range (in log10 units for a log axis) and its ticks.
struct Axis {
    bool log = false;
    bool integer = false;  // every value on it is whole (steps, shots): no tick between two whole numbers
    double lo = 0, hi = 1;
    double to_axis(double v) const { return log ? std::log10(v) : v; }
    bool usable(double v) const { return std::isfinite(v) && (!log || v > 0); }
    // Fraction 0..1 along the axis.
    double fraction(double v) const { return (to_axis(v) - lo) / (hi - lo); }
    std::vector<double> ticks() const {  // in data units
        std::vector<double> out;
        if (log && hi - lo >= 1) {  // powers of ten, thinned to about six
            for (double e = std::ceil(lo - 1e-9); e <= hi + 1e-9; e += std::max(1.0, std::floor((hi - lo) / 6)))
                out.push_back(std::pow(10.0, e));
            return out;
        }
        // Linear steps of 1, 2 or 5 x 10^k; a log axis spanning less than a decade gets
        // them too, placed in data units.
        const double data_lo = log ? std::pow(10.0, lo) : lo, data_hi = log ? std::pow(10.0, hi) : hi;
        const double raw = (data_hi - data_lo) / 5;
        const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
        double step = raw / magnitude < 2 ? 2 * magnitude : raw / magnitude < 5 ? 5 * magnitude : 10 * magnitude;
        if (integer && !log) step = std::max(1.0, std::round(step));
        for (double t = std::ceil(data_lo / step) * step; t <= data_hi + step * 1e-6; t += step)
            out.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
        return out;
    }
};

// Sets the axis range from the values it will show; a little padding, never empty.
void fit_axis(Axis& axis, double lo, double hi, bool pad) {
    if (!(lo <= hi)) { lo = axis.log ? 1 : 0; hi = axis.log ? 10 : 1; }
    lo = axis.to_axis(lo);
    hi = axis.to_axis(hi);
    if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) { lo -= axis.log ? 0.5 : std::max(0.5, std::fabs(lo) * 0.1);
                                                           hi += axis.log ? 0.5 : std::max(0.5, std::fabs(hi) * 0.1); }
    if (pad) { const double p = (hi - lo) * 0.05; lo -= p; hi += p; }
    axis.lo = lo;
    axis.hi = hi;
}

// Plot frame: the area inside the axes, with tick labels drawn around it.
struct Frame { ImVec2 min, max; };

void draw_axes(ImDrawList* draw, const Frame& f, const Axis& x, const Axis& y, const std::string& x_label,
               const std::string& y_label, bool x_ticks = true) {
    for (double t : x_ticks ? x.ticks() : std::vector<double>{}) {
        const float px = f.min.x + static_cast<float>(x.fraction(t)) * (f.max.x - f.min.x);
        if (px < f.min.x - 0.5f || px > f.max.x + 0.5f) continue;
        draw->AddLine(ImVec2(px, f.min.y), ImVec2(px, f.max.y), kGridColour);
        draw->AddLine(ImVec2(px, f.max.y), ImVec2(px, f.max.y + 4), kAxisColour);
        const std::string label = display_number(t);
        const float w = ImGui::CalcTextSize(label.c_str()).x;
        draw->AddText(ImVec2(px - w / 2, f.max.y + 5), kAxisColour, label.c_str());
    }
    for (double t : y.ticks()) {
        const float py = f.max.y - static_cast<float>(y.fraction(t)) * (f.max.y - f.min.y);
        if (py < f.min.y - 0.5f || py > f.max.y + 0.5f) continue;
        draw->AddLine(ImVec2(f.min.x, py), ImVec2(f.max.x, py), kGridColour);
        draw->AddLine(ImVec2(f.min.x - 4, py), ImVec2(f.min.x, py), kAxisColour);
        const std::string label = display_number(t);
        const ImVec2 size = ImGui::CalcTextSize(label.c_str());
        draw->AddText(ImVec2(f.min.x - 6 - size.x, py - size.y / 2), kAxisColour, label.c_str());
    }
    draw->AddRect(f.min, f.max, kAxisColour);
    const float line = ImGui::GetTextLineHeight();
    if (!x_label.empty()) {
        const float w = ImGui::CalcTextSize(x_label.c_str()).x;
        draw->AddText(ImVec2((f.min.x + f.max.x - w) / 2, f.max.y + 5 + line), kAxisColour, x_label.c_str());
    }
    if (!y_label.empty()) draw->AddText(ImVec2(f.min.x, f.min.y - line - 2), kAxisColour, y_label.c_str());
}

// Reserves the plot's area as one item (so hovering works) and returns its frame.
Frame plot_area(const char* id, float height, float left_margin) {
    const float line = ImGui::GetTextLineHeight();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = std::max(100.0f, ImGui::GetContentRegionAvail().x);
    ImGui::InvisibleButton(id, ImVec2(width, height));
    return Frame{ImVec2(origin.x + left_margin, origin.y + line + 4),
                 ImVec2(origin.x + width - 8, origin.y + height - 2 * line - 8)};
}

void draw_dashed(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 colour, float thickness, float& phase) {
    const float dash = 6, gap = 4;
    const float length = std::hypot(b.x - a.x, b.y - a.y);
    float t = 0;
    while (t < length) {
        const float in_cycle = std::fmod(phase + t, dash + gap);
        const float run = in_cycle < dash ? std::min(dash - in_cycle, length - t) : std::min(dash + gap - in_cycle, length - t);
        if (in_cycle < dash) {
            const ImVec2 p(a.x + (b.x - a.x) * t / length, a.y + (b.y - a.y) * t / length);
            const ImVec2 q(a.x + (b.x - a.x) * (t + run) / length, a.y + (b.y - a.y) * (t + run) / length);
            draw->AddLine(p, q, colour, thickness);
        }
        t += std::max(run, 0.01f);
    }
    phase = std::fmod(phase + length, dash + gap);
}

void draw_lines(const icl::LinesPanel& p, const Fonts& fonts) {
    Axis x{p.log_x}, y{p.log_y};
    x.integer = y.integer = true;
    double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
    for (const icl::Series& s : p.series)
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if (!x.usable(s.x[i]) || !y.usable(s.y[i])) continue;
            x.integer = x.integer && s.x[i] == std::round(s.x[i]);
            y.integer = y.integer && s.y[i] == std::round(s.y[i]);
            x_lo = std::min(x_lo, s.x[i]); x_hi = std::max(x_hi, s.x[i]);
            const double e = i < s.y_err.size() && std::isfinite(s.y_err[i]) ? s.y_err[i] : 0;
            const double lo = y.usable(s.y[i] - e) ? s.y[i] - e : s.y[i];
            y_lo = std::min(y_lo, lo); y_hi = std::max(y_hi, s.y[i] + e);
        }
    fit_axis(x, x_lo, x_hi, false);
    fit_axis(y, y_lo, y_hi, true);

    const float scale = fonts.body_size / 16.0f;
    const Frame f = plot_area("##lines", 280 * scale, 70 * scale);
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw_axes(draw, f, x, y, p.x_label, p.y_label);
    auto to_screen = [&](double vx, double vy) {
        return ImVec2(f.min.x + static_cast<float>(x.fraction(vx)) * (f.max.x - f.min.x),
                      f.max.y - static_cast<float>(y.fraction(vy)) * (f.max.y - f.min.y));
    };
    draw->PushClipRect(f.min, f.max, true);
    for (size_t k = 0; k < p.series.size(); ++k) {
        const icl::Series& s = p.series[k];
        const ImU32 colour = kPalette[k % kPaletteSize];
        const size_t n = std::min(s.x.size(), s.y.size());
        if (s.y_err.size() >= n)
            for (size_t i = 0; i + 1 < n; ++i) {
                const double e0 = s.y_err[i], e1 = s.y_err[i + 1];
                if (!x.usable(s.x[i]) || !x.usable(s.x[i + 1]) || !std::isfinite(e0) || !std::isfinite(e1)) continue;
                if (!y.usable(s.y[i] - e0) || !y.usable(s.y[i + 1] - e1) || !y.usable(s.y[i] + e0) || !y.usable(s.y[i + 1] + e1)) continue;
                const ImVec2 quad[4] = {to_screen(s.x[i], s.y[i] - e0), to_screen(s.x[i + 1], s.y[i + 1] - e1),
                                        to_screen(s.x[i + 1], s.y[i + 1] + e1), to_screen(s.x[i], s.y[i] + e0)};
                draw->AddConvexPolyFilled(quad, 4, (colour & 0x00FFFFFF) | 0x30000000);
            }
        float phase = 0;
        bool have_previous = false;
        ImVec2 previous;
        for (size_t i = 0; i < n; ++i) {
            if (!x.usable(s.x[i]) || !y.usable(s.y[i])) { have_previous = false; continue; }  // a gap
            const ImVec2 point = to_screen(s.x[i], s.y[i]);
            if (s.markers) {  // points only
                draw->AddCircleFilled(point, 4.0f, colour);
                continue;
            }
            if (have_previous) {
                if (s.dashed) draw_dashed(draw, previous, point, colour, 2.0f, phase);
                else draw->AddLine(previous, point, colour, 2.0f);
            } else if (i + 1 >= n || !y.usable(s.y[i + 1])) {
                draw->AddCircleFilled(point, 2.5f, colour);  // an isolated point
            }
            previous = point;
            have_previous = true;
        }
    }
    draw->PopClipRect();

    // Legend, top right inside the frame.
    if (p.series.size() > 1 || (p.series.size() == 1 && !p.series[0].name.empty())) {
        float width = 0;
        for (const icl::Series& s : p.series) width = std::max(width, ImGui::CalcTextSize(s.name.c_str()).x);
        const float line = ImGui::GetTextLineHeight();
        const ImVec2 box_min(f.max.x - width - 40, f.min.y + 6);
        const ImVec2 box_max(f.max.x - 6, f.min.y + 10 + line * p.series.size());
        draw->AddRectFilled(box_min, box_max, IM_COL32(20, 20, 24, 210), 3);
        for (size_t k = 0; k < p.series.size(); ++k) {
            const float ly = box_min.y + 2 + line * k + line / 2;
            draw->AddLine(ImVec2(box_min.x + 6, ly), ImVec2(box_min.x + 24, ly), kPalette[k % kPaletteSize], 2.5f);
            draw->AddText(ImVec2(box_min.x + 30, ly - line / 2), kAxisColour, p.series[k].name.c_str());
        }
    }

    // Hover: the nearest point of each series at the mouse's x.
    if (hovered) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        if (mouse.x >= f.min.x && mouse.x <= f.max.x) {
            const double ax = x.lo + (mouse.x - f.min.x) / (f.max.x - f.min.x) * (x.hi - x.lo);
            draw->AddLine(ImVec2(mouse.x, f.min.y), ImVec2(mouse.x, f.max.y), IM_COL32(255, 255, 255, 80));
            std::string tip;
            for (size_t k = 0; k < p.series.size(); ++k) {
                const icl::Series& s = p.series[k];
                size_t best = s.x.size();
                double best_distance = std::numeric_limits<double>::infinity();
                for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
                    if (!x.usable(s.x[i])) continue;
                    const double d = std::fabs(x.to_axis(s.x[i]) - ax);
                    if (d < best_distance) { best_distance = d; best = i; }
                }
                if (best == s.x.size()) continue;
                if (y.usable(s.y[best])) draw->AddCircle(to_screen(s.x[best], s.y[best]), 4, kPalette[k % kPaletteSize], 0, 2);
                if (tip.empty()) tip = (p.x_label.empty() ? "x" : p.x_label) + " = " + display_number(s.x[best]);
                tip += "\n" + (s.name.empty() ? "y" : s.name) + ": " + display_number(s.y[best]);
                if (best < s.y_err.size()) tip += " ± " + display_number(s.y_err[best]);
            }
            if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
        }
    }
}

// Colour maps: diverging blue-grey-red around 0, sequential dark blue -> yellow.
ImU32 heat_colour(double t, bool diverging) {
    auto mix = [](const float a[3], const float b[3], float u) {
        return IM_COL32(static_cast<int>(255 * (a[0] + (b[0] - a[0]) * u)), static_cast<int>(255 * (a[1] + (b[1] - a[1]) * u)),
                        static_cast<int>(255 * (a[2] + (b[2] - a[2]) * u)), 255);
    };
    if (!std::isfinite(t)) return IM_COL32(255, 0, 255, 255);
    t = std::clamp(t, 0.0, 1.0);
    if (diverging) {
        static const float blue[3] = {0.13f, 0.40f, 0.80f}, mid[3] = {0.93f, 0.93f, 0.93f}, red[3] = {0.80f, 0.15f, 0.15f};
        return t < 0.5 ? mix(blue, mid, static_cast<float>(t * 2)) : mix(mid, red, static_cast<float>(t * 2 - 1));
    }
    static const float stops[5][3] = {{0.27f, 0.00f, 0.33f}, {0.23f, 0.32f, 0.55f}, {0.13f, 0.57f, 0.55f},
                                      {0.37f, 0.79f, 0.38f}, {0.99f, 0.91f, 0.14f}};
    const double scaled = t * 4;
    const int k = std::min(3, static_cast<int>(scaled));
    return mix(stops[k], stops[k + 1], static_cast<float>(scaled - k));
}

void draw_heatmap(const icl::HeatmapPanel& p, const Fonts& fonts) {
    if (p.rows <= 0 || p.cols <= 0 || p.values.size() != static_cast<size_t>(p.rows) * p.cols) {
        ImGui::TextDisabled("(heatmap has no data)");
        return;
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : p.values)
        if (std::isfinite(v)) { lo = std::min(lo, v); hi = std::max(hi, v); }
    if (!(lo <= hi)) { lo = 0; hi = 1; }
    if (p.diverging) { hi = std::max(std::fabs(lo), std::fabs(hi)); lo = -hi; }
    if (hi - lo < 1e-30) { hi = lo + 1; }

    const float scale = fonts.body_size / 16.0f;
    const float line = ImGui::GetTextLineHeight();
    float label_width = 0;
    for (const std::string& l : p.row_labels) label_width = std::max(label_width, ImGui::CalcTextSize(l.c_str()).x);
    const float bar_width = 70 * scale;
    const float avail = std::max(100.0f, ImGui::GetContentRegionAvail().x - label_width - bar_width - 16);
    const float cell = std::clamp(std::min(avail / p.cols, 320.0f * scale / p.rows), 2.0f, 40.0f * scale);
    const bool show_col_labels = !p.col_labels.empty() && cell >= line * 0.9f;
    const bool show_row_labels = !p.row_labels.empty() && cell >= line * 0.9f;

    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float top = origin.y + (p.y_label.empty() ? 0 : line + 2);
    const float left = origin.x + (show_row_labels ? label_width + 6 : 0);
    const float grid_w = cell * p.cols, grid_h = cell * p.rows;
    const float total_h = (top - origin.y) + grid_h + (show_col_labels ? line + 4 : 0) + (p.x_label.empty() ? 0 : line + 4) + 4;
    ImGui::InvisibleButton("##heatmap", ImVec2(left - origin.x + grid_w + bar_width + 16, std::max(total_h, 120 * scale)));
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* draw = ImGui::GetWindowDrawList();

    if (!p.y_label.empty()) draw->AddText(ImVec2(origin.x, origin.y), kAxisColour, p.y_label.c_str());
    for (int r = 0; r < p.rows; ++r)
        for (int c = 0; c < p.cols; ++c) {
            const double v = p.values[static_cast<size_t>(r) * p.cols + c];
            const ImVec2 a(left + c * cell, top + r * cell);
            draw->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), heat_colour((v - lo) / (hi - lo), p.diverging));
        }
    draw->AddRect(ImVec2(left, top), ImVec2(left + grid_w, top + grid_h), kAxisColour);
    if (show_row_labels)
        for (int r = 0; r < p.rows && r < static_cast<int>(p.row_labels.size()); ++r) {
            const float w = ImGui::CalcTextSize(p.row_labels[r].c_str()).x;
            draw->AddText(ImVec2(left - 6 - w, top + r * cell + (cell - line) / 2), kAxisColour, p.row_labels[r].c_str());
        }
    float below = top + grid_h + 2;
    if (show_col_labels) {
        float next_free = -1e9f;  // skip labels that would overlap the previous one
        for (int c = 0; c < p.cols && c < static_cast<int>(p.col_labels.size()); ++c) {
            const float w = ImGui::CalcTextSize(p.col_labels[c].c_str()).x;
            const float x = left + c * cell + (cell - w) / 2;
            if (x < next_free) continue;
            draw->AddText(ImVec2(x, below), kAxisColour, p.col_labels[c].c_str());
            next_free = x + w + 4;
        }
        below += line + 2;
    }
    if (!p.x_label.empty()) {
        const float w = ImGui::CalcTextSize(p.x_label.c_str()).x;
        draw->AddText(ImVec2(left + (grid_w - w) / 2, below), kAxisColour, p.x_label.c_str());
    }

    // Colour scale: a vertical bar with its top, middle and bottom values.
    const float bar_left = left + grid_w + 12, bar_right = bar_left + 14 * scale;
    const float bar_h = std::max(grid_h, 100 * scale);
    const int steps = 32;
    for (int k = 0; k < steps; ++k) {
        const float y0 = top + bar_h * k / steps, y1 = top + bar_h * (k + 1) / steps;
        draw->AddRectFilled(ImVec2(bar_left, y0), ImVec2(bar_right, y1), heat_colour(1.0 - (k + 0.5) / steps, p.diverging));
    }
    draw->AddRect(ImVec2(bar_left, top), ImVec2(bar_right, top + bar_h), kAxisColour);
    const double marks[3] = {hi, (lo + hi) / 2, lo};
    for (int k = 0; k < 3; ++k) {
        const float y = top + bar_h * k / 2 - (k == 0 ? 0 : k == 2 ? line : line / 2);
        draw->AddText(ImVec2(bar_right + 4, y), kAxisColour, display_number(marks[k]).c_str());
    }

    if (hovered) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const int c = static_cast<int>(std::floor((m.x - left) / cell)), r = static_cast<int>(std::floor((m.y - top) / cell));
        if (r >= 0 && r < p.rows && c >= 0 && c < p.cols) {
            const ImVec2 a(left + c * cell, top + r * cell);
            draw->AddRect(a, ImVec2(a.x + cell, a.y + cell), IM_COL32(255, 255, 255, 255), 0, 0, 2);
            const std::string row = r < static_cast<int>(p.row_labels.size()) ? p.row_labels[r] : std::to_string(r);
            const std::string col = c < static_cast<int>(p.col_labels.size()) ? p.col_labels[c] : std::to_string(c);
            ImGui::SetTooltip("%s %s, %s %s\n%s", p.y_label.c_str(), row.c_str(), p.x_label.c_str(), col.c_str(),
                              display_number(p.values[static_cast<size_t>(r) * p.cols + c]).c_str());
        }
    }
}

// A label broken at spaces into at most `max_lines` lines no wider than `width`; the
// last line, or a word wider than a line, loses characters from its end (whole UTF-8
// ones) under an ellipsis.
std::vector<std::string> wrap_label(const std::string& label, float width, size_t max_lines) {
    const auto fits = [&](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x <= width; };
    const auto shorten = [&](std::string base) {
        std::string out = base;
        while (!base.empty() && !fits(out)) {
            do base.pop_back();
            while (!base.empty() && (static_cast<unsigned char>(base.back()) & 0xC0) == 0x80);
            if (!base.empty() && static_cast<unsigned char>(base.back()) >= 0xC0) base.pop_back();
            out = base + "…";
        }
        return out;
    };
    std::vector<std::string> words, lines;
    std::istringstream in(label);
    for (std::string w; in >> w;) words.push_back(w);
    for (size_t k = 0; k < words.size(); ++k) {
        if (!lines.empty() && fits(lines.back() + " " + words[k])) lines.back() += " " + words[k];
        else if (lines.size() < max_lines) lines.push_back(words[k]);
        else { lines.back() += " " + words[k]; break; }
        if (lines.size() == max_lines && k + 1 < words.size() && !fits(lines.back() + " " + words[k + 1])) {
            lines.back() += " " + words[k + 1];  // more than fits: the ellipsis says so
            break;
        }
    }
    for (std::string& l : lines) l = shorten(l);
    return lines;
}

void draw_bars(const icl::BarsPanel& p, const Fonts& fonts) {
    const size_t n = std::min(p.labels.size(), p.values.size());
    double lo = 0, hi = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!std::isfinite(p.values[i])) continue;
        const double e = i < p.errors.size() && std::isfinite(p.errors[i]) ? p.errors[i] : 0;
        lo = std::min(lo, p.values[i] - e);
        hi = std::max(hi, p.values[i] + e);
    }
    Axis x, y;
    x.lo = 0;
    x.hi = std::max<double>(1, n);
    fit_axis(y, lo, hi, true);
    if (lo >= 0) y.lo = 0;  // bars stand on zero

    const float scale = fonts.body_size / 16.0f;
    // Labels take up to three lines under their bars: one line more than plot_area leaves.
    const float line = ImGui::GetTextLineHeight();
    Frame f = plot_area("##bars", 240 * scale + line, 70 * scale);
    f.max.y -= line;
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw_axes(draw, f, x, y, "", p.y_label, /*x_ticks=*/false);  // the bars' labels stand in for x ticks
    const float slot = (f.max.x - f.min.x) / std::max<size_t>(1, n);
    auto y_screen = [&](double v) { return f.max.y - static_cast<float>(y.fraction(v)) * (f.max.y - f.min.y); };
    const float zero = y_screen(0);
    int hovered_bar = -1;
    for (size_t i = 0; i < n; ++i) {
        const float x0 = f.min.x + slot * i + slot * 0.15f, x1 = f.min.x + slot * (i + 1) - slot * 0.15f;
        const ImU32 colour = kPalette[i % kPaletteSize];
        if (std::isfinite(p.values[i])) {
            const float top = y_screen(p.values[i]);
            draw->AddRectFilled(ImVec2(x0, std::min(top, zero)), ImVec2(x1, std::max(top, zero)), colour);
            if (i < p.errors.size() && std::isfinite(p.errors[i]) && p.errors[i] > 0) {
                const float xm = (x0 + x1) / 2;
                const float e0 = y_screen(p.values[i] - p.errors[i]), e1 = y_screen(p.values[i] + p.errors[i]);
                draw->AddLine(ImVec2(xm, e0), ImVec2(xm, e1), kAxisColour, 1.5f);
                draw->AddLine(ImVec2(xm - 4, e0), ImVec2(xm + 4, e0), kAxisColour, 1.5f);
                draw->AddLine(ImVec2(xm - 4, e1), ImVec2(xm + 4, e1), kAxisColour, 1.5f);
            }
        }
        const std::vector<std::string> lines = wrap_label(p.labels[i], slot - 4, 3);
        for (size_t k = 0; k < lines.size(); ++k) {
            const float w = ImGui::CalcTextSize(lines[k].c_str()).x;
            draw->AddText(ImVec2((x0 + x1 - w) / 2, f.max.y + 5 + line * k), kAxisColour, lines[k].c_str());
        }
        if (hovered) {
            const ImVec2 m = ImGui::GetIO().MousePos;
            if (m.x >= f.min.x + slot * i && m.x < f.min.x + slot * (i + 1)) hovered_bar = static_cast<int>(i);
        }
    }
    draw->AddLine(ImVec2(f.min.x, zero), ImVec2(f.max.x, zero), kAxisColour);
    if (hovered_bar >= 0) {
        std::string tip = p.labels[hovered_bar] + ": " + display_number(p.values[hovered_bar]);
        if (hovered_bar < static_cast<int>(p.errors.size())) tip += " ± " + display_number(p.errors[hovered_bar]);
        ImGui::SetTooltip("%s", tip.c_str());
    }
}

void draw_scalars(const icl::ScalarsPanel& p) {
    if (!ImGui::BeginTable("##scalars", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp))
        return;
    for (const icl::Scalar& s : p.items) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        // The catalogue's label (the core falls back to the help), never the identifier.
        ImGui::TextWrapped("%s", (s.label.empty() ? s.help : s.label).c_str());
        if (!s.help.empty() && s.help != s.label && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.help.c_str());
        ImGui::TableNextColumn();
        const std::string value = !s.text.empty() ? s.text : display_number(s.value) + (s.unit.empty() ? "" : " " + s.unit);
        ImGui::TextUnformatted(value.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%.17g", s.value);
    }
    ImGui::EndTable();
}

void draw_table(const icl::TablePanel& p) {
    if (p.columns.empty()) return;
    if (!ImGui::BeginTable("##table", static_cast<int>(p.columns.size()),
                           ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp))
        return;
    for (const std::string& c : p.columns) ImGui::TableSetupColumn(c.c_str());
    ImGui::TableHeadersRow();
    for (const auto& row : p.rows) {
        ImGui::TableNextRow();
        for (size_t c = 0; c < p.columns.size(); ++c) {
            ImGui::TableNextColumn();
            if (c < row.size()) ImGui::TextWrapped("%s", row[c].c_str());
        }
    }
    ImGui::EndTable();
}

}  // namespace

namespace {
const std::string& beside_of(const icl::Panel& panel) {
    static const std::string none;
    if (const auto* l = std::get_if<icl::LinesPanel>(&panel)) return l->beside;
    if (const auto* b = std::get_if<icl::BarsPanel>(&panel)) return b->beside;
    return none;
}

// Panel k of `result`, its title above it.
void draw_panel(const icl::Result& result, size_t k, const Fonts& fonts) {
    ImGui::PushID(static_cast<int>(k));
    std::visit([&fonts](const auto& panel) {
        using T = std::decay_t<decltype(panel)>;
        if (!panel.title.empty()) {
            ImGui::PushFont(fonts.bold);
            ImGui::TextWrapped("%s", panel.title.c_str());
            ImGui::PopFont();
        }
        if constexpr (std::is_same_v<T, icl::LinesPanel>) draw_lines(panel, fonts);
        else if constexpr (std::is_same_v<T, icl::HeatmapPanel>) draw_heatmap(panel, fonts);
        else if constexpr (std::is_same_v<T, icl::BarsPanel>) draw_bars(panel, fonts);
        else if constexpr (std::is_same_v<T, icl::ScalarsPanel>) draw_scalars(panel);
        else if constexpr (std::is_same_v<T, icl::TablePanel>) draw_table(panel);
        else if constexpr (std::is_same_v<T, icl::NotePanel>) ImGui::TextWrapped("%s", panel.text.c_str());
    }, result.panels[k]);
    ImGui::Spacing();
    ImGui::PopID();
}

// The panels not drawn beside a control and not led with, in their order.
std::vector<size_t> folded_of(const icl::Result& result) {
    const std::vector<size_t> lead = icl::lead_panels(result.panels);
    std::vector<size_t> out;
    for (size_t k = 0; k < result.panels.size(); ++k)
        if (beside_of(result.panels[k]).empty() && std::find(lead.begin(), lead.end(), k) == lead.end())
            out.push_back(k);
    return out;
}
}  // namespace

bool has_beside_panels(const icl::Result& result) {
    for (const icl::Panel& p : result.panels)
        if (!beside_of(p).empty()) return true;
    return false;
}

void draw_beside_panels(const icl::Result& result, const Fonts& fonts) {
    for (size_t k = 0; k < result.panels.size(); ++k)
        if (!beside_of(result.panels[k]).empty()) draw_panel(result, k, fonts);
}

size_t folded_panels(const icl::Result& result) { return folded_of(result).size(); }

void draw_result(const icl::Result& result, const Fonts& fonts, const std::string& more_label) {
    if (!result.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", result.error.c_str());
        ImGui::PopStyleColor();
    }
    if (!result.headline.empty()) {  // its **bold** marks dropped: the whole sentence is set bold
        std::string text;
        for (size_t i = 0; i < result.headline.size(); ++i) {
            if (result.headline.compare(i, 2, "**") == 0) { ++i; continue; }
            text += result.headline[i];
        }
        ImGui::PushFont(fonts.bold);
        ImGui::TextWrapped("%s", text.c_str());
        ImGui::PopFont();
        ImGui::Spacing();
    }
    for (size_t k : icl::lead_panels(result.panels)) draw_panel(result, k, fonts);
    const std::vector<size_t> folded = folded_of(result);
    if (folded.empty()) return;
    // The label's ### part is its ID: one per demo, whatever the count, so ImGui keeps
    // the header's state per demo block while the app runs.
    if (ImGui::CollapsingHeader((more_label + "###more-results-" + result.demo).c_str())) {
        ImGui::PushID("more-results");
        for (size_t k : folded) draw_panel(result, k, fonts);
        ImGui::PopID();
    }
}

std::string result_texts(const icl::Result& result) {
    std::string out = result.error + result.headline;
    for (const icl::Panel& panel : result.panels)
        std::visit([&out](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            out += p.title;
            if constexpr (std::is_same_v<T, icl::LinesPanel>) {
                out += p.x_label + p.y_label;
                for (const icl::Series& s : p.series) out += s.name;
            } else if constexpr (std::is_same_v<T, icl::HeatmapPanel>) {
                out += p.x_label + p.y_label;
                for (const std::string& l : p.row_labels) out += l;
                for (const std::string& l : p.col_labels) out += l;
            } else if constexpr (std::is_same_v<T, icl::BarsPanel>) {
                out += p.y_label;
                for (const std::string& l : p.labels) out += l;
            } else if constexpr (std::is_same_v<T, icl::ScalarsPanel>) {
                for (const icl::Scalar& s : p.items) out += s.name + s.unit + s.help + s.label + s.text;
            } else if constexpr (std::is_same_v<T, icl::TablePanel>) {
                for (const std::string& c : p.columns) out += c;
                for (const auto& row : p.rows)
                    for (const std::string& cell : row) out += cell;
            } else if constexpr (std::is_same_v<T, icl::NotePanel>) {
                out += p.text;
            }
        }, panel);
    return out;
}
