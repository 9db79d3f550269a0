// Memory bounds: every registered demo, started with every size parameter at its
// maximum, either refuses with a message or runs a step within the demo memory budget;
// a GPT config or checkpoint past the bounds is refused before anything big is
// allocated. Bytes are counted by the test binary's operator new (alloc_meter.h), the
// same way natively, under ASan and in wasm (whose heap is at most 1 GB).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "alloc_meter.h"
#include "demo_testing.h"
#include "icl/assets.h"
#include "icl/checkpoint.h"
#include "icl/demo.h"
#include "icl/demo_memory.h"
#include "icl/gpt.h"

namespace {

using nlohmann::json;
using icl::testing::PeakMeter;

// Peak bytes a demo may take: icl::kDemoMemoryBudget (demo_memory.h), the number
// docs/bad-input.md quotes.
constexpr size_t kDemoBudget = icl::kDemoMemoryBudget;

// The longest a demo's first step(1) may take natively at its largest parameters. A unit
// of step() is what the page's worker cannot interrupt: the Stop button and the page's
// other demos wait for it (worker.js slices runs into steps of about 25 ms). shots_curve's
// unit was once a whole (task, seed) with its 80 fine-tuning runs: 12 s natively, 22 s in wasm
// (node), on a Zen 1.
// Natively only: ASan and wasm run the same unit 3-25 times slower.
constexpr double kLongestStepSeconds = 4.0;

// Every numeric parameter at its max and bools true, and one variant per other choice
// of each choice parameter.
std::vector<json> largest_params(const icl::DemoDef& def) {
    json base = json::object();
    for (const auto& s : def.params) {
        if (s.type == icl::ParamType::Bool) {
            base[s.name] = true;
        } else if (s.type == icl::ParamType::Points) {  // the most points, spread over x
            json pts = json::array();
            for (int k = 0; k < s.max_count; ++k)
                pts.push_back({s.min + (s.max - s.min) * k / std::max(1, s.max_count - 1), s.y_max});
            base[s.name] = pts;
        } else if (s.type == icl::ParamType::Text) {
            base[s.name] = s.default_text;  // the demo bounds its tokens
        } else if (s.type != icl::ParamType::Choice) {
            base[s.name] = s.max;
        }
    }
    std::vector<json> out{base};
    for (const auto& s : def.params)
        if (s.type == icl::ParamType::Choice)
            for (size_t c = 1; c < s.choices.size(); ++c) {
                json v = base;
                v[s.name] = s.choices[c];
                out.push_back(v);
            }
    return out;
}

// Each numeric parameter alone at its advertised min and max, each bool both ways, each
// choice (the others at their defaults): what `icl params` promises will run.
std::vector<json> each_extreme(const icl::DemoDef& def) {
    std::vector<json> out;
    for (const auto& s : def.params) {
        if (s.type == icl::ParamType::Int || s.type == icl::ParamType::Float) {
            out.push_back(json{{s.name, s.min}});
            out.push_back(json{{s.name, s.max}});
        } else if (s.type == icl::ParamType::Bool) {
            out.push_back(json{{s.name, false}});
            out.push_back(json{{s.name, true}});
        } else {
            for (const std::string& c : s.choices) out.push_back(json{{s.name, c}});
        }
    }
    return out;
}

// Each numeric parameter alone at its max: for a demo that refuses the all-max setting
// (e.g. a concept index past its model's), so it is still measured at every size.
std::vector<json> each_at_max(const icl::DemoDef& def) {
    std::vector<json> out;
    for (const auto& s : def.params)
        if (s.type == icl::ParamType::Int || s.type == icl::ParamType::Float) out.push_back(json{{s.name, s.max}});
    return out;
}

}  // namespace

TEST_CASE("bounds: every demo starts with each parameter alone at its advertised minimum and maximum") {
    // Iterates the registry, so a new demo is covered when it lands. Starting is cheap
    // (the runs' memory is the next case's); a refusal here is a range that lies.
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    int started = 0;
    for (const icl::DemoDef* def : icl::all_demos())
        for (const json& params : each_extreme(*def)) {
            auto session = icl::start_demo(def->id, params, icl::Texts(), 1);
            CHECK_MESSAGE(session.ok(), def->id, " ", params.dump(), " is advertised but refused: ",
                          session.ok() ? "" : session.error().message);
            started += session.ok();
        }
    MESSAGE(started << " settings started");
}

