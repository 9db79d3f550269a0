// Checkpoints: round trip, and every kind of bad file is an error naming the problem
// that leaves the model being loaded into unchanged. Plus the cross-build check: each
// build writes a checkpoint and its logits under build/cross-build/, and reads the
// other build's.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gpt_test_util.h"
#include "icl/checkpoint.h"
#include "icl/gpt.h"

using namespace icl;

namespace {

gpt::Config ckpt_config() {
    gpt::Config c;
    c.vocab = 11; c.context = 8; c.width = 12; c.layers = 2; c.heads = 3; c.mlp_ratio = 2;
    c.attention = gpt::alternating_dense_banded(2, 3);
    return c;
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = (uint8_t)(v >> (8 * i));
}

// Rewrites the trailing checksum so only the intended edit is wrong.
void reseal(std::vector<uint8_t>& b) {
    const uint64_t h = checkpoint::fnv1a64(b.data(), b.size() - 8);
    for (int i = 0; i < 8; ++i) b[b.size() - 8 + i] = (uint8_t)(h >> (8 * i));
}

// Loads bad bytes into a model and checks the error and that the model is untouched.
void expect_rejected(const std::vector<uint8_t>& bytes, const std::string& words) {
    gpt::Model into = gpt::make_model(ckpt_config(), 99).value();
    const std::vector<float> before = into.params;
    Status s = checkpoint::load_into(into, bytes.data(), bytes.size());
    REQUIRE_FALSE(s.ok());
    INFO("error: " << s.error().message);
    CHECK(s.error().message.find(words) != std::string::npos);
    CHECK(into.params == before);
}

}  // namespace

TEST_CASE("checkpoint: save then load gives the same model") {
    const gpt::Model m = gpt::make_model(ckpt_config(), 5).value();
    const std::vector<uint8_t> bytes = checkpoint::save(m);
    CHECK(bytes.size() == 16 + 7 * 4 + 2 * 12 + 4 + 8 + 4 * m.params.size() +
                              [&] { size_t n = 0; for (auto& t : m.layout.tensors) n += 4 + t.name.size() + 4 + 4 * t.shape.size() + 16; return n; }());
    Expected<gpt::Model> back = checkpoint::load(bytes.data(), bytes.size());
    REQUIRE(back.ok());
    CHECK(back.value().params == m.params);
    CHECK(back.value().config.mask(1).kind == AttentionMask::banded);
    CHECK(back.value().config.mask(1).window == 3);
    gpt::Model into = gpt::make_model(ckpt_config(), 6).value();
    REQUIRE(checkpoint::load_into(into, bytes.data(), bytes.size()).ok());
    CHECK(into.params == m.params);
}

TEST_CASE("checkpoint: truncated, corrupt, wrong-version, wrong-shape files are named errors") {
    const gpt::Model m = gpt::make_model(ckpt_config(), 5).value();
    const std::vector<uint8_t> good = checkpoint::save(m);
    for (size_t cut : {(size_t)0, (size_t)5, (size_t)14, (size_t)40, (size_t)120, good.size() / 2, good.size() - 1}) {
        CAPTURE(cut);
        expect_rejected(std::vector<uint8_t>(good.begin(), good.begin() + (long)cut), "truncated");
    }
    std::vector<uint8_t> b = good;
    b[good.size() / 2] ^= 0x10;  // a flipped bit in the data
    expect_rejected(b, "checksum mismatch");
    b = good;
    b[0] = 'X';
    expect_rejected(b, "bad magic");
    b = good;
    put_u32(b, 8, 5);
    reseal(b);
    expect_rejected(b, "version 5 is not supported");
    // the table says wk is (12, 13): disagrees with the config
    b = good;
    const std::string name = "h0.attn.wk";
    const auto it = std::search(b.begin(), b.end(), name.begin(), name.end());
    REQUIRE(it != b.end());
    put_u32(b, (size_t)(it - b.begin()) + name.size() + 4 + 4, 13);
    reseal(b);
    expect_rejected(b, "tensor 'h0.attn.wk' has shape [12, 13] but the config implies [12, 12]");
    // a valid file for a different model shape
    gpt::Config wider = ckpt_config();
    wider.width = 15;
    const std::vector<uint8_t> other = checkpoint::save(gpt::make_model(wider, 1).value());
    expect_rejected(other, "width 15 (the model has 12)");
    expect_rejected(other, "'wte' [11, 15] vs the model's 'wte' [11, 12]");
    // config past the bounds
    b = good;
    put_u32(b, 16, 100000);  // vocab
    reseal(b);
    expect_rejected(b, "vocab = 100000");
    // bytes after the checksum
    b = good;
    b.push_back(0);
    expect_rejected(b, "unexpected bytes");
    // a NaN weight with a valid checksum
    b = good;
    const size_t data_at = good.size() - 8 - 4 * m.params.size();
    const float nan = NAN;
    std::memcpy(b.data() + data_at + 4 * 3, &nan, 4);
    reseal(b);
    expect_rejected(b, "tensor 'wte' holds a non-finite value at index 3");
}

