// A demo session running on its own worker thread, so training never blocks the UI:
// the worker calls step() in small slices and publishes result() snapshots under a
// mutex; the UI takes the latest snapshot each frame. stop() asks the worker to end
// after its current slice; the destructor stops and joins.
#pragma once
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <icl/demo.h>

class DemoRun {
public:
    // Validates the params and starts the session (start_demo) on a new worker thread.
    static icl::Expected<std::unique_ptr<DemoRun>> start(const std::string& demo_id, const nlohmann::json& params,
                                                         icl::Lang lang, uint64_t seed);
    ~DemoRun();
    DemoRun(const DemoRun&) = delete;
    DemoRun& operator=(const DemoRun&) = delete;

    void stop();                                     // returns at once; the worker ends soon
    bool running() const { return running_; }        // false once done, stopped or failed
    bool stopped() const { return stop_requested_; } // ended by stop(), not finished
    long steps() const { return steps_; }            // step() calls so far
    std::shared_ptr<const icl::Result> snapshot() const;  // the latest published result

private:
    explicit DemoRun(std::unique_ptr<icl::Session> session);
    void work();
    void publish();

    std::unique_ptr<icl::Session> session_;  // used by the worker only
    mutable std::mutex mutex_;
    std::shared_ptr<const icl::Result> latest_;
    std::atomic<bool> stop_requested_{false};
    std::atomic<bool> running_{true};
    std::atomic<long> steps_{0};
    std::thread worker_;
};
