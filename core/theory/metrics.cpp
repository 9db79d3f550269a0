#include "icl/metrics.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace icl::metrics {

double norm(const std::vector<float>& v) {
    double s = 0;
    for (float x : v) s += (double)x * x;
    return std::sqrt(s);
}

double kl_divergence(const std::vector<double>& p, const std::vector<double>& q) {
    double kl = 0;
    for (size_t i = 0; i < p.size() && i < q.size(); ++i)
        if (p[i] > 0) kl += p[i] * std::log(p[i] / std::max(q[i], 1e-30));
    return kl;
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? NAN : s / (double)v.size();
}

MeanSd mean_sd(const std::vector<double>& v) {
    const double m = mean(v);
    double ss = 0;
    for (double x : v) ss += (x - m) * (x - m);
    return {m, v.empty() ? NAN : std::sqrt(ss / (double)v.size())};
}

double cosine(const float* a, const float* b, size_t n) {
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < n; ++i) {
        ab += (double)a[i] * b[i];
        aa += (double)a[i] * a[i];
        bb += (double)b[i] * b[i];
    }
    return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
    return cosine(a.data(), b.data(), std::min(a.size(), b.size()));
}

double update_cosine(const float* zsl, const float* icl, const float* ft, size_t n) {
    std::vector<float> du(n), dv(n);
    for (size_t i = 0; i < n; ++i) {
        du[i] = icl[i] - zsl[i];
        dv[i] = ft[i] - zsl[i];
    }
    return cosine(du, dv);
}

Expected<Rec2Ftp> rec2ftp(const std::vector<bool>& zsl, const std::vector<bool>& ft, const std::vector<bool>& icl) {
    if (zsl.size() != ft.size() || zsl.size() != icl.size())
        return make_error("rec2ftp: " + std::to_string(zsl.size()) + " ZSL, " + std::to_string(ft.size()) + " FT and " +
                          std::to_string(icl.size()) + " ICL outcomes: one per example each");
    Rec2Ftp r;
    for (size_t i = 0; i < zsl.size(); ++i) {
        if (zsl[i] || !ft[i]) continue;
        ++r.ft_fixed;
        if (icl[i]) ++r.both_fixed;
    }
    r.value = r.ft_fixed ? (double)r.both_fixed / r.ft_fixed : 0.0;
    return r;
}

Expected<double> kendall_tau(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size() || a.size() < 2)
        return make_error("kendall_tau: needs two vectors of the same length >= 2 (got " + std::to_string(a.size()) +
                          " and " + std::to_string(b.size()) + ")");
    const size_t n = a.size();
    double concordant = 0, discordant = 0, ties_a = 0, ties_b = 0;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            const double da = a[i] - a[j], db = b[i] - b[j];
            if (da == 0) ties_a += 1;
            if (db == 0) ties_b += 1;
            if (da == 0 || db == 0) continue;
            ((da > 0) == (db > 0) ? concordant : discordant) += 1;
        }
    const double pairs = (double)n * (n - 1) / 2;
    const double denom = std::sqrt((pairs - ties_a) * (pairs - ties_b));
    return denom > 0 ? (concordant - discordant) / denom : 0.0;
}

double icl_score(const std::vector<double>& loss, int early_from, int early_to, int late_from, int late_to) {
    auto mean = [&](int from, int to) {
        double s = 0;
        for (int t = from; t < to; ++t) s += loss[(size_t)t];
        return to > from ? s / (to - from) : 0.0;
    };
    return mean(late_from, late_to) - mean(early_from, early_to);
}

}  // namespace icl::metrics
