#include "param_controls.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include <imgui.h>

namespace {

// Where each points canvas was drawn last frame, by parameter name (for the scripted drag).
std::map<std::string, std::pair<ImVec2, ImVec2>>& canvases() {
    static std::map<std::string, std::pair<ImVec2, ImVec2>> c;
    return c;
}

double snap(double v, double lo, double hi, double step) {
    v = std::clamp(v, lo, hi);
    if (step > 0) v = std::clamp(std::round(v / step) * step, lo, hi);
    return v;
}

// A points parameter: a canvas (click on empty space adds a point, drag moves one, a
// click on a point or Delete while hovering it removes it) and a table of x, y.
bool draw_points_control(const icl::ParamSpec& spec, nlohmann::json& value) {
    std::vector<icl::Point2> pts;
    if (value.is_array())
        for (const auto& p : value)
            if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number())
                pts.push_back({p[0].get<double>(), p[1].get<double>()});
    bool changed = false;
    const float em = ImGui::GetFontSize();
    const ImVec2 size(std::min(ImGui::GetContentRegionAvail().x, em * 24), em * 14);
    const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + size.x, a.y + size.y);
    canvases()[spec.name] = {a, b};
    auto to_screen = [&](const icl::Point2& p) {
        return ImVec2(a.x + float((p[0] - spec.min) / (spec.max - spec.min)) * size.x,
                      b.y - float((p[1] - spec.y_min) / (spec.y_max - spec.y_min)) * size.y);
    };
    auto from_screen = [&](ImVec2 s) -> icl::Point2 {
        return {snap(spec.min + (s.x - a.x) / size.x * (spec.max - spec.min), spec.min, spec.max, spec.step),
                snap(spec.y_min + (b.y - s.y) / size.y * (spec.y_max - spec.y_min), spec.y_min, spec.y_max, spec.step)};
    };
    ImGui::InvisibleButton("##canvas", size);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(a, b, IM_COL32(255, 255, 255, 255));
    dl->AddRect(a, b, IM_COL32(120, 128, 138, 255));
    if (spec.min < 0 && spec.max > 0) {
        const float x0 = to_screen({0.0, spec.y_min}).x;
        dl->AddLine(ImVec2(x0, a.y), ImVec2(x0, b.y), IM_COL32(220, 224, 228, 255));
    }
    if (spec.y_min < 0 && spec.y_max > 0) {
        const float y0 = to_screen({spec.min, 0.0}).y;
        dl->AddLine(ImVec2(a.x, y0), ImVec2(b.x, y0), IM_COL32(220, 224, 228, 255));
    }
    static std::map<std::string, int> dragging;  // point index under the mouse button, by parameter
    static std::map<std::string, bool> moved;
    const float radius = em * 0.4f;
    int hovered = -1;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if (ImGui::IsItemHovered())
        for (int k = 0; k < static_cast<int>(pts.size()); ++k) {
            const ImVec2 s = to_screen(pts[k]);
            if ((s.x - mouse.x) * (s.x - mouse.x) + (s.y - mouse.y) * (s.y - mouse.y) <= radius * radius * 2.5f) hovered = k;
        }
    auto it = dragging.find(spec.name);
    if (ImGui::IsItemActivated()) {
        dragging[spec.name] = hovered;
        moved[spec.name] = false;
        it = dragging.find(spec.name);
    }
    if (it != dragging.end() && ImGui::IsItemActive() && it->second >= 0 && it->second < static_cast<int>(pts.size())) {
        const ImVec2 delta = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 3.0f);
        if (delta.x != 0 || delta.y != 0) {
            const icl::Point2 p = from_screen(mouse);
            if (p != pts[it->second]) { pts[it->second] = p; changed = true; }
            moved[spec.name] = true;
        }
    }
    if (ImGui::IsItemDeactivated() && it != dragging.end()) {
        const int k = it->second;
        if (!moved[spec.name]) {
            if (k >= 0 && k < static_cast<int>(pts.size())) {
                pts.erase(pts.begin() + k);  // a click on a point removes it
                changed = true;
            } else if (k < 0 && static_cast<int>(pts.size()) < spec.max_count) {
                pts.push_back(from_screen(mouse));
                changed = true;
            }
        }
        dragging.erase(it);
    }
    if (hovered >= 0 && !ImGui::IsItemActive() && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Delete))) {
        pts.erase(pts.begin() + hovered);
        changed = true;
        hovered = -1;
    }
    for (int k = 0; k < static_cast<int>(pts.size()); ++k) {
        const ImVec2 s = to_screen(pts[k]);
        dl->AddCircleFilled(s, radius, k == hovered ? IM_COL32(230, 159, 0, 255) : IM_COL32(0, 114, 178, 255));
        dl->AddCircle(s, radius, IM_COL32(255, 255, 255, 255));
    }
    char count[32];
    std::snprintf(count, sizeof count, "%d / %d", static_cast<int>(pts.size()), spec.max_count);
    dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(count).x - 4, a.y + 2), IM_COL32(89, 99, 110, 255), count);

    // The table: every point's x and y, a remove button, and an add button.
    if (ImGui::BeginTable("##points", 3, ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_Borders,
                          ImVec2(size.x, 0))) {
        int remove = -1;
        for (int k = 0; k < static_cast<int>(pts.size()); ++k) {
            ImGui::PushID(k);
            ImGui::TableNextRow();
            double x = pts[k][0], y = pts[k][1];
            ImGui::TableNextColumn();
            ImGui::SetNextItemWidth(-1);
            if (ImGui::InputDouble("##x", &x, 0, 0, "%.3g", ImGuiInputTextFlags_EnterReturnsTrue)) {
                pts[k][0] = snap(x, spec.min, spec.max, 0);
                changed = true;
            }
            ImGui::TableNextColumn();
            ImGui::SetNextItemWidth(-1);
            if (ImGui::InputDouble("##y", &y, 0, 0, "%.3g", ImGuiInputTextFlags_EnterReturnsTrue)) {
                pts[k][1] = snap(y, spec.y_min, spec.y_max, 0);
                changed = true;
            }
            ImGui::TableNextColumn();
            if (ImGui::SmallButton("x")) remove = k;
            ImGui::PopID();
        }
        ImGui::EndTable();
        if (remove >= 0) { pts.erase(pts.begin() + remove); changed = true; }
    }
    if (static_cast<int>(pts.size()) < spec.max_count && ImGui::SmallButton("+")) {
        pts.push_back({snap(0.5 * (spec.min + spec.max), spec.min, spec.max, spec.step),
                       snap(0.5 * (spec.y_min + spec.y_max), spec.y_min, spec.y_max, spec.step)});
        changed = true;
    }
    if (changed) value = pts;
    return changed;
}

}  // namespace

