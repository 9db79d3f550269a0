#include <doctest/doctest.h>

#include "icl/assets.h"

TEST_CASE("assets: put then get returns the bytes") {
    icl::put_asset("checkpoints/test-put.bin", {1, 2, 3});
    auto got = icl::get_asset("checkpoints/test-put.bin");
    REQUIRE(got.ok());
    CHECK(*got.value() == std::vector<uint8_t>{1, 2, 3});
}

TEST_CASE("assets: names must stay inside the asset folder") {
    for (const char* bad : {"../etc/passwd", "/etc/passwd", "a/../../b", "", "a//b", "a\\b"}) {
        auto got = icl::get_asset(bad);
        CHECK_FALSE(got.ok());
        CHECK(got.error().message.find("not a relative path") != std::string::npos);
    }
}

TEST_CASE("assets: a missing file is an error naming it") {
    // The tests after this one read the shipped lessons through the store (lesson
    // skeletons, catalogues): put back on every way out, a failed REQUIRE included.
    struct Restore {
        ~Restore() { icl::set_asset_dir(ICL_SOURCE_DIR "/lessons"); }
    } restore;
    icl::set_asset_dir(ICL_TEST_DATA_DIR);
    auto got = icl::get_asset("no-such-dir/missing.icl");
    REQUIRE_FALSE(got.ok());
    CHECK(got.error().message.find("missing.icl") != std::string::npos);
    auto present = icl::get_asset("unit/test_assets.cpp");  // this file, read through the store
    REQUIRE(present.ok());
    CHECK(present.value()->size() > 100);
}
