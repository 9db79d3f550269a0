// The compute-only form of a demo that finishes in one step (DemoDef::analytic): the demo
// writes compute(), which fills its members (or sets error_), and draw(), which turns them
// into panels; this answers step, done and the guard that draws nothing before compute()
// has run or after it failed.
#pragma once
#include <vector>

#include "icl/demo.h"

namespace icl {

class AnalyticSession : public Session {
public:
    // The first call computes; later ones do nothing.
    void step(int) final {
        if (computed_) return;
        computed_ = true;
        compute();
    }
    bool done() const final { return computed_; }

protected:
    // The whole computation, from the parameters to the numbers draw() reads. On a
    // problem it sets error_ (Session) and the result has no panels.
    virtual void compute() = 0;
    // The panels, from what compute() stored; called only once it ran without an error.
    virtual std::vector<Panel> draw() const = 0;
    // Whether compute() has run without an error (a headline() override's guard).
    bool computed() const { return computed_ && error_.empty(); }

private:
    std::vector<Panel> panels() const final { return computed() ? draw() : std::vector<Panel>{}; }
    bool computed_ = false;
};

}  // namespace icl
