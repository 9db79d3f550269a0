// Helpers shared by the GPT tests.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "icl/gpt.h"
#include "icl/rng.h"

namespace icl::test {

inline std::vector<int> random_tokens(int n, int vocab, uint64_t seed) {
    Rng rng(seed);
    std::vector<int> t((size_t)n);
    for (int& x : t) x = (int)rng.below((uint32_t)vocab);
    return t;
}

// max |a - b| / max(max |b|, floor): the error relative to the reference tensor's scale
inline double scaled_max_diff(const float* a, const float* b, size_t n, double floor = 1e-6) {
    double diff = 0.0, scale = floor;
    for (size_t i = 0; i < n; ++i) {
        diff = std::max(diff, (double)std::fabs(a[i] - b[i]));
        scale = std::max(scale, (double)std::fabs(b[i]));
    }
    return diff / scale;
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace icl::test
