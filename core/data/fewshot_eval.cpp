#include "icl/fewshot_eval.h"

#include <algorithm>
#include <cmath>

#include "icl/gpt_probe.h"

namespace icl::fewshot {

Expected<Scores> score(const gpt::Model& model, const Batch& b, const std::vector<float>& vectors) {
    const int T = 2 * b.pairs + 1, L = model.config.vocab;
    gpt::Activations acts;
    gpt::Batch in;
    in.B = b.count;
    in.T = T;
    in.vectors = vectors.data();
    if (Status st = gpt::forward(model, acts, in); !st) return st.error();
    const float* logits = acts.logits_ptr();
    Scores s;
    int right = 0;
    for (int q = 0; q < b.count; ++q) {
        const float* row = logits + ((size_t)q * T + (size_t)(T - 1)) * L;
        if ((int)(std::max_element(row, row + L) - row) == b.answer(q)) ++right;
    }
    s.accuracy = (double)right / b.count;
    s.induction = NAN;
    if (model.config.arch != gpt::Arch::transformer) return s;
    const int H = model.config.heads, last = model.config.layers - 1;
    double sum = 0;
    for (int q = 0; q < b.count; ++q)
        for (int h = 0; h < H; ++h) {
            const gpt::View att = gpt::attention_map(acts, last, q, h).value();  // (T,T)
            for (int i = 0; i < b.pairs; ++i)  // the query's row
                if (b.item_class[(size_t)b.at(q, i)] == b.query_class(q)) sum += att(T - 1, 2 * i + 1);
        }
    s.induction = sum / ((double)b.count * H);
    return s;
}

Crossings crossings(const std::vector<double>& steps, const std::vector<double>& icl, const std::vector<double>& iwl,
                    double floor) {
    Crossings c{NAN, NAN, NAN, NAN, NAN};
    const double bar = floor + 0.5 * (1.0 - floor);
    for (size_t i = 0; i < steps.size() && i < icl.size() && i < iwl.size(); ++i) {
        if (std::isnan(c.icl_step) && icl[i] >= bar) c.icl_step = steps[i];
        if (!std::isnan(c.icl_step) && std::isnan(c.overtake_step) && iwl[i] > icl[i]) c.overtake_step = steps[i];
        if (!std::isnan(c.icl_step) && !(icl[i] <= c.peak)) {
            c.peak = icl[i];
            c.peak_step = steps[i];
        }
    }
    // faded: below the mark from some evaluation to the last, after ICL had appeared
    size_t n = std::min(steps.size(), std::min(icl.size(), iwl.size()));
    if (!std::isnan(c.icl_step) && n > 0 && icl[n - 1] < bar) {
        while (n > 1 && icl[n - 2] < bar) --n;
        c.fade_step = steps[n - 1];
    }
    return c;
}

Lead iwl_lead(const std::vector<double>& steps, const std::vector<double>& icl, const std::vector<double>& iwl,
              double icl_step, double chance) {
    Lead lead{NAN, NAN};
    const double bar = chance + 0.5 * (1.0 - chance);
    for (size_t i = 0; i < steps.size() && i < icl.size() && i < iwl.size(); ++i) {
        if (!std::isnan(icl_step) && steps[i] >= icl_step) break;
        if (iwl[i] > icl[i] && iwl[i] >= bar && !(iwl[i] <= lead.value)) lead = Lead{iwl[i], steps[i]};
    }
    return lead;
}

}  // namespace icl::fewshot
