#include "icl/rng.h"

#include <cmath>

namespace icl {

namespace {

// Natural log for x in (0, 1], using only IEEE-exact operations (+, *, /, frexp) so
// the result is the same natively and in wasm. x = m * 2^e with m in [0.5, 1);
// ln x = e ln 2 + 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 1/3; the series to s^21
// is accurate to double rounding.
double portable_log(double x) {
    int e = 0;
    const double m = std::frexp(x, &e);
    const double s = (m - 1.0) / (m + 1.0);
    const double s2 = s * s;
    double term = s, sum = 0.0;
    for (int k = 1; k <= 21; k += 2) {
        sum += term / k;
        term *= s2;
    }
    return e * 0.69314718055994530942 + 2.0 * sum;
}

// cos and sin of 2*pi*u for u in [0, 1): reduce to an octant, then Taylor series
// to degree 16, accurate to ~1e-16 on |t| <= pi/4.
void portable_cos_sin_2pi(double u, double* c, double* s) {
    const double quarter = u * 4.0;           // in [0, 4)
    const int q = static_cast<int>(quarter);  // quadrant
    const double t = (quarter - q - 0.5) * 1.57079632679489661923;  // in [-pi/4, pi/4)
    // angle = q * pi/2 + pi/4 + t
    const double t2 = t * t;
    double ct = 1.0, st = t, tc = 1.0, ts = t;
    for (int k = 1; k <= 8; ++k) {
        tc *= -t2 / ((2 * k - 1) * (2 * k));
        ts *= -t2 / ((2 * k) * (2 * k + 1));
        ct += tc;
        st += ts;
    }
    const double r = 0.70710678118654752440;  // cos(pi/4) = sin(pi/4)
    const double c0 = r * (ct - st), s0 = r * (ct + st);  // cos, sin of pi/4 + t
    switch (q & 3) {
        case 0: *c = c0; *s = s0; break;
        case 1: *c = -s0; *s = c0; break;
        case 2: *c = -c0; *s = -s0; break;
        default: *c = s0; *s = -c0; break;
    }
}

}  // namespace

Rng::Rng(uint64_t seed, uint64_t stream) : state_(0), inc_((stream << 1u) | 1u) {
    next_u32();
    state_ += seed;
    next_u32();
}

uint32_t Rng::next_u32() {
    const uint64_t old = state_;
    state_ = old * 6364136223846793005ULL + inc_;
    const uint32_t xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
    const uint32_t rot = static_cast<uint32_t>(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

uint32_t Rng::below(uint32_t n) {
    const uint32_t threshold = (0u - n) % n;  // 2^32 mod n
    for (;;) {
        const uint32_t r = next_u32();
        if (r >= threshold) return r % n;
    }
}

float Rng::uniform() { return static_cast<float>(next_u32() >> 8) * (1.0f / 16777216.0f); }

float Rng::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    // u1 in (0, 1] so the log is finite; 53-bit doubles from two draws.
    const double u1 = (static_cast<double>(next_u32() >> 5) * 67108864.0 + (next_u32() >> 6) + 1.0) /
                      9007199254740992.0;
    const double u2 = (static_cast<double>(next_u32() >> 5) * 67108864.0 + (next_u32() >> 6)) /
                      9007199254740992.0;
    const double radius = std::sqrt(-2.0 * portable_log(u1));
    double c = 0.0, s = 0.0;
    portable_cos_sin_2pi(u2, &c, &s);
    spare_ = static_cast<float>(radius * s);
    has_spare_ = true;
    return static_cast<float>(radius * c);
}

}  // namespace icl
