// Scoring a model on few-shot classification sequences (icl/fewshot.h) in their vector
// form, and reading when in-context learning appeared over training.
#pragma once
#include <vector>

#include "icl/expected.h"
#include "icl/fewshot.h"
#include "icl/gpt.h"

namespace icl::fewshot {

// A model's scores on one set: accuracy = the share of sequences whose answer is the
// argmax of the model's logits at the query (the last of the 2N + 1 positions; the model's
// vocabulary is the L labels); induction = Reddy's induction-head measure, the last
// attention layer's weight from the query to the label positions 2i + 1 that follow the
// context items i of the query's class, summed over those items and averaged over heads
// and sequences (NaN for a model without attention).
struct Scores {
    double accuracy = 0, induction = 0;
};
// `vectors`: vectors(world, batch). Errors: the model's forward's.
Expected<Scores> score(const gpt::Model& model, const Batch& batch, const std::vector<float>& vectors);

// The steps at which a run's curves cross (NaN: did not happen). ICL appeared at the first
// evaluation where its accuracy reached halfway from `floor` to 1, floor being what a
// shortcut reaches without reading the match (1/ways: copying one of the `ways` labels of
// the context); IWL overtook it at the first evaluation from then on where the IWL
// accuracy was the higher. Transience (Singh et al. 2023): the ICL accuracy peaked at
// `peak` (its highest evaluation from icl_step on, the first of equal ones) at peak_step,
// and faded at fade_step: the first evaluation of the run below the halfway mark that
// lasts to the last one (NaN: ICL ended above the mark, or never appeared).
struct Crossings {
    double icl_step, overtake_step;
    double peak, peak_step, fade_step;
};
Crossings crossings(const std::vector<double>& steps, const std::vector<double>& icl, const std::vector<double>& iwl,
                    double floor);

// The reverse order (memorisation first, then the context): IWL's highest evaluation
// before `icl_step` (all of them when it is NaN) at which IWL led ICL and had reached
// halfway from `chance` (1/L) to 1; {NaN, NaN} if there was none.
struct Lead {
    double value, step;
};
Lead iwl_lead(const std::vector<double>& steps, const std::vector<double>& icl, const std::vector<double>& iwl,
              double icl_step, double chance);

}  // namespace icl::fewshot