TEST_CASE("checkpoint: a damaged tensor name is shown escaped, never as raw bytes") {
    const gpt::Model m = gpt::make_model(ckpt_config(), 5).value();
    std::vector<uint8_t> b = checkpoint::save(m);
    const std::string name = "h0.attn.wk";
    const auto it = std::search(b.begin(), b.end(), name.begin(), name.end());
    REQUIRE(it != b.end());
    const std::string damaged = "\xff\xfe\x1b[2Jw\\k\xc3";  // not UTF-8, an escape sequence, a backslash
    REQUIRE(damaged.size() == name.size());
    std::copy(damaged.begin(), damaged.end(), it);
    reseal(b);
    gpt::Model into = gpt::make_model(ckpt_config(), 99).value();
    const Status s = checkpoint::load_into(into, b.data(), b.size());
    REQUIRE_FALSE(s.ok());
    const std::string& message = s.error().message;
    INFO("error: " << message);
    CHECK(message.find("tensor '\\xff\\xfe\\x1b[2Jw\\\\k\\xc3' where the config implies 'h0.attn.wk'") != std::string::npos);
    CHECK(std::none_of(message.begin(), message.end(), [](char c) { return (unsigned char)c < 0x20 || (unsigned char)c >= 0x7f; }));
}

// Native and wasm builds exchange checkpoints through build/cross-build/: each run
// writes its own checkpoints and logits and checks the other build's files if they
// are there (scripts/test runs native before wasm, so the wasm run finds native's).
// Logits use the scalar kernels, whose float operations are the same in both builds,
// except libm's tanhf (glibc vs musl differ by an ulp; GELU uses it): so the
// attention-only model must agree bit for bit, the model with an MLP within 1e-6.
TEST_CASE("checkpoint: a checkpoint written by the other build gives the same logits here") {
#ifdef ICL_WASM
    const std::string self = "wasm", other = "native";
#else
    const std::string self = "native", other = "wasm";
#endif
    const std::string dir = std::string(ICL_TEST_DATA_DIR) + "/../build/cross-build/";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const Isa isa = current_isa();
    set_isa(Isa::scalar);
    for (bool attention_only : {true, false}) {
        gpt::Config c = ckpt_config();
        c.attention_only = attention_only;
        const std::string tag = attention_only ? "_attn" : "_mlp";
        const std::vector<int> tokens = test::random_tokens(2 * 8, c.vocab, 77);
        auto logits_of = [&](const gpt::Model& m) {
            gpt::Activations acts;
            REQUIRE(gpt::forward(m, acts, tokens.data(), nullptr, 2, 8).ok());
            return std::vector<float>(acts.logits_ptr(), acts.logits_ptr() + 2 * 8 * c.vocab);
        };
        // this build's model: trained-looking weights from this build's Rng
        gpt::Model mine = gpt::make_model(c, 2024).value();
        Rng rng(2025);
        for (float& p : mine.params) p += rng.normal(0.0f, 0.3f);
        const std::vector<float> my_logits = logits_of(mine);
        const std::vector<uint8_t> bytes = checkpoint::save(mine);
        {
            std::ofstream f(dir + self + tag + ".ckpt", std::ios::binary);
            std::ofstream g(dir + self + tag + ".logits", std::ios::binary);
            f.write(reinterpret_cast<const char*>(bytes.data()), (std::streamsize)bytes.size());
            g.write(reinterpret_cast<const char*>(my_logits.data()), (std::streamsize)(4 * my_logits.size()));
        }
        const std::vector<uint8_t> theirs = test::read_bytes(dir + other + tag + ".ckpt");
        const std::vector<uint8_t> their_logits_bytes = test::read_bytes(dir + other + tag + ".logits");
        if (theirs.empty() || their_logits_bytes.size() != 4 * my_logits.size()) {
            MESSAGE("no checkpoint from the " << other << " build yet in " << dir << ": run its tests first");
            continue;
        }
        Expected<gpt::Model> loaded = checkpoint::load(theirs.data(), theirs.size());
        REQUIRE_MESSAGE(loaded.ok(), loaded.error().message);
        const std::vector<float> here = logits_of(loaded.value());
        std::vector<float> there(my_logits.size());
        std::memcpy(there.data(), their_logits_bytes.data(), their_logits_bytes.size());
        INFO(tag << ": max difference " << test::scaled_max_diff(here.data(), there.data(), here.size()));
        if (attention_only)
            CHECK(std::memcmp(here.data(), there.data(), 4 * here.size()) == 0);
        else
            CHECK(test::scaled_max_diff(here.data(), there.data(), here.size()) <= 1e-6);
        // both builds draw the same weights from the same seeds: the files are the same bytes
        CHECK(theirs == bytes);
    }
    set_isa(isa);
}

