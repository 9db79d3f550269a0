#include "demo_run.h"

#include <exception>
#include <stdexcept>

#include <icl/demo_checkpoint.h>
#include <icl/run_slices.h>

#include "kept_run.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {
// One step() call does this many units of work (optimizer steps for a training demo);
// small, so a stop is quick and snapshots are frequent.
const int kStepBudget = 1;
// Snapshots are published (a lane's state posted) at most this often while the session runs.
const auto kPublishInterval = std::chrono::milliseconds(30);
// A kept run's checkpoint is written this often while it trains (and when it stops).
const auto kKeepInterval = std::chrono::seconds(3);

// The slices of a run or a lane: kStepBudget units each, a snapshot every kPublishInterval
// by a clock that starts now (the first snapshot is the one start() took).
struct Clock {
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    icl::SliceClock slices = icl::slice_clock(kStepBudget, 0, std::chrono::duration<double, std::milli>(kPublishInterval).count());
    Clock() { slices.posted_ms = 0; }
    double now_ms() const { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); }
    // Whether a snapshot is due; if so, it counts as taken now.
    bool snapshot() {
        const double now = now_ms();
        if (!icl::snapshot_due(slices, now)) return false;
        slices.posted_ms = now;
        return true;
    }
};
}  // namespace

icl::Expected<std::unique_ptr<DemoRun>> DemoRun::start(const std::string& demo_id, const nlohmann::json& params,
                                                       const icl::Texts& texts, uint64_t seed, const Keep& keep) {
    auto session = icl::start_demo(demo_id, params, texts, seed);
    if (!session) return session.error();
    // A kept checkpoint the core refuses is set aside; the run starts afresh, saying so.
    std::string notice;
    bool resumed = false;
    if (!keep.resume.is_null()) {
        if (icl::Status s = icl::resume_checkpoint(*session.value(), keep.resume); !s) {
            notice = set_kept_run_aside(keep.path, s.error().message);
            session = icl::start_demo(demo_id, params, texts, seed);
            if (!session) return session.error();
        } else {
            resumed = true;
        }
    }
    std::unique_ptr<DemoRun> run(new DemoRun(std::move(session.value())));
    run->notice_ = notice;
    run->resumed_ = resumed;
    if (!keep.path.empty() && !icl::save_checkpoint(*run->session_).is_null()) {
        run->keep_path_ = keep.path;
        run->demo_id_ = demo_id;
        run->params_ = params;
        run->seed_ = seed;
    }
    // Lanes 1.. on threads of their own where there is a core for them; a lane that does not
    // start stays in the session, which then trains it itself. A kept run keeps them all.
    if (std::thread::hardware_concurrency() >= 2 && run->keep_path_.empty())
        for (int k = 1; k < run->session_->lanes(); ++k) {
            auto lane = icl::start_demo(demo_id, params, texts, seed, k);
            if (!lane || !run->session_->offload(k)) continue;
            run->lanes_.push_back(Lane{k, std::move(lane.value()), {}});
        }
    for (Lane& lane : run->lanes_) lane.thread = std::thread([r = run.get(), &lane] { r->train_lane(lane); });
    run->worker_ = std::thread([r = run.get()] { r->work(); });
    return run;
}

DemoRun::DemoRun(std::unique_ptr<icl::Session> session) : session_(std::move(session)) {
    latest_ = std::make_shared<const icl::Result>(session_->result());
}

DemoRun::~DemoRun() {
    stop();
    lanes_stop_ = true;
    lane_posted_.notify_all();
    if (worker_.joinable()) worker_.join();
    for (Lane& lane : lanes_)
        if (lane.thread.joinable()) lane.thread.join();
}

int DemoRun::lane_threads() const { return static_cast<int>(lanes_.size()); }

void DemoRun::train_lane(Lane& lane) {
#ifdef __linux__
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 5);  // background work, as work()'s
#endif
    auto post = [&](const std::string& failure = "") {
        nlohmann::json state = lane.session->lane_state();
        if (!failure.empty()) state["error"] = failure;  // the run stops with the lane's message
        std::lock_guard<std::mutex> lock(lane_mutex_);
        lane_states_.emplace_back(lane.k, std::move(state));
        lane_posted_.notify_all();
    };
    try {
        Clock clock;
        std::vector<std::pair<int, nlohmann::json>> none;  // a lane takes no lane's states
        while (!stop_requested_ && !lanes_stop_ && !lane.session->done()) {
            if (!icl::run_slice(*lane.session, clock.slices.budget, none)) break;
            if (clock.snapshot()) post();
        }
        post();
    } catch (const std::exception& e) {
        post(std::string("the demo stopped: ") + e.what());
    }
}

std::vector<std::pair<int, nlohmann::json>> DemoRun::posted_lane_states() {
    std::vector<std::pair<int, nlohmann::json>> states;
    if (lanes_.empty()) return states;
    std::lock_guard<std::mutex> lock(lane_mutex_);
    states.swap(lane_states_);
    return states;
}

std::string DemoRun::notice() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return notice_;
}

std::string DemoRun::keep_error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return keep_error_;
}

void DemoRun::keep_checkpoint() {
    if (keep_path_.empty()) return;
    if (session_->done()) {  // a finished run leaves no file
        discard_kept_run(keep_path_);
        return;
    }
    if (icl::Status s = write_kept_run(keep_path_, demo_id_, params_, seed_, icl::save_checkpoint(*session_)); !s) {
        std::lock_guard<std::mutex> lock(mutex_);
        keep_error_ = s.error().message;
    }
}

void DemoRun::stop() { if (running_) stop_requested_ = true; }

std::shared_ptr<const icl::Result> DemoRun::snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return latest_;
}

void DemoRun::publish() {
    auto result = std::make_shared<const icl::Result>(session_->result());
    std::lock_guard<std::mutex> lock(mutex_);
    latest_ = std::move(result);
}

void DemoRun::work() {
#ifdef __linux__
    // Training is background work: on a busy machine the UI thread gets the CPU first
    // (Linux gives each thread its own nice value).
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 5);
#endif
    try {
        Clock clock;
        auto last_keep = clock.t0;
        while (!stop_requested_ && !session_->done()) {
            std::vector<std::pair<int, nlohmann::json>> posted = posted_lane_states();
            const auto did = icl::run_slice(*session_, clock.slices.budget, posted);
            if (!did) throw std::runtime_error(did.error().message);
            if (did.value() == icl::SliceEnd::waiting) {  // its own steps done: until a lane posts (or a stop)
                std::unique_lock<std::mutex> lock(lane_mutex_);
                lane_posted_.wait_for(lock, kPublishInterval, [this] { return !lane_states_.empty() || stop_requested_; });
                continue;
            }
            if (did.value() == icl::SliceEnd::stepped) ++steps_;
            if (clock.snapshot()) publish();
            if (const auto now = std::chrono::steady_clock::now(); now - last_keep >= kKeepInterval) {
                keep_checkpoint();
                last_keep = now;
            }
        }
        publish();
        keep_checkpoint();
    } catch (const std::exception& e) {
        // Core reports errors as values; this is the last guard so a thread never takes the app down.
        icl::Result failed = *snapshot();
        failed.error = std::string("the demo stopped: ") + e.what();
        std::lock_guard<std::mutex> lock(mutex_);
        latest_ = std::make_shared<const icl::Result>(std::move(failed));
    }
    lanes_stop_ = true;  // a run that ended on its own error leaves no lane training
    running_ = false;
}
