// attention_patterns: GPT-3's alternating dense and locally banded sparse attention
// (Brown et al. 2020, after Child et al. 2019's sparse transformer). The masks drawn
// for a chosen T, the attended (query, key) pairs against T (T² vs T·w), and a tiny
// GPT with alternating dense/banded layers trained beside an all-dense one on the
// same task documents (loss and time per step).
#include <chrono>
#include <cmath>
#include <cstdio>

#include "icl/demo.h"
#include "icl/demo_panels.h"
#include "icl/gpt.h"
#include "icl/optim.h"
#include "icl/gpt_train.h"
#include "icl/tasks.h"

namespace icl {
namespace {

long long attended_pairs(int T, AttentionMask m) {
    long long n = 0;
    for (int i = 0; i < T; ++i)
        for (int j = 0; j <= i; ++j) n += m.allows(i, j);
    return n;
}

struct Run {
    gpt::Model model;
    std::unique_ptr<gpt::Trainer> trainer;
    std::vector<double> loss;
    double seconds = 0;
};

class PatternsSession : public Session {
public:
    explicit PatternsSession(const DemoContext& ctx) : ctx_(ctx), rng_(ctx.seed, 3u) {
        dense_.kind = AttentionMask::causal;
        banded_.kind = AttentionMask::banded;
        banded_.window = ctx.params.i("window");
        strided_.kind = AttentionMask::strided;
        strided_.stride = ctx.params.i("stride");
        steps_ = ctx.params.b("train") ? ctx.params.i("steps") : 0;
    }

    Status init() {
        for (int v = 0; v < 2; ++v) {
            gpt::Config c;
            c.vocab = tasks::suite().vocab();
            c.context = tasks::prompt_length(tasks::kMaxShots, false);
            c.width = 32;
            c.heads = 2;
            c.layers = ctx_.params.i("layers");
            if (v == 1) c.attention = gpt::alternating_dense_banded(c.layers, banded_.window);
            auto m = gpt::make_model(c, ctx_.seed);  // same initial weights for both
            if (!m) return m.error();
            runs_[v].model = std::move(m.value());
        }
        for (Run& r : runs_) {
            OptimizerConfig oc;
            oc.lr = 3e-3f;
            oc.clip_norm = 1.0f;
            auto t = gpt::Trainer::make(r.model, oc);
            if (!t) return t.error();
            r.trainer = std::make_unique<gpt::Trainer>(std::move(t.value()));
        }
        return Ok{};
    }

    // One unit = one training step of both models on the same batch.
    void step(int budget) override {
        const int B = 16;
        for (int b = 0; b < budget && !done(); ++b, ++step_) {
            std::vector<int> tokens, targets;
            const int T = tasks::prompt_length(tasks::kMaxShots, false);
            tasks::append_training_batch(tasks::suite(), B, tasks::kMaxShots, rng_, tokens, targets);
            for (Run& r : runs_) {
                const auto t0 = std::chrono::steady_clock::now();
                auto loss = r.trainer->step(tokens.data(), targets.data(), B, T);
                r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                if (!loss) { error_ = loss.error().message; return; }
                r.loss.push_back(loss.value());
            }
        }
    }
    bool done() const override { return step_ >= steps_ || !error_.empty(); }

