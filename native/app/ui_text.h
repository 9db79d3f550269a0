// The app's words are data: its own labels come from lessons/<lang>/catalogue/app.json
// (over English's), a demo's texts from that demo's catalogue (icl::load_texts), the
// lessons from their folders. A language is a folder of lessons/; the app lists every
// one it finds (LessonLibrary::languages). The font loader takes every text of every
// language so their glyphs are in the atlas (main.cpp).
#pragma once
#include <string>
#include <vector>

#include <icl/demo.h>

// The app's label `key` in `lang` (app.json: "run", "stop", "review_due" ...), filled
// with `args` (icl/texts.h's placeholders). The pointer stays valid for the app's life.
const char* ui(const std::string& lang, const char* key, std::initializer_list<icl::TextArg> args = {});

// Demo `id`'s messages in `lang` (icl::load_texts), loaded once and kept; a catalogue that
// does not load shows its keys as ⟦key⟧ and says why on stderr once.
const icl::Texts& demo_texts(const std::string& lang, const std::string& id);
// An error in the learner's language (common.json's "error.*" texts; else its message).
std::string learner_text(const std::string& lang, const icl::Error& error);

// Every label of app.json in `lang` (for the font atlas).
std::vector<std::string> all_label_texts(const std::string& lang);
