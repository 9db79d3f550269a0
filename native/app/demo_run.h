// A demo session running beside the UI, so training never blocks it. Natively
// (demo_run_thread.cpp) a worker thread calls step() in small slices and publishes
// result() snapshots under a mutex; the UI takes the latest snapshot each frame. A session
// with lanes (icl/demo.h: induction_heads' 1-layer control) trains lanes 1.. on threads of
// their own, which hand their states to the worker (where there are two cores). In the
// browser (demo_run_slices.cpp; a page served by a plain static server has no threads)
// the UI calls advance() once a frame, which steps for a bounded time. stop() ends the
// run after its current slice; the destructor stops (and joins).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <icl/demo.h>

class DemoRun {
public:
    struct Keep {
        std::string path;        // where the run's checkpoint is kept; "" keeps none
        nlohmann::json resume;   // a checkpoint to go on from (null: from the start)
    };
    // Validates the params and starts the session (start_demo) on a new worker thread.
    static icl::Expected<std::unique_ptr<DemoRun>> start(const std::string& demo_id, const nlohmann::json& params,
                                                         const icl::Texts& texts, uint64_t seed,
                                                         const Keep& keep = {});
    ~DemoRun();
    DemoRun(const DemoRun&) = delete;
    DemoRun& operator=(const DemoRun&) = delete;

    void stop();                                     // returns at once; the worker ends soon
    bool running() const { return running_; }        // false once done, stopped or failed
    bool stopped() const { return stop_requested_; } // ended by stop(), not finished
    long steps() const { return steps_; }            // step() calls so far
    std::shared_ptr<const icl::Result> snapshot() const;  // the latest published result
    int lane_threads() const;                        // lanes trained on threads of their own
    bool resumed() const { return resumed_; }        // went on from Keep::resume
    bool keeping() const { return !keep_path_.empty(); }  // its checkpoint is kept on disk
    std::string notice() const;                      // why Keep::resume was refused (set aside)
    std::string keep_error() const;                  // why the checkpoint could not be written
#ifdef __EMSCRIPTEN__
    void advance(double budget_ms);                  // step until done or the budget is spent
#endif

private:
    explicit DemoRun(std::unique_ptr<icl::Session> session);
    void publish();

    std::unique_ptr<icl::Session> session_;  // used by the worker only
    mutable std::mutex mutex_;
    std::shared_ptr<const icl::Result> latest_;
    std::atomic<bool> stop_requested_{false};
    std::atomic<bool> running_{true};
    std::atomic<long> steps_{0};
    bool resumed_ = false;
    std::string keep_path_, demo_id_;  // keep_path_: "" when the demo keeps no checkpoints
    nlohmann::json params_;
    uint64_t seed_ = 1;
    std::string notice_;               // set before the worker starts
    std::string keep_error_;           // under mutex_
    void keep_checkpoint();            // the worker: writes session_'s checkpoint
#ifndef __EMSCRIPTEN__
    void work();
    // The worker: the lanes' states posted since it last asked (none without lanes).
    std::vector<std::pair<int, nlohmann::json>> posted_lane_states();
    std::thread worker_;
    // Lanes 1.. of session_, each a session of its own on its own thread, posting its
    // lane_state() to `lane_states_` (at most every publish interval, and its last).
    struct Lane {
        int k = 0;
        std::unique_ptr<icl::Session> session;
        std::thread thread;
    };
    void train_lane(Lane& lane);
    std::vector<Lane> lanes_;
    std::mutex lane_mutex_;
    std::condition_variable lane_posted_;
    std::vector<std::pair<int, nlohmann::json>> lane_states_;  // under lane_mutex_
    std::atomic<bool> lanes_stop_{false};                     // the run ended: lanes end too
#endif
};
