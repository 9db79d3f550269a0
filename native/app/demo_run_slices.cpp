// DemoRun for the browser: no worker thread; advance() runs step() slices on the UI's
// own frame until its time budget is spent, so the page stays responsive.
#include "demo_run.h"

#include <exception>

icl::Expected<std::unique_ptr<DemoRun>> DemoRun::start(const std::string& demo_id, const nlohmann::json& params,
                                                       const icl::Texts& texts, uint64_t seed,
                                                       const Keep&) {
    auto session = icl::start_demo(demo_id, params, texts, seed);
    if (!session) return session.error();
    return std::unique_ptr<DemoRun>(new DemoRun(std::move(session.value())));
}

DemoRun::DemoRun(std::unique_ptr<icl::Session> session) : session_(std::move(session)) {
    latest_ = std::make_shared<const icl::Result>(session_->result());
}

DemoRun::~DemoRun() = default;

std::string DemoRun::notice() const { return ""; }
std::string DemoRun::keep_error() const { return ""; }

void DemoRun::stop() { if (running_) stop_requested_ = true; }

std::shared_ptr<const icl::Result> DemoRun::snapshot() const { return latest_; }

int DemoRun::lane_threads() const { return 0; }  // no threads here: the session trains every lane

void DemoRun::publish() { latest_ = std::make_shared<const icl::Result>(session_->result()); }

void DemoRun::advance(double budget_ms) {
    if (!running_) return;
    if (stop_requested_ || session_->done()) {
        publish();
        running_ = false;
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
        do {
            session_->step(1);
            ++steps_;
        } while (!session_->done() && !stop_requested_ &&
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() < budget_ms);
        publish();
    } catch (const std::exception& e) {
        icl::Result failed = *latest_;
        failed.error = std::string("the demo stopped: ") + e.what();
        latest_ = std::make_shared<const icl::Result>(std::move(failed));
        running_ = false;
        return;
    }
    if (session_->done() || stop_requested_) running_ = false;
}
