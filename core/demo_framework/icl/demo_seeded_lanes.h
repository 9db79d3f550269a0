// The lane bookkeeping of a demo that trains a few models side by side, seed after seed,
// `steps` units a seed, of which some models — its lanes 1.. — may each train in another
// worker (Session::lanes): fast_weights' delta-rule and softmax models, momentum_attention's
// model with the momentum term, induction_heads' 1-layer control, emergence_lab's and
// task_diversity_lab's seeds (task_diversity_lab also evaluates in units of their own,
// after the training, as its ridge / dMMSE comparison is too slow for one). SeededLanesSession
// counts the units and answers done, waiting, progress and offload the same way for each;
// TrainedLanesSession, on top of it, runs the training loop over seeds (and, where a demo
// asks for one, an evaluation phase after each seed's training), keeps each model's
// smoothed training loss and writes and reads a lane's state, so that the demo only draws
// a batch, steps a model, evaluates a seed and lists its lane's fields.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "icl/demo.h"
#include "icl/lane_state.h"

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
    // ---- checkpoints: a long run that survives a reload ------------------------------
    // A demo that lists its fields (keep_checkpoints, checkpoint_fields) can save everything
    // its run has gathered — weights, optimizer state, curves, where it is — and a fresh
    // session of the same demo, parameters, seed and lane can go on from it: its next
    // steps, curves and Result are those the uninterrupted run would have had, number for
    // number (tests/unit/test_checkpoint_resume.cpp).
    //   Checkpoint {"format": "icl-run", "version": 1, "demo": "emergence_lab", "lane": 0,
    //               "seed": 1, "params": {...} (the validated values), "state": {...}}
    //   state: {"seed_index", "step", "offloaded": [0/1 a lane], "lane_units", and the demo's}
    // A whole session that offloaded lanes keeps their curves as taken; its lane sessions
    // keep their models, each in its own checkpoint.
    static constexpr int kCheckpointVersion = 1;
    // Whether it can now (a run that stopped on a problem cannot).
    bool resumable() const { return error_.empty() && !checkpoint_params_.is_null(); }
    // Its checkpoint; null where it is not resumable.
    nlohmann::json save_checkpoint() const {
        if (!resumable()) return nullptr;
        LaneState out;
        const_cast<SeededLanesSession*>(this)->checkpoint_header(out);  // a writer changes nothing
        return {{"format", "icl-run"}, {"version", kCheckpointVersion}, {"demo", id_}, {"lane", lane_at_start_},
                {"seed", checkpoint_seed_}, {"params", checkpoint_params_}, {"state", out.json()}};
    }
    // Goes on from `checkpoint`, before its first step (and after the same offloads). One of
    // another version, demo, lane, seed or parameters is refused naming what differs, and
    // changes nothing; one whose state does not read is refused too, and the session may
    // then hold part of it: start a fresh one.
    Status resume_checkpoint(const nlohmann::json& c) {
        using nlohmann::json;
        const std::string of = id_ + ": the saved run ";
        if (checkpoint_params_.is_null()) return make_error(id_ + " keeps no checkpoints");
        if (units_done() > 0) return make_error(of + "can only be resumed before the first step");
        if (!c.is_object() || c.value("format", json()) != "icl-run") return make_error(of + "is not a checkpoint of a run");
        if (c.value("version", json()) != kCheckpointVersion)
            return make_error(of + "is of checkpoint version " + c.value("version", json()).dump() + ", not " +
                              std::to_string(kCheckpointVersion));
        if (c.value("demo", json()) != id_) return make_error(of + "is of " + c.value("demo", json()).dump());
        if (c.value("lane", json()) != lane_at_start_) return make_error(of + "is of lane " + c.value("lane", json()).dump());
        if (c.value("seed", json()) != checkpoint_seed_) return make_error(of + "has seed " + c.value("seed", json()).dump());
        const json& params = c.contains("params") ? c["params"] : json();
        if (params != checkpoint_params_) {
            std::string differ;
            for (const auto& [k, v] : checkpoint_params_.items())
                if (!params.is_object() || params.value(k, json()) != v) differ += (differ.empty() ? "" : ", ") + k;
            return make_error(of + "has other parameters" + (differ.empty() ? std::string() : " (" + differ + ")"));
        }
        if (!c.contains("state")) return make_error(of + "has no state");
        LaneState in(c["state"]);
        checkpoint_header(in);
        if (Status st = in.status(); !st) return make_error(of + "does not read: " + st.error().message);
        return Ok{};
    }
    Status offload(int k) override {
        if (lane() != 0 || k < 1 || k >= lanes()) return Session::offload(k);
        if (units_done() > 0)
            return make_error(id_ + ": lane " + std::to_string(k) + " can only be offloaded before the first step");
        offloaded_[(size_t)k] = true;
        drop_model(lane_arm(k));
        return Ok{};
    }

