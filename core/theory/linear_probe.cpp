#include "icl/linear_probe.h"

#include <cmath>
#include <limits>
#include <string>

#include "icl/rng.h"

namespace icl {

namespace {

std::string shape(const Matrix& m) { return std::to_string(rows(m)) + " x " + std::to_string(cols(m)); }

bool finite(const Matrix& m) {
    for (float v : m.storage())
        if (!std::isfinite(v)) return false;
    return true;
}

std::vector<double> column_means(const Matrix& m) {
    std::vector<double> mean((size_t)cols(m), 0.0);
    for (int i = 0; i < rows(m); ++i)
        for (int c = 0; c < cols(m); ++c) mean[(size_t)c] += m(i, c);
    for (double& v : mean) v /= rows(m);
    return mean;
}

// Solves G Z = R for a symmetric positive definite G (p × p) and R (p × t), row-major, by
// Cholesky G = L Lᵀ. False if G is not positive definite to working precision.
bool cholesky_solve(std::vector<double> g, std::vector<double>& r, int p, int t) {
    double scale = 0.0;
    for (int i = 0; i < p; ++i) scale = std::fmax(scale, g[(size_t)i * p + i]);
    for (int j = 0; j < p; ++j) {
        double diag = g[(size_t)j * p + j];
        for (int k = 0; k < j; ++k) diag -= g[(size_t)j * p + k] * g[(size_t)j * p + k];
        if (!(diag > scale * 1e-12)) return false;
        const double l = std::sqrt(diag);
        g[(size_t)j * p + j] = l;
        for (int i = j + 1; i < p; ++i) {
            double v = g[(size_t)i * p + j];
            for (int k = 0; k < j; ++k) v -= g[(size_t)i * p + k] * g[(size_t)j * p + k];
            g[(size_t)i * p + j] = v / l;
        }
    }
    for (int c = 0; c < t; ++c) {
        for (int i = 0; i < p; ++i) {  // L u = r
            double v = r[(size_t)i * t + c];
            for (int k = 0; k < i; ++k) v -= g[(size_t)i * p + k] * r[(size_t)k * t + c];
            r[(size_t)i * t + c] = v / g[(size_t)i * p + i];
        }
        for (int i = p - 1; i >= 0; --i) {  // Lᵀ z = u
            double v = r[(size_t)i * t + c];
            for (int k = i + 1; k < p; ++k) v -= g[(size_t)k * p + i] * r[(size_t)k * t + c];
            r[(size_t)i * t + c] = v / g[(size_t)i * p + i];
        }
    }
    return true;
}

}  // namespace

Expected<LinearProbe> fit_linear_probe(const Matrix& features, const Matrix& targets, double lambda) {
    const int n = rows(features), p = cols(features), t = cols(targets);
    if (rows(targets) != n)
        return make_error("linear probe: " + shape(features) + " features but " + shape(targets) + " targets (rows differ)");
    if (n < 2) return make_error("linear probe: needs at least two rows, got " + std::to_string(n));
    if (!(lambda >= 0.0) || !std::isfinite(lambda))
        return make_error("linear probe: lambda must be a finite number >= 0, got " + std::to_string(lambda));
    if (!finite(features) || !finite(targets)) return make_error("linear probe: a feature or target is not finite");
    const std::vector<double> fm = column_means(features), tm = column_means(targets);
    std::vector<double> g((size_t)p * p, 0.0), r((size_t)p * t, 0.0), fc((size_t)p);
    for (int i = 0; i < n; ++i) {
        for (int a = 0; a < p; ++a) fc[(size_t)a] = features(i, a) - fm[(size_t)a];
        for (int a = 0; a < p; ++a) {
            for (int b = 0; b <= a; ++b) g[(size_t)a * p + b] += fc[(size_t)a] * fc[(size_t)b];
            for (int c = 0; c < t; ++c) r[(size_t)a * t + c] += fc[(size_t)a] * (targets(i, c) - tm[(size_t)c]);
        }
    }
    for (int a = 0; a < p; ++a) {
        for (int b = 0; b < a; ++b) g[(size_t)b * p + a] = g[(size_t)a * p + b];
        g[(size_t)a * p + a] += lambda;
    }
    if (!cholesky_solve(std::move(g), r, p, t))
        return make_error("linear probe: the features are collinear (fewer independent directions than " +
                          std::to_string(p) + "): use lambda > 0");
    LinearProbe probe;
    probe.lambda = lambda;
    probe.weights = matrix(p, t);
    probe.bias.assign((size_t)t, 0.0);
    for (int c = 0; c < t; ++c) {
        double b = tm[(size_t)c];
        for (int a = 0; a < p; ++a) {
            probe.weights(a, c) = (float)r[(size_t)a * t + c];
            b -= fm[(size_t)a] * r[(size_t)a * t + c];
        }
        probe.bias[(size_t)c] = b;
    }
    return probe;
}

Matrix probe_predict(const LinearProbe& probe, const Matrix& features) {
    const int n = rows(features), p = cols(features), t = cols(probe.weights);
    Matrix out = matrix(n, t);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < t; ++c) {
            double v = probe.bias[(size_t)c];
            for (int a = 0; a < p; ++a) v += double(features(i, a)) * probe.weights(a, c);
            out(i, c) = (float)v;
        }
    return out;
}

