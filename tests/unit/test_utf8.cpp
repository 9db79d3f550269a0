// Small text helpers (icl/utf8.h) the lesson parser and the grader cut answers with.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "icl/utf8.h"

TEST_CASE("split_trimmed: every part between separators, trimmed, empty ones kept") {
    using V = std::vector<std::string>;
    CHECK(icl::split_trimmed("a, b ,c", ',') == V{"a", "b", "c"});
    CHECK(icl::split_trimmed(" a, ,b,", ',') == V{"a", "", "b", ""});
    CHECK(icl::split_trimmed("", ',') == V{""});
    CHECK(icl::split_trimmed("one word", '|') == V{"one word"});
    CHECK(icl::split_trimmed("x |\ty\n| z", '|') == V{"x", "y", "z"});
}
