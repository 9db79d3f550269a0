#include "train_grid.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "icl/demo_grid.h"
#include "icl/file_read.h"

int train_grid(const std::string& path, const std::string& text, int jobs, bool check) {
    auto parsed = icl::grid::parse(text, path);
    if (!parsed) { std::fprintf(stderr, "icl: %s\n", parsed.error().message.c_str()); return 2; }
    icl::grid::Grid g = parsed.value();
    if (check && g.cells.empty()) { std::fprintf(stderr, "icl: %s: no recorded cells to check\n", path.c_str()); return 2; }
    auto texts = icl::load_texts("en", g.demo);
    if (!texts) { std::fprintf(stderr, "icl: %s\n", texts.error().message.c_str()); return 1; }
    const int R = g.row_count(), C = g.col_count(), n = R * C;
    std::vector<std::map<std::string, double>> cells((size_t)n);
    std::vector<std::string> errors((size_t)n);
    std::atomic<int> next{0};
    std::mutex print;
    const auto t0 = std::chrono::steady_clock::now();
    auto work = [&] {
        for (int i = next++; i < n; i = next++) {
            auto f = icl::grid::run_cell(g, i / C, i % C, texts.value());
            std::lock_guard<std::mutex> lock(print);
            if (!f) { errors[(size_t)i] = f.error().message; continue; }
            cells[(size_t)i] = f.value();
            std::fprintf(stderr, "%s = %s, %s = %s:", g.rows.param.c_str(), g.rows.values[(size_t)(i / C)].dump().c_str(),
                         g.cols.param.c_str(), g.cols.values[(size_t)(i % C)].dump().c_str());
            for (const auto& [k, v] : f.value()) std::fprintf(stderr, " %s %.4f", k.c_str(), v);
            std::fprintf(stderr, " (%.0f s)\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    };
    std::vector<std::thread> pool;
    for (int j = 1; j < std::max(1, std::min(jobs, n)); ++j) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    for (int i = 0; i < n; ++i)
        if (!errors[(size_t)i].empty()) {
            std::fprintf(stderr, "icl: %s: cell %d: %s\n", path.c_str(), i, errors[(size_t)i].c_str());
            return 1;
        }
    if (check) {
        int off = 0;
        for (int i = 0; i < n; ++i)
            for (const auto& [k, v] : cells[(size_t)i]) {
                const double was = g.cells[(size_t)i].at(k);
                if (std::fabs(v - was) > g.tolerance) {
                    ++off;
                    std::printf("cell %d %s: recorded %.4f, now %.4f (tolerance %.3f)\n", i, k.c_str(), was, v, g.tolerance);
                }
            }
        std::printf("%s: %d of %d figures off by more than %.3f\n", path.c_str(), off, n * (int)g.read.size(), g.tolerance);
        return off == 0 ? 0 : 1;
    }
    g.cells = cells;
    g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (auto w = icl::replace_file(path, icl::grid::to_json(g).dump(1) + "\n"); !w) {
        std::fprintf(stderr, "icl: %s (the grid was left as it was)\n", w.error().message.c_str());
        return 1;
    }
    std::printf("wrote %d cells into %s\n", n, path.c_str());
    return 0;
}