bool points_canvas_at(const std::string& name, double x, double y, const icl::ParamSpec& spec, float& sx, float& sy) {
    const auto it = canvases().find(name);
    if (it == canvases().end()) return false;
    const auto [a, b] = it->second;
    sx = a.x + float((x - spec.min) / (spec.max - spec.min)) * (b.x - a.x);
    sy = b.y - float((y - spec.y_min) / (spec.y_max - spec.y_min)) * (b.y - a.y);
    return true;
}

bool draw_param_controls(const std::vector<icl::ParamSpec>& specs, nlohmann::json& values, const icl::Texts& texts,
                         const std::string& lang) {
    if (!values.is_object()) values = nlohmann::json::object();
    bool changed = false;
    const float label_width = ImGui::GetFontSize() * 9;
    for (const icl::ParamSpec& spec : specs) {
        ImGui::PushID(spec.name.c_str());
        nlohmann::json& value = values[spec.name];
        if (value.is_null()) value = icl::default_json(spec);
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(spec.name.c_str());
        const std::string help = texts("param." + spec.name);
        if (!help.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help.c_str());
        if (spec.type == icl::ParamType::Points) {  // a canvas below its name, not beside it
            if (!help.empty()) ImGui::TextWrapped("%s", help.c_str());
            changed |= draw_points_control(spec, value);
            ImGui::PopID();
            continue;
        }
        ImGui::SameLine(label_width);
        ImGui::SetNextItemWidth(-1);
        switch (spec.type) {
        case icl::ParamType::Int: {
            int v = value.is_number() ? value.get<int>() : static_cast<int>(spec.default_value);
            const int lo = static_cast<int>(spec.min), hi = static_cast<int>(spec.max);
            if (hi - lo <= 100000 ? ImGui::SliderInt("##v", &v, lo, hi) : ImGui::InputInt("##v", &v)) {
                value = std::clamp(v, lo, hi);
                changed = true;
            }
            break;
        }
        case icl::ParamType::Float: {
            float v = value.is_number() ? value.get<float>() : static_cast<float>(spec.default_value);
            const bool logarithmic = spec.log_scale();  // the core's rule, as on the web
            if (ImGui::SliderFloat("##v", &v, static_cast<float>(spec.min), static_cast<float>(spec.max),
                                   logarithmic ? "%.4g" : "%.3f",
                                   logarithmic ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None)) {
                double d = std::clamp(static_cast<double>(v), spec.min, spec.max);
                if (spec.step > 0) d = std::clamp(spec.min + std::round((d - spec.min) / spec.step) * spec.step, spec.min, spec.max);
                value = d;
                changed = true;
            }
            break;
        }
        case icl::ParamType::Bool: {
            bool v = value.is_boolean() ? value.get<bool>() : spec.default_value != 0;
            if (ImGui::Checkbox("##v", &v)) { value = v; changed = true; }
            break;
        }
        case icl::ParamType::Points: break;  // drawn above
        case icl::ParamType::Choice: {
            const std::string current = value.is_string() ? value.get<std::string>() : "";
            if (ImGui::BeginCombo("##v", current.c_str())) {
                for (const std::string& c : spec.choices)
                    if (ImGui::Selectable(c.c_str(), c == current)) { value = c; changed = true; }
                ImGui::EndCombo();
            }
            break;
        }
        case icl::ParamType::Text: {
            // Room for max_length code points of up to 4 bytes; core checks the length and
            // the words (the error is shown with the demo's other errors).
            const std::string current = value.is_string() ? value.get<std::string>() : spec.default_text;
            std::vector<char> buf(std::max(current.size(), static_cast<size_t>(spec.max_length) * 4) + 1, '\0');
            std::copy(current.begin(), current.end(), buf.begin());
            if (ImGui::InputText("##v", buf.data(), buf.size())) { value = std::string(buf.data()); changed = true; }
            if (!spec.vocabulary.empty()) {
                ImGui::Dummy(ImVec2(label_width - ImGui::GetStyle().ItemSpacing.x, 0));
                ImGui::SameLine(label_width);
                if (ImGui::SmallButton(ui(lang, "words_button"))) ImGui::OpenPopup("vocabulary");
                if (ImGui::BeginPopup("vocabulary")) {
                    // The vocabulary in rows; a click appends the word to the text.
                    const float row = ImGui::GetFontSize() * 24;
                    float x = 0;
                    for (const std::string& w : spec.vocabulary) {
                        const float wd = ImGui::CalcTextSize(w.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
                        if (x > 0 && x + wd < row) ImGui::SameLine();
                        else x = 0;
                        x += wd + ImGui::GetStyle().ItemSpacing.x;
                        if (ImGui::SmallButton(w.c_str())) {
                            std::string t = current;
                            while (!t.empty() && t.back() == ' ') t.pop_back();
                            value = t.empty() ? w : t + " " + w;
                            changed = true;
                        }
                    }
                    ImGui::EndPopup();
                }
            }
            break;
        }
        }
        ImGui::PopID();
    }
    return changed;
}
