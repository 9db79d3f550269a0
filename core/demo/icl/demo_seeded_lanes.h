// The lane bookkeeping of a demo that trains a few models side by side, seed after seed,
// `steps` units a seed, of which one model — its lane 1 — may train in another worker
// (Session::lanes): fast_weights' delta-rule model, momentum_attention's model with the
// momentum term. The demo trains, evaluates, writes its lane's state and takes it; this
// counts the units and answers done, waiting, progress and offload the same way for both.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "icl/demo.h"

namespace icl {

class SeededLanesSession : public Session {
public:
    // Done when its own seeds are, and lane 1 (if trained elsewhere) has sent its last state.
    bool done() const override { return !error_.empty() || (seed_ >= seeds_ && !waiting()); }
    bool waiting() const override { return error_.empty() && seed_ >= seeds_ && offloaded_ && lane_units_ < units(); }
    // The slower of its own units and, offloaded, lane 1's (as its last state had them): the
    // bar reaches 1 when the run is done, not while it waits for the lane.
    double progress() const override {
        const double own = seed_ >= seeds_ ? 1.0 : (double)units_done() / (double)units();
        return offloaded_ ? std::min(own, (double)lane_units_ / (double)units()) : own;
    }
    int lanes() const override { return 2; }
    Status offload(int k) override {
        if (lane() != 0 || k != 1) return Session::offload(k);
        if (units_done() > 0) return make_error(id_ + ": lane 1 can only be offloaded before the first step");
        offloaded_ = true;
        drop_lane_model();
        return Ok{};
    }

protected:
    // lane: DemoContext::lane (the constructor's, before start_demo sets lane()); lane_arm:
    // the demo's index of lane 1's model among its models.
    SeededLanesSession(std::string id, int steps, int seeds, int lane, int lane_arm)
        : id_(std::move(id)), steps_(steps), seeds_(seeds), lane_at_start_(lane), lane_arm_(lane_arm) {}
    // Lane 1 is offloaded: stop training its model (trains(lane_arm) now says no).
    virtual void drop_lane_model() = 0;
    // Whether this session trains model `arm`: a lane session its lane's model only, a whole
    // one every model but an offloaded lane's.
    bool trains(int arm) const { return lane_at_start_ == 0 ? !(offloaded_ && arm == lane_arm_) : arm == lane_arm_; }

    // A lane 1 state's common part, both ways: the units done, the error (non-empty: the
    // lane stopped on it) and the model's first-seed training loss, a point every 10 steps.
    struct LaneProgress {
        long long units = 0;
        std::string error;
        std::vector<double> loss_steps, loss;
    };
    nlohmann::json lane_progress_json(const std::vector<double>& loss_steps, const std::vector<double>& loss) const {
        return {{"steps", units_done()}, {"error", error_}, {"loss_steps", json_numbers(loss_steps)}, {"loss", json_numbers(loss)}};
    }
    Expected<LaneProgress> read_lane_progress(const nlohmann::json& state) const {
        LaneProgress p;
        if (Status st = read_lane_header(state, units(), p.units, p.error); !st) return lane_state_error(st.error().message);
        auto xs = read_json_numbers(state, "loss_steps", -1);
        if (!xs) return lane_state_error(xs.error().message);
        if ((long long)xs.value().size() > steps_ / 10)
            return lane_state_error("'loss_steps' has more than " + std::to_string(steps_ / 10) + " numbers");
        auto ys = read_json_numbers(state, "loss", (long)xs.value().size());
        if (!ys) return lane_state_error(ys.error().message);
        p.loss_steps = xs.value();
        p.loss = ys.value();
        return p;
    }
    Error lane_state_error(const std::string& what) const { return make_error(id_ + ": lane 1's state: " + what); }
    // Once the demo has taken the rest of the state: its units, and its error becomes the
    // session's, in its words.
    void took_lane(const LaneProgress& p) {
        lane_units_ = p.units;
        if (!p.error.empty() && error_.empty()) error_ = p.error;
    }

    long long units() const { return (long long)seeds_ * steps_; }
    long long units_done() const { return seed_ >= seeds_ ? units() : (long long)seed_ * steps_ + step_; }

    std::string id_;
    int steps_ = 0, seeds_ = 1, seed_ = 0, step_ = 0;
    int lane_at_start_ = 0, lane_arm_ = 0;
    bool offloaded_ = false;    // lane 1 trained by another worker
    long long lane_units_ = 0;  // the units its last state had done
};

}  // namespace icl
