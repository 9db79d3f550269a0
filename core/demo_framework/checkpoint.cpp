// Checkpoints of any session: those of a demo on the shared lanes machinery that lists its
// fields (icl/demo_seeded_lanes.h); none of the rest.
#include "icl/demo_checkpoint.h"
#include "icl/demo_seeded_lanes.h"

namespace icl {

nlohmann::json save_checkpoint(const Session& session) {
    const auto* s = dynamic_cast<const SeededLanesSession*>(&session);
    return s ? s->save_checkpoint() : nlohmann::json();
}

Status resume_checkpoint(Session& session, const nlohmann::json& checkpoint) {
    auto* s = dynamic_cast<SeededLanesSession*>(&session);
    if (!s || !s->resumable()) return make_error("this demo keeps no checkpoints");
    return s->resume_checkpoint(checkpoint);
}

}  // namespace icl
