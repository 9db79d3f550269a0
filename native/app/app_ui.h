// Drawing the app from its state, one frame at a time: a top bar (language, notices),
// the lesson list with progress, and the open page — lesson text, demo panels, checks.
// Keyboard: Tab/arrows/Space move and press (ImGui navigation); Ctrl+PageDown /
// Ctrl+PageUp open the next / previous lesson; Ctrl+L switches the language.
#pragma once
#include "app_state.h"
#include "fonts.h"

void draw_app(AppState& app, const Fonts& fonts);
