// The lane bookkeeping of a demo that trains a few models side by side, seed after seed,
// `steps` units a seed, of which some models — its lanes 1.. — may each train in another
// worker (Session::lanes): fast_weights' delta-rule and softmax models, momentum_attention's
// model with the momentum term. The demo trains, evaluates, writes a lane's state and
// takes it; this counts the units and answers done, waiting, progress and offload the
// same way for each.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "icl/demo.h"

namespace icl {

class SeededLanesSession : public Session {
public:
    // Done when its own seeds are, and every lane trained elsewhere has sent its last state.
    bool done() const override { return !error_.empty() || (seed_ >= seeds_ && !waiting()); }
    bool waiting() const override {
        if (!error_.empty() || seed_ < seeds_) return false;
        for (int k = 1; k < lanes(); ++k)
            if (offloaded_[(size_t)k] && lane_units_[(size_t)k] < units()) return true;
        return false;
    }
    // The slowest of its own units and, offloaded, each lane's (as its last state had them):
    // the bar reaches 1 when the run is done, not while it waits for a lane.
    double progress() const override {
        double p = seed_ >= seeds_ ? 1.0 : (double)units_done() / (double)units();
        for (int k = 1; k < lanes(); ++k)
            if (offloaded_[(size_t)k]) p = std::min(p, (double)lane_units_[(size_t)k] / (double)units());
        return p;
    }
    int lanes() const override { return 1 + (int)lane_arms_.size(); }
    Status offload(int k) override {
        if (lane() != 0 || k < 1 || k >= lanes()) return Session::offload(k);
        if (units_done() > 0)
            return make_error(id_ + ": lane " + std::to_string(k) + " can only be offloaded before the first step");
        offloaded_[(size_t)k] = true;
        drop_model(lane_arm(k));
        return Ok{};
    }

protected:
    // lane: DemoContext::lane (the constructor's, before start_demo sets lane()); lane_arms:
    // the demo's index among its models of lane 1's model, lane 2's, ...
    SeededLanesSession(std::string id, int steps, int seeds, int lane, std::vector<int> lane_arms)
        : id_(std::move(id)), steps_(steps), seeds_(seeds), lane_at_start_(lane), lane_arms_(std::move(lane_arms)),
          offloaded_(lane_arms_.size() + 1, false), lane_units_(lane_arms_.size() + 1, 0) {}
    // Model `arm`'s lane is offloaded: stop training it (trains(arm) now says no).
    virtual void drop_model(int arm) = 0;
    // Lane k's model (k >= 1).
    int lane_arm(int k) const { return lane_arms_[(size_t)k - 1]; }
    // Whether this session trains model `arm`: a lane session its lane's model only, a whole
    // one every model but the offloaded lanes'. A session made for a lane past lanes() (which
    // start_demo refuses once the session exists) trains none.
    bool trains(int arm) const {
        if (lane_at_start_ != 0) return lane_at_start_ < lanes() && arm == lane_arm(lane_at_start_);
        for (int k = 1; k < lanes(); ++k)
            if (offloaded_[(size_t)k] && lane_arm(k) == arm) return false;
        return true;
    }
    // Whether this session takes lane k's states: a whole session that offloaded lane k.
    bool takes_lane(int k) const { return lane() == 0 && k >= 1 && k < lanes() && offloaded_[(size_t)k]; }

    // A lane's state's common part, both ways: the units done, the error (non-empty: the
    // lane stopped on it) and the model's first-seed training loss, a point every 10 steps.
    struct LaneProgress {
        long long units = 0;
        std::string error;
        std::vector<double> loss_steps, loss;
    };
    nlohmann::json lane_progress_json(const std::vector<double>& loss_steps, const std::vector<double>& loss) const {
        return {{"steps", units_done()}, {"error", error_}, {"loss_steps", json_numbers(loss_steps)}, {"loss", json_numbers(loss)}};
    }
    Expected<LaneProgress> read_lane_progress(int k, const nlohmann::json& state) const {
        LaneProgress p;
        if (Status st = read_lane_header(state, units(), p.units, p.error); !st) return lane_state_error(k, st.error().message);
        auto xs = read_json_numbers(state, "loss_steps", -1);
        if (!xs) return lane_state_error(k, xs.error().message);
        if ((long long)xs.value().size() > steps_ / 10)
            return lane_state_error(k, "'loss_steps' has more than " + std::to_string(steps_ / 10) + " numbers");
        auto ys = read_json_numbers(state, "loss", (long)xs.value().size());
        if (!ys) return lane_state_error(k, ys.error().message);
        p.loss_steps = xs.value();
        p.loss = ys.value();
        return p;
    }
    Error lane_state_error(int k, const std::string& what) const {
        return make_error(id_ + ": lane " + std::to_string(k) + "'s state: " + what);
    }
    // Once the demo has taken the rest of lane k's state: its units, and its error becomes
    // the session's, in its words.
    void took_lane(int k, const LaneProgress& p) {
        lane_units_[(size_t)k] = p.units;
        if (!p.error.empty() && error_.empty()) error_ = p.error;
    }

    long long units() const { return (long long)seeds_ * steps_; }
    long long units_done() const { return seed_ >= seeds_ ? units() : (long long)seed_ * steps_ + step_; }

    std::string id_;
    int steps_ = 0, seeds_ = 1, seed_ = 0, step_ = 0;
    int lane_at_start_ = 0;
    std::vector<int> lane_arms_;
    std::vector<bool> offloaded_;        // [lane]: trained by another worker
    std::vector<long long> lane_units_;  // [lane]: the units its last state had done
};

}  // namespace icl