protected:
    // The demo's fields of its checkpoint, both ways (as a lane's, icl/lane_state.h): each
    // model it trains (trains(arm)) with its trainer (checkpoint_model, core/demos' icl/model_checkpoint.h),
    // and every model's curves and partial results so far, an offloaded lane's as taken.
    // seed_ and step_ are already the saved ones when it reads. A writer only reads the
    // fields it is given. A demo that lists them calls keep_checkpoints in its constructor.
    virtual void checkpoint_fields(LaneState& io) { io.fail(id_ + " keeps no checkpoints"); }
    void keep_checkpoints(const DemoContext& ctx) {
        checkpoint_params_ = ctx.params.to_json();
        checkpoint_seed_ = ctx.seed;
    }
    // lane: DemoContext::lane (the constructor's, before start_demo sets lane()); lane_arms:
    // the demo's index among its models of lane 1's model, lane 2's, ...
    SeededLanesSession(std::string id, int steps, int seeds, int lane, std::vector<int> lane_arms)
        : id_(std::move(id)), steps_(steps), seeds_(seeds), lane_at_start_(lane), lane_arms_(std::move(lane_arms)),
          offloaded_(lane_arms_.size() + 1, false), lane_units_(lane_arms_.size() + 1, 0) {}
    // The lane_arms of a demo whose lane k is seed k's model (models 1 .. seeds - 1).
    static std::vector<int> seed_lanes(int seeds) {
        std::vector<int> v;
        for (int i = 1; i < seeds; ++i) v.push_back(i);
        return v;
    }
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
    // most: the points a trace may have.
    Expected<LaneProgress> read_lane_progress(int k, const nlohmann::json& state, long most) const {
        LaneProgress p;
        if (Status st = read_lane_header(state, units(), p.units, p.error); !st) return lane_state_error(k, st.error().message);
        auto xs = read_json_numbers(state, "loss_steps", -1);
        if (!xs) return lane_state_error(k, xs.error().message);
        if ((long)xs.value().size() > most)
            return lane_state_error(k, "'loss_steps' has more than " + std::to_string(most) + " numbers");
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

    void checkpoint_header(LaneState& io) {
        long long seed = seed_, step = step_;
        std::vector<double> off, lane_units;
        for (size_t k = 0; k < offloaded_.size(); ++k) {
            off.push_back(offloaded_[k] ? 1 : 0);
            lane_units.push_back((double)lane_units_[k]);
        }
        const std::vector<double> mine = off;
        io.integer("seed_index", seed, 0, seeds_);
        io.integer("step", step, 0, steps_);
        io.numbers("offloaded", off, (long)mine.size());
        if (io.reading() && io.status() && off != mine) io.fail("it was saved with other lanes trained in other workers");
        io.numbers("lane_units", lane_units, (long)mine.size());
        for (double u : lane_units)
            if (io.reading() && !(u >= 0 && u <= (double)units() && u == std::floor(u))) io.fail("'lane_units' holds a count out of range");
        if (!io.reading()) return checkpoint_fields(io);
        if (!io.status()) return;
        seed_ = (int)seed;
        step_ = (int)step;
        for (size_t k = 0; k < lane_units.size(); ++k) lane_units_[k] = (long long)lane_units[k];
        checkpoint_fields(io);
    }

    long long units() const { return (long long)seeds_ * steps_; }
    long long units_done() const { return seed_ >= seeds_ ? units() : (long long)seed_ * steps_ + step_; }

    std::string id_;
    int steps_ = 0, seeds_ = 1, seed_ = 0, step_ = 0;
    int lane_at_start_ = 0;
    std::vector<int> lane_arms_;
    std::vector<bool> offloaded_;        // [lane]: trained by another worker
    std::vector<long long> lane_units_;  // [lane]: the units its last state had done
    nlohmann::json checkpoint_params_;   // null: the demo keeps no checkpoints
    uint64_t checkpoint_seed_ = 0;
};