TEST_CASE("checkpoint: random corruptions never crash and never load silently") {
    const gpt::Model m = gpt::make_model(ckpt_config(), 5).value();
    const std::vector<uint8_t> good = checkpoint::save(m);
    Rng rng(31);
    int unsealed = 0, unsealed_rejected = 0;
    const int trials = 3000;
    for (int i = 0; i < trials; ++i) {
        std::vector<uint8_t> b = good;
        const int edits = 1 + (int)rng.below(4);
        for (int e = 0; e < edits; ++e) b[rng.below((uint32_t)b.size())] ^= (uint8_t)(1 + rng.below(255));
        if (rng.below(4) == 0) b.resize(rng.below((uint32_t)b.size()));
        const bool resealed = b.size() >= 8 && rng.below(3) == 0;
        if (resealed) reseal(b);  // past the checksum: the structural checks must hold
        Expected<gpt::Model> r = checkpoint::load(b.data(), b.size());
        if (!resealed && b != good) {
            ++unsealed;
            unsealed_rejected += !r.ok();
        }
        if (!r.ok()) {
            CHECK(!r.error().message.empty());
        } else {
            // it loaded: then it is a valid model of consistent shape
            CHECK(r.value().params.size() == r.value().layout.total);
            CHECK(gpt::validate(r.value().config).ok());
        }
    }
    CHECK(unsealed > trials / 2);
    CHECK(unsealed_rejected == unsealed);  // a changed file never passes the checksum
}

#ifndef ICL_WASM
TEST_CASE("checkpoint: file helpers round-trip and name the path on failure") {
    const gpt::Model m = gpt::make_model(ckpt_config(), 8).value();
    const std::string dir = std::string(ICL_TEST_DATA_DIR) + "/../build/cross-build/";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    REQUIRE(checkpoint::save_file(m, dir + "file_helper.ckpt").ok());
    Expected<gpt::Model> back = checkpoint::load_file(dir + "file_helper.ckpt");
    REQUIRE(back.ok());
    CHECK(back.value().params == m.params);
    Expected<gpt::Model> missing = checkpoint::load_file(dir + "no_such.ckpt");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message.find("no_such.ckpt") != std::string::npos);
}
#endif

// f16 storage (version 2). The reference is an independent writer: Python's own half
// conversion (tests/golden/make_f16_checkpoint.py) on the golden f32 checkpoint, with
// the conversion's edge cases (ties to even, subnormals, the largest half) in front.
namespace {
const float kF16Edges[] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, -(1.0f + 0x1p-11f + 0x1p-20f), 65504.0f, 65519.0f,
                           0x1p-24f, 0x1p-25f, 3 * 0x1p-25f, 0x1p-14f - 0x1p-25f, -0.0f, 1e-8f, 0.1f};
}

