#include "demo_run.h"

#include <exception>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {
// One step() call does this many units of work (optimizer steps for a training demo);
// small, so a stop is quick and snapshots are frequent.
const int kStepBudget = 1;
// Snapshots are published at most this often while the session runs.
const auto kPublishInterval = std::chrono::milliseconds(30);
}  // namespace

icl::Expected<std::unique_ptr<DemoRun>> DemoRun::start(const std::string& demo_id, const nlohmann::json& params,
                                                       const icl::Texts& texts, uint64_t seed) {
    auto session = icl::start_demo(demo_id, params, texts, seed);
    if (!session) return session.error();
    return std::unique_ptr<DemoRun>(new DemoRun(std::move(session.value())));
}

DemoRun::DemoRun(std::unique_ptr<icl::Session> session) : session_(std::move(session)) {
    latest_ = std::make_shared<const icl::Result>(session_->result());
    worker_ = std::thread([this] { work(); });
}

DemoRun::~DemoRun() {
    stop();
    if (worker_.joinable()) worker_.join();
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
        auto last_publish = std::chrono::steady_clock::now();
        while (!stop_requested_ && !session_->done()) {
            session_->step(kStepBudget);
            ++steps_;
            const auto now = std::chrono::steady_clock::now();
            if (now - last_publish >= kPublishInterval) {
                publish();
                last_publish = now;
            }
        }
        publish();
    } catch (const std::exception& e) {
        // Core reports errors as values; this is the last guard so a thread never takes the app down.
        icl::Result failed = *snapshot();
        failed.error = std::string("the demo stopped: ") + e.what();
        std::lock_guard<std::mutex> lock(mutex_);
        latest_ = std::make_shared<const icl::Result>(std::move(failed));
    }
    running_ = false;
}
