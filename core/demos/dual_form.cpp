// Demo: a linear layer trained by SGD is unnormalized attention over its training
// inputs (Irie, Csordás, Schmidhuber 2022). Trains y = W x on a noisy random teacher,
// then computes every test output twice — primal W x and dual W0 x + Σ_t e_t (x_t · x) —
// and reports how far apart they are. With Adam the dual column keeps the SGD-form
// terms e_t = −η ∇_y L_t that Adam saw, so the gap measures what Adam adds.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "icl/demo.h"
#include "icl/demo_analytic.h"
#include "icl/demo_panels.h"
#include "icl/dual_form.h"
#include "icl/rng.h"

namespace icl {
namespace {

class DualFormSession : public AnalyticSession {
public:
    explicit DualFormSession(const DemoContext& ctx) : ctx_(ctx) {}

    void compute() override {
        const Params& p = ctx_.params;
        const int d_in = p.i("d_in"), d_out = p.i("d_out"), n_train = p.i("n_train"), n_test = p.i("n_test");
        const bool adam = p.s("optimizer") == "adam";
        Rng rng(ctx_.seed);
        // Inputs ~ N(0, I/d_in) so ||x||² ≈ 1 and one lr range suits every d_in.
        const float x_std = 1.0f / std::sqrt(float(d_in));
        const Matrix teacher = random_normal(rng, d_out, d_in, 1.0f);
        const Matrix w0 = random_normal(rng, d_out, d_in, 0.1f);
        const Matrix x_train = random_normal(rng, n_train, d_in, x_std);
        Matrix y_train = matrix(n_train, d_out);
        for (int i = 0; i < n_train; ++i) {
            const auto clean = matvec(teacher, row(x_train, i));
            for (int o = 0; o < d_out; ++o) y_train(i, o) = clean[o] + p.f("noise") * rng.normal();
        }
        x_test_ = random_normal(rng, n_test, d_in, x_std);

        LinearTrainConfig cfg;
        cfg.optimizer = plain_sgd(p.f("lr"));
        if (adam) cfg.optimizer.kind = OptimizerConfig::adamw;
        cfg.epochs = p.i("epochs");
        run_ = train_linear_layer(w0, x_train, y_train, cfg);
        if (!std::all_of(run_.w.storage().begin(), run_.w.storage().end(), [](float w) { return std::isfinite(w); })) {
            error_ = ctx_.text("run_error.diverged");
            return;
        }
        primal_ = matrix(n_test, d_out);
        dual_ = matrix(n_test, d_out);
        scores_ = matrix(n_train, n_test);
        double max_out = 0.0, loss = 0.0;
        for (int j = 0; j < n_test; ++j) {
            const auto yp = primal_output(run_, row(x_test_, j));
            const auto yd = dual_output(run_, row(x_test_, j));
            const auto yt = matvec(teacher, row(x_test_, j));
            for (int o = 0; o < d_out; ++o) {
                primal_(j, o) = yp[o];
                dual_(j, o) = yd[o];
                max_abs_diff_ = std::max(max_abs_diff_, double(std::fabs(yp[o] - yd[o])));
                max_out = std::max(max_out, double(std::fabs(yp[o])));
                loss += 0.5 * double(yp[o] - yt[o]) * (yp[o] - yt[o]);
            }
            // The scores of one epoch's updates: later epochs repeat the same keys.
            const auto s = attention_scores(run_, row(x_test_, j));
            for (int i = 0; i < n_train; ++i) scores_(i, j) = s[i];
        }
        rel_diff_ = max_out > 0 ? max_abs_diff_ / max_out : 0.0;
        test_loss_ = loss / n_test;
    }