TEST_CASE("checkpoint: f16 storage matches an independent half writer byte for byte and stays within half an ulp") {
    const std::string golden = std::string(ICL_TEST_DATA_DIR) + "/golden/";
    const std::vector<uint8_t> f32_file = test::read_bytes(golden + "ckpt_mixed.icl");
    const std::vector<uint8_t> f16_file = test::read_bytes(golden + "ckpt_mixed_f16.icl");
    REQUIRE(!f32_file.empty());
    REQUIRE(!f16_file.empty());
    Expected<gpt::Model> m = checkpoint::load(f32_file.data(), f32_file.size());
    REQUIRE(m.ok());
    std::copy(std::begin(kF16Edges), std::end(kF16Edges), m.value().params.begin());
    Expected<std::vector<uint8_t>> mine = checkpoint::save(m.value(), checkpoint::Encoding::f16);
    REQUIRE(mine.ok());
    CHECK(mine.value().size() == f16_file.size());
    CHECK(mine.value() == f16_file);
    // loading it: version 2 reports f16, every weight within half an ulp of f16
    checkpoint::Encoding stored = checkpoint::Encoding::f32;
    Expected<gpt::Model> back = checkpoint::load(f16_file.data(), f16_file.size(), &stored);
    REQUIRE_MESSAGE(back.ok(), back.error().message);
    CHECK(stored == checkpoint::Encoding::f16);
    size_t worst = 0;
    double worst_rel = 0;
    for (size_t i = 0; i < m.value().params.size(); ++i) {
        const double w = m.value().params[i], h = back.value().params[i];
        const double ulp = std::ldexp(1.0, std::max(std::ilogb(std::max(std::fabs(w), 0x1p-14)), -14) - 10);
        const double rel = std::fabs(w - h) / ulp;
        if (rel > worst_rel) { worst_rel = rel; worst = i; }
    }
    INFO("worst weight " << worst << ": " << m.value().params[worst] << " -> " << back.value().params[worst]);
    CHECK(worst_rel <= 0.5);
    CHECK(back.value().params[0] == 1.0f);            // tie to even
    CHECK(back.value().params[4] == 65504.0f);
    CHECK(back.value().params[5] == 0x1p-24f);
    CHECK(std::signbit(back.value().params[9]));      // -0 stays -0
    // it saves back to the same bytes (one encoding per storage form)
    CHECK(checkpoint::save(back.value(), checkpoint::Encoding::f16).value() == f16_file);
    // and a version 1 file still loads as f32
    CHECK(checkpoint::load(f32_file.data(), f32_file.size(), &stored).ok());
    CHECK(stored == checkpoint::Encoding::f32);
}

TEST_CASE("checkpoint: f16 files with a bad encoding, and weights f16 cannot hold, are named errors") {
    gpt::Model m = gpt::make_model(ckpt_config(), 5).value();
    const std::vector<uint8_t> good = checkpoint::save(m, checkpoint::Encoding::f16).value();
    CHECK(good.size() < checkpoint::save(m).size() / 2 + 1024);
    const size_t header = good.size() - 8 - 2 * m.params.size();
    std::vector<uint8_t> b = good;
    put_u32(b, header - 4, 0);
    reseal(b);
    expect_rejected(b, "version 2 weight encoding 0 is unknown");
    b = good;
    put_u32(b, header - 4, 7);
    reseal(b);
    expect_rejected(b, "weight encoding 7");
    b = good;
    b.resize(good.size() - 3);
    expect_rejected(b, "truncated");
    // an f16 infinity in the data, resealed
    b = good;
    b[header + 2 * 5] = 0x00;
    b[header + 2 * 5 + 1] = 0x7C;
    reseal(b);
    expect_rejected(b, "tensor 'wte' holds a non-finite value at index 5");
    m.params[m.layout.tensors[2].offset + 1] = 70000.0f;
    Expected<std::vector<uint8_t>> big = checkpoint::save(m, checkpoint::Encoding::f16);
    REQUIRE_FALSE(big.ok());
    CHECK(big.error().message.find("tensor '" + m.layout.tensors[2].name + "' value 70000") != std::string::npos);
    CHECK(checkpoint::parse_encoding("f16").value() == checkpoint::Encoding::f16);
    CHECK(checkpoint::parse_encoding("int4").error().message.find("f32, f16") != std::string::npos);
}