namespace {

// One demo at its largest parameters: starts, one step and result() within the budget
// (and within the bound its peak_bytes promises), or a refusal with a message. Returns
// the line of the peak table.
std::string check_largest(const icl::DemoDef& def) {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");  // the shipped checkpoints
    size_t worst = 0;
    std::string worst_params, refusal;
    int refused = 0, settings = 0;
    double worst_step = 0;  // seconds
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<json> settings_list = largest_params(def);
    for (size_t k = 0; k < settings_list.size(); ++k) {
        const json params = settings_list[k];
        CAPTURE(def.id);
        CAPTURE(params.dump());
        ++settings;
        PeakMeter meter;
        {
            auto session = icl::start_demo(def.id, params, icl::Texts(), 1);
            if (!session) {
                CHECK(!session.error().message.empty());
                ++refused;
                refusal = session.error().message.substr(0, 80);
                if (k == 0)
                    for (const json& v : each_at_max(def)) settings_list.push_back(v);
                continue;
            }
            const auto s0 = std::chrono::steady_clock::now();
            session.value()->step(1);
            worst_step = std::max(worst_step, std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count());
            const icl::Result r = session.value()->result();
            CHECK(r.demo == def.id);
        }
        const size_t peak = meter.peak_above_start();
        CHECK_MESSAGE(peak <= kDemoBudget, def.id << " took " << (peak >> 20) << " MiB");
        if (const icl::PeakBytesFn peak_bytes = icl::find_peak_bytes(def.id)) {  // the bound start_demo refuses by holds for what ran
            const size_t bound = peak_bytes(icl::validate_params(def.params, params).value());
            CHECK_MESSAGE(peak <= bound, def.id << " took " << (peak >> 20) << " MiB, over its own bound of " << (bound >> 20));
        }
        if (peak >= worst) { worst = peak; worst_params = params.dump(); }
    }
    if (!icl::testing::kSanitized && !icl::testing::kWasm)
        CHECK_MESSAGE(worst_step <= kLongestStepSeconds, def.id << ": one step took " << worst_step
                      << " s at its largest parameters: a unit of step() must stay small enough to stop");
    char line[96];
    std::snprintf(line, sizeof line, "%.1f MiB (%.2f s; its longest step %.3f s)", worst / 1048576.0,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), worst_step);
    return "  " + def.id + ": peak " + line + " at " + worst_params +
           (refused ? "; refused " + std::to_string(refused) + " of " + std::to_string(settings) + " (" + refusal + ")" : "") + "\n";
}

// The demos with a case of their own below, filled as the cases are defined.
std::vector<std::string>& own_cases() {
    static std::vector<std::string> ids;
    return ids;
}
bool own_case(const char* id) {
    own_cases().push_back(id);
    return true;
}

void check_largest(const char* id) {
    const icl::DemoDef* def = icl::find_demo(id);
    REQUIRE_MESSAGE(def, id << " is not a registered demo: remove its case from test_bounds.cpp");
    MESSAGE("peak bytes of start + one step + result, largest parameters:\n" << check_largest(*def));
}

}  // namespace

// One case per demo (not one for the whole registry, which took ~490 s under ASan alone),
// each on a line of its own, so that tests/unit/shard.sh, which deals test cases
// round-robin in file order, spreads them over the shards.
#define ICL_LARGEST_CASE(id, ...)                                                                         \
    static const bool DOCTEST_ANONYMOUS(largest_case_) = own_case(id);                                  \
    TEST_CASE("bounds: " id " at its largest parameters refuses or runs a step within the budget" __VA_ARGS__) { \
        check_largest(id);                                                                              \
    }
// The four slowest under ASan (pretrain_ft_icl 108 s, demo_labels 59, function_vectors 50,
// fast_weights 37 on a Zen 1) go in the "slow" suite, which shard.sh deals first: one a shard.
ICL_LARGEST_CASE("attention_dual")
ICL_LARGEST_CASE("attention_patterns")
ICL_LARGEST_CASE("bayes_posterior")
ICL_LARGEST_CASE("demo_labels", * doctest::test_suite("slow"))
ICL_LARGEST_CASE("dual_form")
ICL_LARGEST_CASE("emergence_lab")
ICL_LARGEST_CASE("fast_weights", * doctest::test_suite("slow"))
ICL_LARGEST_CASE("function_vectors", * doctest::test_suite("slow"))
ICL_LARGEST_CASE("gpt_scaling")
ICL_LARGEST_CASE("icl_decomposition")
ICL_LARGEST_CASE("icl_regression_curve")
ICL_LARGEST_CASE("icl_vs_finetune")
ICL_LARGEST_CASE("induction_heads")
ICL_LARGEST_CASE("lsa_gd_construction")
ICL_LARGEST_CASE("lsa_training")
ICL_LARGEST_CASE("momentum_attention")
ICL_LARGEST_CASE("newton_vs_gd")
ICL_LARGEST_CASE("pretrain_ft_icl", * doctest::test_suite("slow"))
ICL_LARGEST_CASE("preconditioner_lab")
ICL_LARGEST_CASE("prompt_lab")
ICL_LARGEST_CASE("regression_lab")
ICL_LARGEST_CASE("sequence_lab")
ICL_LARGEST_CASE("shots_curve")
ICL_LARGEST_CASE("task_diversity_lab")
#undef ICL_LARGEST_CASE