Expected<ProbeScore> probe_r2(const LinearProbe& probe, const Matrix& features, const Matrix& targets) {
    const int n = rows(features), p = rows(probe.weights), t = cols(probe.weights);
    if (cols(features) != p || rows(targets) != n || cols(targets) != t)
        return make_error("linear probe: a probe of " + shape(probe.weights) + " cannot score " + shape(features) +
                          " features against " + shape(targets) + " targets");
    if (n < 2) return make_error("linear probe: R² needs at least two rows, got " + std::to_string(n));
    const std::vector<double> tm = column_means(targets);
    std::vector<double> sse((size_t)t, 0.0), sst((size_t)t, 0.0);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < t; ++c) {
            double v = probe.bias[(size_t)c];  // in double, not through probe_predict's floats
            for (int a = 0; a < p; ++a) v += double(features(i, a)) * probe.weights(a, c);
            const double e = targets(i, c) - v, dm = targets(i, c) - tm[(size_t)c];
            sse[(size_t)c] += e * e;
            sst[(size_t)c] += dm * dm;
        }
    ProbeScore score;
    double sse_all = 0.0, sst_all = 0.0;
    for (int c = 0; c < t; ++c) {
        score.r2_per_target.push_back(sst[(size_t)c] > 0.0 ? 1.0 - sse[(size_t)c] / sst[(size_t)c]
                                                          : std::numeric_limits<double>::quiet_NaN());
        sse_all += sse[(size_t)c];
        sst_all += sst[(size_t)c];
    }
    score.r2 = sst_all > 0.0 ? 1.0 - sse_all / sst_all : std::numeric_limits<double>::quiet_NaN();
    return score;
}

namespace {
Matrix take_rows(const Matrix& m, const std::vector<int>& idx, int from, int to) {
    Matrix out = matrix(to - from, cols(m));
    for (int i = from; i < to; ++i)
        for (int c = 0; c < cols(m); ++c) out(i - from, c) = m(idx[(size_t)i], c);
    return out;
}
}  // namespace

Expected<ProbeSplits> probe_over_splits(const Matrix& features, const Matrix& targets, double lambda, int splits,
                                        uint64_t seed) {
    const int n = rows(features), fit = n * 3 / 4;
    if (n < 8) return make_error("linear probe: a probe over splits needs at least 8 rows, got " + std::to_string(n));
    std::vector<double> r2s, mses;
    for (int s = 0; s < splits; ++s) {
        std::vector<int> idx((size_t)n);
        for (int i = 0; i < n; ++i) idx[(size_t)i] = i;
        Rng rng(seed, 100u + (uint64_t)s);
        for (int i = n - 1; i > 0; --i) std::swap(idx[(size_t)i], idx[rng.below((uint32_t)(i + 1))]);
        auto probe = fit_linear_probe(take_rows(features, idx, 0, fit), take_rows(targets, idx, 0, fit), lambda);
        if (!probe) return probe.error();
        const Matrix fh = take_rows(features, idx, fit, n), th = take_rows(targets, idx, fit, n);
        auto score = probe_r2(probe.value(), fh, th);
        if (!score) return score.error();
        double r2 = 0;
        for (double v : score.value().r2_per_target) r2 += v / (double)score.value().r2_per_target.size();
        r2s.push_back(r2);
        const Matrix pred = probe_predict(probe.value(), fh);
        double mse = 0;
        for (int i = 0; i < rows(fh); ++i)
            for (int c = 0; c < cols(th); ++c) mse += std::pow((double)pred(i, c) - th(i, c), 2) / rows(th) / cols(th);
        mses.push_back(mse);
    }
    return ProbeSplits{metrics::mean_sd(r2s), metrics::mean_sd(mses)};
}

}  // namespace icl
