#include "icl/task_pool.h"

#include <cmath>
#include <string>

#include "icl/format.h"
#include "icl/rng.h"

namespace icl::task_pool {

namespace {
constexpr uint64_t kPoolStream = 0x7a5c0001, kSampleStream = 0x7a5c0002;
constexpr int kMaxTasks = 1 << 20;
}  // namespace

Status validate(const Knobs& k) {
    auto bad = [](const char* knob, double v, const std::string& expected) {
        return make_error(std::string("task pool: ") + knob + " = " + format_number(v) +
                          " is out of range: expected " + expected);
    };
    if (!(k.dim >= 1 && k.dim <= 256)) return bad("dim", k.dim, "an integer in [1, 256]");
    if (!(k.context >= 1 && k.context <= 1024)) return bad("context", k.context, "an integer in [1, 1024]");
    if (!(k.noise_var >= 0.0 && k.noise_var <= 100.0)) return bad("noise_var", k.noise_var, "a number in [0, 100]");
    if (!(k.tasks >= 1 && k.tasks <= kMaxTasks)) return bad("tasks", k.tasks, "an integer in [1, 1048576]");
    return Ok{};
}

Expected<Matrix> make_pool(const Knobs& k, uint64_t seed) {
    if (auto s = validate(k); !s) return s.error();
    Matrix pool = matrix(k.tasks, k.dim);
    Rng rng(seed, kPoolStream);
    for (float& v : pool.storage()) v = rng.normal();  // row by row: a prefix of a larger pool
    return pool;
}

std::vector<Sequence> sample(const Knobs& k, const Matrix& pool, Source source, int count, uint64_t seed) {
    Rng rng(seed, kSampleStream + (uint64_t)source);
    const float sigma = (float)std::sqrt(k.noise_var);
    std::vector<Sequence> out((size_t)count);
    for (Sequence& s : out) {
        s.w.resize((size_t)k.dim);
        if (source == Source::pool) {
            s.task = (int)rng.below((uint32_t)rows(pool));
            const float* w = row(pool, s.task);
            s.w.assign(w, w + k.dim);
        } else {
            for (float& v : s.w) v = rng.normal();
        }
        s.x = matrix(k.context, k.dim);
        for (float& v : s.x.storage()) v = rng.normal();
        s.y.resize((size_t)k.context);
        for (int i = 0; i < k.context; ++i) s.y[(size_t)i] = dot(s.w.data(), row(s.x, i), k.dim) + sigma * rng.normal();
    }
    return out;
}

Matrix vectors(const Sequence& s) {
    const int K = rows(s.x), D = cols(s.x);
    Matrix v = matrix(2 * K, D + 1);
    for (int i = 0; i < K; ++i) {
        for (int c = 0; c < D; ++c) v(2 * i, c) = s.x(i, c);
        v(2 * i + 1, D) = s.y[(size_t)i];
    }
    return v;
}

}  // namespace icl::task_pool
