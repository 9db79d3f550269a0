#include "icl/profile.h"

#include <chrono>

namespace icl::profile {

namespace {

// Not synchronized: the benchmark profiles one thread.
struct State {
    std::vector<std::string> names{"other"};  // id 0 collects time outside every scope
    std::vector<int64_t> ns{0};
    int current = 0;  // the phase being charged
    int64_t since = 0;
};
State& state() {
    static State s;
    return s;
}

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Charges the time since the last switch to the current phase, then makes `to` current.
void switch_to(State& s, int to) {
    const int64_t t = now_ns();
    s.ns[(size_t)s.current] += t - s.since;
    s.since = t;
    s.current = to;
}

}  // namespace

bool detail::on = false;
bool detail::trial = false;
int detail::context = 0;

void set_trial(bool on) { detail::trial = on; }

int detail::enter(int id) {
    State& s = state();
    const int outer = s.current;
    switch_to(s, id);
    return outer;
}

void detail::leave(int outer) {
    if (detail::on) switch_to(state(), outer);
}

int phase_id(const char* name) {
    State& s = state();
    for (size_t i = 0; i < s.names.size(); ++i)
        if (s.names[i] == name) return (int)i;
    s.names.emplace_back(name);
    s.ns.push_back(0);
    return (int)s.names.size() - 1;
}

int detail::kernel_phase(std::vector<int>& ids, const char* kernel) {
    const size_t ctx = (size_t)detail::context;
    if (ids.size() <= ctx) ids.resize(ctx + 1, -1);
    if (ids[ctx] < 0) ids[ctx] = phase_id(ctx == 0 ? kernel : (state().names[ctx] + " " + kernel).c_str());
    return ids[ctx];
}

int detail::role_phase(const char* role) {
    struct Key {
        int context;
        const char* role;
        int id;
    };
    static std::vector<Key> ids;  // few: a role a call site, in one or two contexts
    const int ctx = detail::context;
    for (const Key& k : ids)
        if (k.context == ctx && k.role == role) return k.id;
    const int id = phase_id(ctx == 0 ? role : (state().names[(size_t)ctx] + " " + role).c_str());
    ids.push_back(Key{ctx, role, id});
    return id;
}

void start() {
    State& s = state();
    detail::on = true;
    detail::context = 0;
    s.current = 0;
    s.since = now_ns();
}

void stop() {
    if (detail::on) switch_to(state(), 0);
    detail::on = false;
}

std::vector<Phase> take() {
    State& s = state();
    std::vector<Phase> out;
    for (size_t i = 0; i < s.names.size(); ++i) {
        out.push_back(Phase{s.names[i], (double)s.ns[i] * 1e-3});
        s.ns[i] = 0;
    }
    return out;
}

bool compiled_in() {
#if defined(ICL_PROFILE)
    return true;
#else
    return false;
#endif
}

}  // namespace icl::profile