class TrainedLanesSession : public SeededLanesSession {
public:
    // One training unit = one optimizer step of each model this session trains, on the
    // same batch. Every session draws every batch, so a lane trains on the very batches the
    // whole session would. Then, where the demo asked for them (evaluate_in_units), its
    // evaluation units, each a part of every model's evaluation. A seed's last unit
    // evaluates it and begins the next.
    void step(int budget) final {
        for (int u = 0; u < budget && seed_ < seeds_ && error_.empty(); ++u) {
            if (step_ < train_steps_) {
                draw_batch();
                for (int arm = 0; arm < models_; ++arm) {
                    if (!trains(arm)) continue;  // another lane's
                    const std::optional<double> loss = train_step(arm);
                    if (!loss) return;  // train_step set error_
                    LossTrace& t = traces_[(size_t)arm];
                    t.smooth = step_ == 0 ? *loss : keep_ * t.smooth + add_ * *loss;
                    if (((step_ + 1) % 10 == 0 || (trace_last_ && step_ + 1 == train_steps_)) && seed_ == 0) {
                        t.steps.push_back(step_ + 1);
                        t.loss.push_back(t.smooth);
                    }
                }
            } else {
                for (int arm = 0; arm < models_; ++arm)
                    if (trains(arm))
                        if (Status st = evaluate_unit(arm, step_ - train_steps_); !st) { error_ = st.error().message; return; }
            }
            ++step_;
            if (Status st = after_step(); !st) { error_ = st.error().message; return; }
            if (step_ == steps_) {
                if (Status st = evaluate_seed(); !st) { error_ = st.error().message; return; }
                if (++seed_ < seeds_) {
                    step_ = 0;
                    begin_seed();
                }
            }
        }
    }
    // A lane session's state: the units done, the error (non-empty: the lane stopped on
    // it), its model's first-seed training loss, and the demo's fields (write_lane).
    nlohmann::json lane_state() const final {
        if (lane() == 0) return nullptr;
        const int arm = lane_arm(lane());
        LaneState out;
        LossTrace t = trace(arm);  // a copy: a writer reads the fields it is given
        out.numbers("loss_steps", t.steps);
        out.numbers("loss", t.loss);
        write_lane(arm, out);
        nlohmann::json state = out.json();
        state["steps"] = units_done();
        state["error"] = error_;
        return state;
    }
    // The inverse, in a whole session that offloaded lane k; once the lane's error is in,
    // it is the session's, in the lane's words. A state refused changes nothing.
    Status take_lane(int k, const nlohmann::json& state) final {
        if (!takes_lane(k)) return Session::take_lane(k, state);
        auto progress = read_lane_progress(k, state, trace_points());
        if (!progress) return progress.error();
        LaneState in(state);
        if (Status st = read_lane(lane_arm(k), in); !st) return lane_state_error(k, st.error().message);
        traces_[(size_t)lane_arm(k)].steps = progress.value().loss_steps;
        traces_[(size_t)lane_arm(k)].loss = progress.value().loss;
        took_lane(k, progress.value());
        return Ok{};
    }

protected:
    // models: how many it trains side by side; keep, add: the training loss's smoothing,
    // each step's smoothed loss = keep × the last one + add × the step's. The rest as
    // SeededLanesSession's.
    TrainedLanesSession(std::string id, int steps, int seeds, int lane, std::vector<int> lane_arms, int models, double keep,
                        double add)
        : SeededLanesSession(std::move(id), steps, seeds, lane, std::move(lane_arms)), train_steps_(steps), models_(models),
          keep_(keep), add_(add), traces_((size_t)models) {}
    // In its constructor, for a demo whose evaluation of a seed is too long for one unit:
    // `units` more units a seed after its `steps` of training, each calling evaluate_unit
    // for every model this session trains; the loss trace then also keeps a point at the
    // last training step (so that its curve ends there).
    void evaluate_in_units(int units) {
        steps_ = train_steps_ + units;
        trace_last_ = true;
    }
    // Evaluation unit `unit` (0 ..) of model `arm`, once it is trained.
    virtual Status evaluate_unit(int arm, int unit) {
        (void)arm;
        (void)unit;
        return Ok{};
    }
    // The optimizer steps a seed.
    int train_steps() const { return train_steps_; }
    // The training batch of the step about to run (every model trains on it).
    virtual void draw_batch() = 0;
    // One optimizer step of model `arm` on that batch: its loss, or none once it has set error_.
    virtual std::optional<double> train_step(int arm) = 0;
    // After every unit (step_ counts it): e.g. a periodic evaluation.
    virtual Status after_step() { return Ok{}; }
    // The seed's models are trained (and their evaluation units done): evaluate them (seed_
    // is the seed's index).
    virtual Status evaluate_seed() = 0;
    // Make the next seed's models (seed_ is its index; step_ is 0 again); the constructor
    // makes the first seed's (a demo of one seed has no other).
    virtual void begin_seed() {}
    // The seed of the current seed's models and batches, from the run's.
    uint64_t run_seed(uint64_t seed) const { return seed * 1000 + (uint64_t)seed_; }
    // An optimizer step's loss, or none once its error is the session's (train_step's
    // usual last line).
    template <class Loss>
    std::optional<double> loss_of(const Expected<Loss>& loss) {
        if (!loss) {
            error_ = loss.error().message;
            return std::nullopt;
        }
        return loss.value();
    }
    // A lane model's own fields of its state beyond the common ones, one way each: write
    // them, or read them whole and only then keep them.
    virtual void write_lane(int arm, LaneState& out) const = 0;
    virtual Status read_lane(int arm, LaneState& in) = 0;

    // A model's smoothed training loss: over its first seed, a point every 10 steps (an
    // offloaded lane's as its last state had it); smooth is the current seed's last value.
    struct LossTrace {
        std::vector<double> steps, loss;
        double smooth = 0;
    };
    const LossTrace& trace(int arm) const { return traces_[(size_t)arm]; }
    // Model `arm`'s trace as fields of a checkpoint (checkpoint_fields), both ways.
    void checkpoint_trace(LaneState& io, int arm) {
        LossTrace& t = traces_[(size_t)arm];
        io.numbers_at_most("loss_steps", t.steps, trace_points(), "points");
        io.numbers("loss", t.loss, (long)t.steps.size());
        io.number("smooth", t.smooth);
    }

private:
    // The points a trace may have.
    long trace_points() const { return train_steps_ / 10 + (trace_last_ && train_steps_ % 10 != 0 ? 1 : 0); }
    int train_steps_ = 0;
    bool trace_last_ = false;
    int models_ = 1;
    double keep_ = 0.9, add_ = 0.1;
    std::vector<LossTrace> traces_;  // [arm]
};

}  // namespace icl
