// Deterministic random numbers, bit-identical natively and in wasm.
//
// The stream is PCG32 (O'Neill 2014: 64-bit LCG state, XSH-RR output). Floats are
// built from integer bits only, and normal() uses the Box-Muller transform with
// icl's own log/cos approximations (no libm), so the same seed gives the same
// bits on every platform the core builds for.
#pragma once
#include <cstdint>

namespace icl {

class Rng {
public:
    explicit Rng(uint64_t seed, uint64_t stream = 54u);

    uint32_t next_u32();
    // uniform integer in [0, n), unbiased (rejection sampling); n > 0
    uint32_t below(uint32_t n);
    // uniform float in [0, 1) with 24 random bits
    float uniform();
    float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
    // standard normal N(0, 1)
    float normal();
    float normal(float mean, float std) { return mean + std * normal(); }

private:
    uint64_t state_;
    uint64_t inc_;
    bool has_spare_ = false;
    float spare_ = 0.0f;
};

}  // namespace icl
