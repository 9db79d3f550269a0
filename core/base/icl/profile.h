// Per-phase time of a training step, for `bench/run profile` (llm.c's style: a flat
// list of named phases, each with its share of the step).
//
// Every kernel is a phase of its own: kernels.cpp's dispatch opens an ICL_PROFILE_KERNEL
// around each call, named by the kernel and the context it runs in, the innermost
// ICL_PROFILE_CONTEXT around it ("fwd matmul_nt_add", "bwd layernorm_backward", "opt
// adamw_update"; the kernel's name alone outside every context). A context is a phase
// too: the time of its own code outside every kernel and inner scope ("fwd": the
// forward's copies and checks). ICL_PROFILE_SCOPE("fwd attn momentum") marks any other
// block of code as one phase. A caller that runs the same kernel for different jobs
// names the job with a role, ICL_PROFILE_ROLE("qkv"): a context inside the current one,
// so the product reads "fwd qkv matmul_nt_add" and the MLP's "fwd fc matmul_nt_add"
// (gpt.cpp's linear_forward / linear_backward take the tag from their callers). Only builds
// configured with -DICL_PROFILE=ON (the benchmark trees of bench/run) compile the
// timers in; everywhere else the macro expands to nothing and costs nothing. Even
// compiled in, a scope does nothing until the benchmark calls profile::start().
//
// Time is exclusive: entering a nested scope pauses the one around it, so the phases
// of one step sum to the step. Whatever runs inside start()..stop() outside every
// scope is charged to the phase "other".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace icl::profile {

struct Phase {
    std::string name;
    double us = 0.0;  // exclusive microseconds since the last take()
};

int phase_id(const char* name);  // registers a name once; ids are stable
void start();                    // timers on; the time from here on is charged
void stop();                     // timers off
std::vector<Phase> take();       // every registered phase (registration order), then zeroed
bool compiled_in();              // true in ICL_PROFILE builds

// The trial switch, for measuring a candidate change before keeping it. Write the
// candidate beside the code it would replace,
//     if (ICL_TRIAL) { candidate } else { current }
// and run `bench/run pair M`: it alternates training steps with the switch off and on in
// one process, so the machine's minute hits both alike, and prints the median of the
// paired differences and whether both give the same parameters bit for bit
// (bench/train.cpp, --pair). Outside ICL_PROFILE builds ICL_TRIAL is false and the
// candidate compiles away. Committed code does not read it: a kept change replaces
// the code it was tried against, so on main `bench/run pair` measures the harness's
// own noise (the same code both ways).
void set_trial(bool on);

namespace detail {
extern bool trial;   // set_trial's switch
extern bool on;      // between start() and stop()
extern int context;  // the phase of the innermost context (0: none)
int enter(int id);   // makes `id` the phase charged; returns the one it interrupted
void leave(int outer);
// The phase "<context> <kernel>" in the current context, its id kept in ids (one a context).
int kernel_phase(std::vector<int>& ids, const char* kernel);
// The phase "<context> <role>" in the current context ("<role>" outside every context).
// role is a string literal: ids are kept by its address.
int role_phase(const char* role);
}  // namespace detail

// Inline, so with the timers off a scope costs one load and a branch.
class Scope {
public:
    explicit Scope(int id) {
        if (detail::on) outer_ = detail::enter(id);
    }
    ~Scope() {
        if (outer_ >= 0) detail::leave(outer_);
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

private:
    int outer_ = -1;  // the phase this scope interrupted (-1: timers were off)
};

// A scope that also names the kernels called inside it (ICL_PROFILE_CONTEXT).
class Context {
public:
    explicit Context(int id) : scope_(id) {
        if (detail::on) {
            outer_ = detail::context;
            detail::context = id;
        }
    }
    ~Context() {
        if (outer_ >= 0) detail::context = outer_;
    }

private:
    Scope scope_;
    int outer_ = -1;  // the context around this one (-1: timers were off)
};

// A context named by a role within the current one (ICL_PROFILE_ROLE). Only a name for
// the kernels inside: the role's own code stays charged to the phase around it, so a
// profile lists "<context> <role> <kernel>" and no row for the role itself.
class Role {
public:
    explicit Role(const char* role) {
        if (detail::on) {
            outer_ = detail::context;
            detail::context = detail::role_phase(role);
        }
    }
    ~Role() {
        if (outer_ >= 0) detail::context = outer_;
    }
    Role(const Role&) = delete;
    Role& operator=(const Role&) = delete;

private:
    int outer_ = -1;  // the context around this role (-1: timers were off)
};

}  // namespace icl::profile

#if defined(ICL_PROFILE)
#define ICL_PROFILE_CAT2(a, b) a##b
#define ICL_PROFILE_CAT(a, b) ICL_PROFILE_CAT2(a, b)
#define ICL_PROFILE_SCOPE(name)                                                               \
    static const int ICL_PROFILE_CAT(icl_phase_, __LINE__) = ::icl::profile::phase_id(name); \
    const ::icl::profile::Scope ICL_PROFILE_CAT(icl_scope_, __LINE__)(ICL_PROFILE_CAT(icl_phase_, __LINE__))
#define ICL_PROFILE_CONTEXT(name)                                                             \
    static const int ICL_PROFILE_CAT(icl_phase_, __LINE__) = ::icl::profile::phase_id(name); \
    const ::icl::profile::Context ICL_PROFILE_CAT(icl_context_, __LINE__)(ICL_PROFILE_CAT(icl_phase_, __LINE__))
#define ICL_PROFILE_KERNEL(name)                                                        \
    static std::vector<int> ICL_PROFILE_CAT(icl_kernel_ids_, __LINE__);                 \
    const ::icl::profile::Scope ICL_PROFILE_CAT(icl_scope_, __LINE__)(                  \
        ::icl::profile::detail::on                                                      \
            ? ::icl::profile::detail::kernel_phase(ICL_PROFILE_CAT(icl_kernel_ids_, __LINE__), name) \
            : 0)
#define ICL_PROFILE_ROLE(role) const ::icl::profile::Role ICL_PROFILE_CAT(icl_role_, __LINE__)(role)
#define ICL_TRIAL (::icl::profile::detail::trial)
#else
#define ICL_PROFILE_SCOPE(name) static_assert(true, "")
#define ICL_PROFILE_CONTEXT(name) static_assert(true, "")
#define ICL_PROFILE_KERNEL(name) static_assert(true, "")
#define ICL_PROFILE_ROLE(role) static_cast<void>(role)
#define ICL_TRIAL false
#endif