TEST_CASE("bounds: every other demo at its largest parameters refuses or runs a step within the budget") {
    // Iterates the registry, so a demo that lands without a case above is still covered
    // (add it there, so it gets a shard of its own).
    std::string table;
    int others = 0;
    for (const icl::DemoDef* def : icl::all_demos()) {
        const std::vector<std::string>& own = own_cases();
        if (std::find(own.begin(), own.end(), def->id) != own.end()) continue;
        ++others;
        table += check_largest(*def);
    }
    MESSAGE(others << " demo(s) without a case of their own" << std::string(table.empty() ? "" : ":\n") << table);
}

TEST_CASE("bounds: a demo whose batch grows with its steps bounds its last step at start") {
    // bayes_posterior's forward batch grows with k: k_max 7 with 512 prompts used to start,
    // peak at 373 MB and fail at k = 7. Its bound (peak_bytes) must hold for a whole run,
    // and every advertised setting must fit the budget.
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    const icl::DemoDef* def = icl::find_demo("bayes_posterior");
    REQUIRE(def);
    const icl::PeakBytesFn peak_bytes = icl::find_peak_bytes("bayes_posterior");
    const bool registered = peak_bytes != nullptr;
    REQUIRE(registered);
    const json small{{"k_max", 7}, {"prompts", 8}, {"query_symbols", 5}};
    size_t peak = 0;
    {
        PeakMeter meter;
        auto session = icl::start_demo("bayes_posterior", small, icl::Texts(), 1);
        REQUIRE(session.ok());
        while (!session.value()->done()) session.value()->step(1);
        CHECK(session.value()->result().error.empty());
        peak = meter.peak_above_start();
    }
    CHECK(peak <= peak_bytes(icl::validate_params(def->params, small).value()));
    auto largest = icl::validate_params(def->params, json{{"k_max", 7}, {"prompts", 256}, {"query_symbols", 5}});
    REQUIRE(largest.ok());
    CHECK(peak_bytes(largest.value()) <= icl::kDemoMemoryBudget);
    icl::Params old_max = largest.value();  // the range this demo used to advertise
    old_max.numbers["prompts"] = 512;
    CHECK(peak_bytes(old_max) > icl::kDemoMemoryBudget);
}

TEST_CASE("bounds: a GPT config past the bounds is refused before its parameters are allocated") {
    icl::gpt::Config c;
    c.vocab = 4096;
    c.context = 1024;
    c.width = 1024;
    c.layers = 24;   // every field inside its own bound, ~300M parameters in all
    c.heads = 16;
    PeakMeter meter;
    auto m = icl::gpt::make_model(c, 1);
    REQUIRE(!m.ok());
    CHECK(m.error().message.find("parameters exceed the bound of 8388608") != std::string::npos);
    CHECK(meter.peak_above_start() < (1u << 20));
}

TEST_CASE("bounds: a checkpoint header claiming a huge model is refused before allocating it") {
    // A real small checkpoint with its config rewritten to width 1024, layers 24: the
    // loader must refuse from the header, not allocate the 300M floats it implies.
    icl::gpt::Config c;
    c.vocab = 8; c.context = 4; c.width = 8; c.layers = 1; c.heads = 2; c.mlp_ratio = 1;
    auto m = icl::gpt::make_model(c, 1);
    REQUIRE(m.ok());
    std::vector<uint8_t> bytes = icl::checkpoint::save(m.value());
    auto put_u32 = [&](size_t at, uint32_t v) { for (int i = 0; i < 4; ++i) bytes[at + i] = uint8_t(v >> (8 * i)); };
    put_u32(16, 4096);  // vocab    (after magic 8, version 4, header_size 4)
    put_u32(24, 1024);  // width
    put_u32(28, 24);    // layers
    PeakMeter meter;
    auto loaded = icl::checkpoint::load(bytes.data(), bytes.size());
    REQUIRE(!loaded.ok());
    CHECK(!loaded.error().message.empty());
    CHECK(meter.peak_above_start() < (1u << 20));
}