    std::vector<Panel> draw() const override {
        std::vector<Panel> panels;
        const Texts& msg = ctx_.text;
        const Params& p = ctx_.params;
        const bool adam = p.s("optimizer") == "adam";
        const int d_in = p.i("d_in"), d_out = p.i("d_out"), n_test = p.i("n_test"), T = rows(run_.keys);

        ScalarsPanel s{msg("panel.summary.title"), {}};
        s.items.push_back({"max_abs_diff", max_abs_diff_, "",
                           msg("scalar.max_abs_diff.help")});
        s.items.push_back({"rel_diff", rel_diff_, "",
                           msg("scalar.rel_diff.help")});
        s.items.push_back({"updates", double(T), "",
                           msg("scalar.updates.help")});
        s.items.push_back({"train_loss", double(run_.epoch_loss.back()), "",
                           msg("scalar.train_loss.help")});
        s.items.push_back({"test_loss", test_loss_, "",
                           msg("scalar.test_loss.help")});
        panels.push_back(s);

        LinesPanel outputs;
        outputs.title = msg("panel.outputs.title");
        outputs.x_label = msg("panel.outputs.x");
        outputs.y_label = "y₁";
        Series primal{msg("series.primal"), {}, {}, {}, false};
        Series dual{adam ? msg("series.dual_sgd")
                         : msg("series.dual"),
                    {}, {}, {}, true};
        for (int j = 0; j < n_test; ++j) {
            primal.x.push_back(j + 1);
            primal.y.push_back(primal_(j, 0));
            dual.x.push_back(j + 1);
            dual.y.push_back(dual_(j, 0));
        }
        outputs.series = {primal, dual};

        panels.push_back(heatmap_of(
            scores_, msg("panel.scores.title"),
            msg("panel.scores.x"), msg("panel.scores.y"), true,
            numbered_labels("x", rows(scores_)), numbered_labels("q", n_test)));
        panels.push_back(outputs);

        auto shape = [](int a, int b) { return std::to_string(a) + " × " + std::to_string(b); };
        TablePanel t{msg("panel.parts.title"),
                     {msg("panel.parts.col.matrix"), msg("panel.parts.col.shape"), msg("panel.parts.col.holds")},
                     {}};
        t.rows.push_back({"Q", shape(d_in, n_test), msg("panel.parts.row.queries")});
        t.rows.push_back({"K", shape(d_in, T), msg("panel.parts.row.keys")});
        t.rows.push_back({"V", shape(d_out, T), msg("panel.parts.row.values")});
        t.rows.push_back({"W0", shape(d_out, d_in), msg("panel.parts.row.w0")});
        panels.push_back(t);

        NotePanel note{msg("note.guide.title"), ""};
        if (!adam)
            note.text = msg("note.guide.sgd");
        else
            note.text = msg("note.guide.adam");
        panels.push_back(note);
        return panels;
    }

private:
    DemoContext ctx_;
    LinearLayerRun run_;
    Matrix x_test_, primal_, dual_, scores_;
    double max_abs_diff_ = 0.0, rel_diff_ = 0.0, test_loss_ = 0.0;
};

const DemoDef dual_form_def = [] {
    DemoDef d;
    d.id = "dual_form";
    d.paper = "Irie, Csordás, Schmidhuber 2022";
    d.analytic = true;
    d.params = {
        // Every size at its max stays within kDemoMemoryBudget (tests/unit/test_bounds.cpp).
        ParamSpec::integer("d_in", 1, 32, 8, 1),
        ParamSpec::integer("d_out", 1, 8, 2, 1),
        ParamSpec::integer("n_train", 1, 64, 12, 1),
        ParamSpec::integer("n_test", 1, 16, 6, 1),
        ParamSpec::integer("epochs", 1, 20, 2, 1),
        ParamSpec::real("lr", 0.001, 1, 0.3, 0.001),
        ParamSpec::real("noise", 0, 1, 0.1, 0.01),
        ParamSpec::choice("optimizer", {"sgd", "adam"}, "sgd"),
    };
    d.start = start_session<DualFormSession>;
    return d;
}();
ICL_REGISTER_DEMO(dual_form_def);

}  // namespace
}  // namespace icl
