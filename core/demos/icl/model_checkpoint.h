// A trained model's part of a run's checkpoint (icl/demo_seeded_lanes.h), written and read
// by one description as a lane's state is (icl/lane_state.h): its weights and its trainer's
// state — the optimizer's step and moments, the divergence watch's first loss — bit for
// bit, so that a run resumed from it takes the very steps the uninterrupted run would.
#pragma once
#include <cmath>
#include <vector>

#include "icl/gpt_train.h"
#include "icl/lane_state.h"

namespace icl {

// Field `key` of `io`: the model's weights and the trainer's state. A reader changes the
// model and the trainer only when the whole field reads and fits them.
inline void checkpoint_model(LaneState& io, const char* key, gpt::Model& model, gpt::Trainer& trainer) {
    io.object(key, [&](LaneState& f) {
        std::vector<float> weights = model.params;
        gpt::Trainer::State st = trainer.state();
        long long steps = st.optimizer.steps;
        const long m = (long)st.optimizer.m.size(), v = (long)st.optimizer.v.size();
        f.floats("weights", weights, (long)model.params.size());
        f.integer("optimizer_step", steps, 0, 1LL << 30);
        f.floats("m", st.optimizer.m, m);
        f.floats("v", st.optimizer.v, v);
        f.number("first_loss", st.first_loss);
        if (!f.reading() || !f.status()) return;
        st.optimizer.steps = (int)steps;
        if (!std::isfinite(st.first_loss)) st.first_loss = -1;  // saved before the first step
        if (Status s = trainer.restore(st); !s) return f.fail(s.error().message);
        model.params = std::move(weights);
    });
}

}  // namespace icl
