#include "param_controls.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>

nlohmann::json default_param_value(const icl::ParamSpec& spec) {
    switch (spec.type) {
    case icl::ParamType::Int: return static_cast<long long>(std::llround(spec.default_value));
    case icl::ParamType::Float: return spec.default_value;
    case icl::ParamType::Bool: return spec.default_value != 0;
    case icl::ParamType::Choice: {
        const size_t k = static_cast<size_t>(spec.default_value);
        return k < spec.choices.size() ? nlohmann::json(spec.choices[k]) : nlohmann::json(nullptr);
    }
    case icl::ParamType::Text: return spec.default_text;
    }
    return nullptr;
}

bool draw_param_controls(const std::vector<icl::ParamSpec>& specs, nlohmann::json& values, icl::Lang lang) {
    if (!values.is_object()) values = nlohmann::json::object();
    bool changed = false;
    const float label_width = ImGui::GetFontSize() * 9;
    for (const icl::ParamSpec& spec : specs) {
        ImGui::PushID(spec.name.c_str());
        nlohmann::json& value = values[spec.name];
        if (value.is_null()) value = default_param_value(spec);
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(spec.name.c_str());
        const std::string& help = lang == icl::Lang::ko && !spec.help_ko.empty() ? spec.help_ko : spec.help_en;
        if (!help.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help.c_str());
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
            // Ranges over two decades or more, all positive, move in log steps.
            const bool logarithmic = spec.min > 0 && spec.max / spec.min >= 100;
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
                if (ImGui::SmallButton(lang == icl::Lang::ko ? "단어…" : "words…")) ImGui::OpenPopup("vocabulary");
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
