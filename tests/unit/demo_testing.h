// Helpers for the demo tests: run a demo to completion and read its panels.
#pragma once
#include <doctest/doctest.h>

#include <string>

#include "icl/assets.h"
#include "icl/demo.h"

namespace icl::testing {

// Builds where a training run of the lessons' length takes minutes, not seconds: ASan
// (g++ defines __SANITIZE_ADDRESS__, clang answers __has_feature) and wasm under node.
// A test whose point is a long run's outcome skips there; the code it runs is covered
// there by the shorter tests of the same demo.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif
#if defined(ICL_WASM)
constexpr bool kWasm = true;
#else
constexpr bool kWasm = false;
#endif

// The shipped lessons' folder as the asset folder: their checkpoints and catalogues.
inline void use_shipped_lessons() { set_asset_dir(ICL_SOURCE_DIR "/lessons"); }

// Demo `id`'s messages in `lang` from the shipped catalogues (lessons/<lang>/catalogue/).
inline Texts texts(const std::string& lang, const std::string& id) {
    use_shipped_lessons();
    auto t = load_texts(lang, id);
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? std::string() : t.error().message));
    return t.value();
}

// The first ⟦key⟧ of a missing message in `shown` and what follows it (60 bytes at most),
// or "" when there is none. doctest builds an assertion's message even when it passes
// (and prints it under -s), so this must not fail on a text that has no such key.
inline std::string missing_message(const std::string& shown) {
    const size_t at = shown.find("⟦");
    return at == std::string::npos ? std::string() : shown.substr(at, 60);
}

inline Result run_demo(const std::string& id, const nlohmann::json& params, const std::string& lang = "en",
                       uint64_t seed = 1) {
    auto session = start_demo(id, params, texts(lang, id), seed);
    REQUIRE_MESSAGE(session.ok(), (session.ok() ? std::string() : session.error().message));
    auto& s = *session.value();
    for (int guard = 0; !s.done() && guard < 1000000; ++guard) s.step(64);
    REQUIRE(s.done());
    Result r = s.result();
    // Every text came from the catalogue: no ⟦key⟧ of a missing message.
    const std::string missing = missing_message(to_json(r).dump());
    CHECK_MESSAGE(missing.empty(), id << " (" << lang << ") shows a missing message: " << missing);
    return r;
}

// The value of the scalar `name` in the result's first panel (which every demo makes
// a ScalarsPanel); fails the test if it is absent.
inline double scalar(const Result& r, const std::string& name) {
    REQUIRE(!r.panels.empty());
    const auto* s = std::get_if<ScalarsPanel>(&r.panels.front());
    REQUIRE(s != nullptr);
    for (const auto& item : s->items)
        if (item.name == name) return item.value;
    FAIL("no scalar named " << name);
    return 0;
}

template <class PanelT>
int count_panels(const Result& r) {
    int n = 0;
    for (const auto& p : r.panels) n += std::holds_alternative<PanelT>(p) ? 1 : 0;
    return n;
}

// Starting the demo with `params` fails with a message that contains every one of `words`.
inline void expect_refused(const std::string& id, const nlohmann::json& params,
                           std::initializer_list<std::string> words) {
    auto session = start_demo(id, params, Texts(), 1);
    REQUIRE_FALSE(session.ok());
    for (const auto& w : words) CHECK_MESSAGE(session.error().message.find(w) != std::string::npos,
                                              session.error().message << " lacks " << w);
}

// Every scalar name is the same in en and ko (lessons refer to scalars by name).
inline void check_scalar_names_stable(const std::string& id, const nlohmann::json& params) {
    const Result en = run_demo(id, params, "en"), ko = run_demo(id, params, "ko");
    const auto& a = std::get<ScalarsPanel>(en.panels.front()).items;
    const auto& b = std::get<ScalarsPanel>(ko.panels.front()).items;
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].name == b[i].name);
        CHECK(a[i].value == b[i].value);
    }
    CHECK(std::holds_alternative<NotePanel>(en.panels.back()));
}

}  // namespace icl::testing
