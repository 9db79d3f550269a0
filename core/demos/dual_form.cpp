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
#include "icl/demo_panels.h"
#include "icl/dual_form.h"
#include "icl/rng.h"

namespace icl {
namespace {

Matrix random_normal(Rng& rng, int rows, int cols, float std) {
    Matrix m = matrix(rows, cols);
    for (float& x : m.storage()) x = rng.normal(0.0f, std);
    return m;
}

class DualFormSession : public Session {
public:
    explicit DualFormSession(const DemoContext& ctx) : ctx_(ctx) {}

    void step(int) override {
        if (done_) return;
        done_ = true;
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
        cfg.optimizer = adam ? LinearOptimizer::adam : LinearOptimizer::sgd;
        cfg.lr = p.f("lr");
        cfg.epochs = p.i("epochs");
        run_ = train_linear_layer(w0, x_train, y_train, cfg);
        if (!std::all_of(run_.w.storage().begin(), run_.w.storage().end(), [](float w) { return std::isfinite(w); })) {
            error_ = tr(ctx_.lang, "training diverged (non-finite weights): lower lr",
                        "학습이 발산했습니다(가중치가 유한하지 않음): lr을 낮추세요");
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

    bool done() const override { return done_; }

    std::vector<Panel> panels() const override {
        std::vector<Panel> panels;
        if (!done_ || !error_.empty()) return panels;
        const Lang L = ctx_.lang;
        const Params& p = ctx_.params;
        const bool adam = p.s("optimizer") == "adam";
        const int d_in = p.i("d_in"), d_out = p.i("d_out"), n_test = p.i("n_test"), T = rows(run_.keys);

        ScalarsPanel s{tr(L, "Primal vs dual", "primal과 dual 비교"), {}};
        s.items.push_back({"max_abs_diff", max_abs_diff_, "",
                           tr(L, "largest |W x − (W0 x + Σ e_t (x_t·x))| over test outputs",
                              "테스트 출력에서 |W x − (W0 x + Σ e_t (x_t·x))|의 최댓값")});
        s.items.push_back({"rel_diff", rel_diff_, "",
                           tr(L, "max_abs_diff divided by the largest |W x|", "max_abs_diff를 가장 큰 |W x|로 나눈 값")});
        s.items.push_back({"updates", double(T), "",
                           tr(L, "number of weight updates T = n_train × epochs (keys and values)",
                              "가중치 update 횟수 T = n_train × epochs (key와 value의 개수)")});
        s.items.push_back({"train_loss", double(run_.epoch_loss.back()), "",
                           tr(L, "mean ½||W x − y||² on the training pairs after training",
                              "학습 후 학습 쌍에서의 평균 ½||W x − y||²")});
        s.items.push_back({"test_loss", test_loss_, "",
                           tr(L, "mean ½||W x − W* x||² against the noise-free teacher on test inputs",
                              "테스트 입력에서 잡음 없는 teacher W*와의 평균 ½||W x − W* x||²")});
        panels.push_back(s);

        LinesPanel outputs;
        outputs.title = tr(L, "Output 1 at each test input: primal and dual", "테스트 입력별 첫 번째 출력: primal과 dual");
        outputs.x_label = tr(L, "test input", "테스트 입력");
        outputs.y_label = "y₁";
        Series primal{tr(L, "primal W x", "primal W x"), {}, {}, {}, false};
        Series dual{adam ? tr(L, "dual with SGD-form terms", "SGD 형태 항으로 만든 dual")
                         : tr(L, "dual W0 x + Σ e_t (x_t·x)", "dual W0 x + Σ e_t (x_t·x)"),
                    {}, {}, {}, true};
        for (int j = 0; j < n_test; ++j) {
            primal.x.push_back(j + 1);
            primal.y.push_back(primal_(j, 0));
            dual.x.push_back(j + 1);
            dual.y.push_back(dual_(j, 0));
        }
        outputs.series = {primal, dual};

        panels.push_back(heatmap_of(
            scores_, tr(L, "Attention scores x_i · x_test: which training inputs each test input spotlights",
                        "attention score x_i · x_test: 각 테스트 입력이 어떤 학습 입력에 주목하는가"),
            tr(L, "test input (query)", "테스트 입력 (query)"), tr(L, "training input (key)", "학습 입력 (key)"), true,
            numbered_labels("x", rows(scores_)), numbered_labels("q", n_test)));
        panels.push_back(outputs);

        auto shape = [](int a, int b) { return std::to_string(a) + " × " + std::to_string(b); };
        TablePanel t{tr(L, "The attention that the trained layer is", "학습된 층이 곧 이 attention"),
                     {tr(L, "matrix", "행렬"), tr(L, "shape", "모양"), tr(L, "holds", "담긴 것")},
                     {}};
        t.rows.push_back({"Q", shape(d_in, n_test), tr(L, "test inputs x (one query per column)", "테스트 입력 x (열마다 query 하나)")});
        t.rows.push_back({"K", shape(d_in, T), tr(L, "training inputs x_t, one per update", "update마다의 학습 입력 x_t")});
        t.rows.push_back({"V", shape(d_out, T), tr(L, "error signals e_t = −η ∇_y L_t", "오차 신호 e_t = −η ∇_y L_t")});
        t.rows.push_back({"W0", shape(d_out, d_in), tr(L, "initial weights (the part that needs no attention)",
                                                     "초기 가중치 (attention과 무관한 부분)")});
        panels.push_back(t);

        NotePanel note{tr(L, "What to see", "무엇을 볼까"), ""};
        if (!adam)
            note.text = tr(L,
                "With SGD the primal and dual outputs agree to float rounding (max_abs_diff about 1e-7 at the defaults): the trained layer "
                "is exactly unnormalized attention whose keys are the training inputs and values the error signals, as "
                "Irie et al. 2022 state. Here the data are a random teacher, not a real task.",
                "SGD에서는 primal과 dual 출력이 float 반올림 수준(기본값에서 max_abs_diff ≈ 1e-7)까지 일치합니다. 학습된 층은 "
                "학습 입력을 key로, 오차 신호를 value로 하는 정규화 없는 attention과 정확히 같습니다(Irie et al. 2022). "
                "단, 여기 데이터는 실제 task가 아니라 무작위 teacher입니다.");
        else
            note.text = tr(L,
                "With Adam the weights move by −η m̂/(√v̂+ε), which is not a sum of e_t ⊗ x_t, so the dual column here "
                "(the same error signals e_t = −η ∇_y L_t, applied as SGD would) no longer matches W x: rel_diff measures "
                "what Adam's momentum and per-weight scaling add beyond attention over the training inputs.",
                "Adam에서는 가중치가 −η m̂/(√v̂+ε)만큼 움직이는데, 이것은 e_t ⊗ x_t의 합이 아닙니다. 그래서 여기의 dual "
                "(같은 오차 신호 e_t = −η ∇_y L_t를 SGD처럼 더한 것)은 W x와 더 이상 일치하지 않고, rel_diff는 Adam의 "
                "momentum과 가중치별 스케일링이 학습 입력에 대한 attention 너머로 더한 몫을 잽니다.");
        panels.push_back(note);
        return panels;
    }

private:
    DemoContext ctx_;
    bool done_ = false;
    LinearLayerRun run_;
    Matrix x_test_, primal_, dual_, scores_;
    double max_abs_diff_ = 0.0, rel_diff_ = 0.0, test_loss_ = 0.0;
};

Expected<std::unique_ptr<Session>> start(const DemoContext& ctx) {
    return std::unique_ptr<Session>(new DualFormSession(ctx));
}

const DemoDef dual_form_def = [] {
    DemoDef d;
    d.id = "dual_form";
    d.title_en = "A linear layer trained by gradient descent is attention";
    d.title_ko = "경사 하강법으로 학습한 선형 층은 attention이다";
    d.summary_en = "Train y = W x by SGD and compute each test output twice: as W x and as attention W0 x + Σ e_t (x_t · x) "
            "over the training inputs (keys) and error signals (values).";
    d.summary_ko = "y = W x를 SGD로 학습한 뒤, 테스트 출력을 두 번 계산합니다: W x로 한 번, 그리고 학습 입력을 key로, 오차 신호를 "
            "value로 하는 attention W0 x + Σ e_t (x_t · x)로 한 번.";
    d.paper = "Irie, Csordás, Schmidhuber 2022";
    d.analytic = true;
    d.params = {
        // Largest problem, every size at its max: peak 0.2 MiB for start + one step
        // (measured by tests/unit/test_bounds.cpp; the budget is 512 MiB of wasm's 1 GB).
        ParamSpec::integer("d_in", 1, 32, 8, 1, "input size d_in", "입력 차원 d_in"),
        ParamSpec::integer("d_out", 1, 8, 2, 1, "output size d_out", "출력 차원 d_out"),
        ParamSpec::integer("n_train", 1, 64, 12, 1, "number of training pairs", "학습 쌍의 개수"),
        ParamSpec::integer("n_test", 1, 16, 6, 1, "number of test inputs (queries)", "테스트 입력(query)의 개수"),
        ParamSpec::integer("epochs", 1, 20, 2, 1, "passes over the training pairs (one update per pair)",
                           "학습 쌍을 몇 번 돌지 (쌍마다 update 한 번)"),
        ParamSpec::real("lr", 0.001, 1, 0.3, 0.001, "learning rate η", "학습률 η"),
        ParamSpec::real("noise", 0, 1, 0.1, 0.01, "std of the noise added to training targets",
                        "학습 target에 더하는 잡음의 표준편차"),
        ParamSpec::choice("optimizer", {"sgd", "adam"}, "sgd", "sgd keeps the dual form exact; adam breaks it",
                          "sgd는 dual form을 정확히 지키고, adam은 깨뜨립니다"),
    };
    d.start = start;
    return d;
}();
ICL_REGISTER_DEMO(dual_form_def);

}  // namespace
}  // namespace icl
