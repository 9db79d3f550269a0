// Checkpoints of long runs (SeededLanesSession::save_checkpoint, icl/demo_seeded_lanes.h)
// for the front ends, whatever the session: the demos on the shared lanes machinery that
// list their fields keep them (a trained model's part: icl/model_checkpoint.h in
// core/demos); the rest keep none.
#pragma once
#include <nlohmann/json.hpp>

#include "icl/demo.h"

namespace icl {

// A session's checkpoint: null where its demo keeps none (or it stopped on a problem).
nlohmann::json save_checkpoint(const Session& session);
// Goes on from `checkpoint` (SeededLanesSession::resume_checkpoint); an error where the
// demo keeps none or the checkpoint does not fit.
Status resume_checkpoint(Session& session, const nlohmann::json& checkpoint);

}  // namespace icl