    double progress() const override { return steps_ ? (double)step_ / steps_ : 1; }
    std::vector<Panel> panels() const override {
        const Texts& msg = ctx_.text;
        const int T = ctx_.params.i("T");
        std::vector<Panel> panels;
        const long long nd = attended_pairs(T, dense_), nb = attended_pairs(T, banded_), ns = attended_pairs(T, strided_);
        ScalarsPanel head{msg("panel.head.title"), {}};
        head.items.push_back({"pairs_dense", (double)nd, "", msg("scalar.pairs_dense.help")});
        head.items.push_back({"pairs_banded", (double)nb, "", msg("scalar.pairs_banded.help")});
        head.items.push_back({"pairs_strided", (double)ns, "", msg("scalar.pairs_strided.help")});
        head.items.push_back({"banded_over_dense", (double)nb / nd, "", msg("scalar.banded_over_dense.help")});
        double ld = 0, la = 0;
        const int tail = std::min(10, step_);
        for (int i = step_ - tail; i < step_; ++i) {
            ld += runs_[0].loss[(size_t)i] / tail;
            la += runs_[1].loss[(size_t)i] / tail;
        }
        if (step_ > 0) {
            head.items.push_back({"loss_dense", ld, "nats", msg("scalar.loss_dense.help")});
            head.items.push_back({"loss_alternating", la, "nats", msg("scalar.loss_alternating.help")});
            head.items.push_back({"ms_per_step_dense", 1e3 * runs_[0].seconds / step_, "ms", msg("scalar.ms_per_step_dense.help")});
            head.items.push_back({"ms_per_step_alternating", 1e3 * runs_[1].seconds / step_, "ms", msg("scalar.ms_per_step_alternating.help")});
        }
        panels.push_back(head);
        panels.push_back(guide_note(msg));
        const int Td = std::min(T, 64);
        const AttentionMask masks[3] = {dense_, banded_, strided_};
        const char* names[3] = {"mask.dense", "mask.banded", "mask.strided"};
        for (int m = 0; m < 3; ++m) {
            HeatmapPanel h{msg("panel.mask.title", {{"mask", msg(names[m])}, {"T", Td}}),
                           msg("panel.mask.x"), msg("panel.mask.y"), Td, Td, {}, {}, {}, false};
            for (int i = 0; i < Td; ++i)
                for (int j = 0; j < Td; ++j) h.values.push_back(masks[m].allows(i, j) ? 1.0 : 0.0);
            panels.push_back(h);
        }
        LinesPanel growth{msg("panel.growth.title"), "T", msg("panel.growth.y"), true, true, {}};
        for (int m = 0; m < 3; ++m) {
            Series s{msg(names[m]), {}, {}, {}, false};
            for (int t = 16; t <= 2048; t *= 2) {
                s.x.push_back(t);
                s.y.push_back((double)attended_pairs(t, masks[m]));
            }
            growth.series.push_back(s);
        }
        panels.push_back(growth);
        if (step_ > 0) {
            LinesPanel loss{msg("panel.loss.title"), msg("panel.loss.x"), "nats", false, false, {}};
            for (int v = 0; v < 2; ++v) {
                Series s{v == 0 ? msg("series.dense") : msg("series.alternating"), {}, {}, {}, v == 1};
                for (int i = 0; i < step_; ++i) {
                    s.x.push_back(i + 1);
                    s.y.push_back(runs_[v].loss[(size_t)i]);
                }
                loss.series.push_back(s);
            }
            panels.push_back(loss);
        }
        return panels;
    }

private:
    DemoContext ctx_;
    Rng rng_;
    AttentionMask dense_, banded_, strided_;
    Run runs_[2];
    int steps_ = 0, step_ = 0;
};

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    auto s = std::make_unique<PatternsSession>(ctx);
    if (Status st = s->init(); !st) return st.error();
    return std::unique_ptr<Session>(std::move(s));
}

const DemoDef kAttentionPatterns = [] {
    DemoDef d;
    d.id = "attention_patterns";
    d.paper = "Brown et al. 2020 (GPT-3); Child et al. 2019";
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::integer("T", 4, 2048, 32, 1),
        ParamSpec::integer("window", 1, 64, 8, 1),
        ParamSpec::integer("stride", 1, 64, 8, 1),
        ParamSpec::boolean("train", true),
        ParamSpec::integer("layers", 2, 4, 2, 2),
        ParamSpec::integer("steps", 1, 2000, 60, 1),
    };
    d.start = start;
    d.assets = {};
    return d;
}();
ICL_REGISTER_DEMO(kAttentionPatterns);

}  // namespace
}  // namespace icl
