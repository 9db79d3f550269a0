// Reads the fixture container written by tests/golden/make_golden.py:
// "ICLGOLD1", u32 count, then per entry u32 name_len, name, u32 dtype (0 f32, 1 i32),
// u32 ndim, u32 dims[ndim], data (little-endian).
#pragma once
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gpt_test_util.h"

namespace icl::test {

struct GoldenTensor {
    std::vector<int> shape;
    std::vector<float> f;  // dtype 0
    std::vector<int> i;    // dtype 1
};

// Empty map if the file is missing or malformed.
inline std::map<std::string, GoldenTensor> read_golden(const std::string& path) {
    const std::vector<uint8_t> b = read_bytes(path);
    std::map<std::string, GoldenTensor> out;
    size_t pos = 0;
    auto u32 = [&](uint32_t& v) {
        if (pos + 4 > b.size()) return false;
        v = (uint32_t)b[pos] | (uint32_t)b[pos + 1] << 8 | (uint32_t)b[pos + 2] << 16 |
            (uint32_t)b[pos + 3] << 24;
        pos += 4;
        return true;
    };
    if (b.size() < 12 || std::memcmp(b.data(), "ICLGOLD1", 8) != 0) return {};
    pos = 8;
    uint32_t count = 0;
    if (!u32(count)) return {};
    for (uint32_t e = 0; e < count; ++e) {
        uint32_t len = 0, dtype = 0, ndim = 0;
        if (!u32(len) || pos + len > b.size()) return {};
        const std::string name(reinterpret_cast<const char*>(b.data() + pos), len);
        pos += len;
        if (!u32(dtype) || !u32(ndim)) return {};
        GoldenTensor t;
        size_t n = 1;
        for (uint32_t d = 0; d < ndim; ++d) {
            uint32_t dim = 0;
            if (!u32(dim)) return {};
            t.shape.push_back((int)dim);
            n *= dim;
        }
        if (pos + 4 * n > b.size()) return {};
        for (size_t k = 0; k < n; ++k) {
            uint32_t v = 0;
            u32(v);
            if (dtype == 0) {
                float f;
                std::memcpy(&f, &v, 4);
                t.f.push_back(f);
            } else {
                t.i.push_back((int)(int32_t)v);
            }
        }
        out[name] = std::move(t);
    }
    return out;
}

}  // namespace icl::test
