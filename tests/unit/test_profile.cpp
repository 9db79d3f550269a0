// The profiler's role tags: a kernel run inside a role is charged to "<context> <role>
// <kernel>", the role's own code to the phase around it (the role's name gets no time),
// and with the timers off a role registers nothing. The scopes are driven by hand here (the macros
// compile in only with -DICL_PROFILE=ON, the benchmark trees).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "icl/profile.h"

using namespace icl;

namespace {

std::vector<std::string> role_test_phase_names(std::vector<profile::Phase>* phases = nullptr) {
    std::vector<std::string> names;
    const std::vector<profile::Phase> taken = profile::take();
    for (const profile::Phase& p : taken) names.push_back(p.name);
    if (phases) *phases = taken;
    return names;
}

bool role_test_has(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

TEST_CASE("profile: a role names the kernels inside it within the context around it, and costs nothing when off") {
    static std::vector<int> kernel_ids;  // one kernel's call site: its phase per context
    const size_t before = role_test_phase_names().size();
    {
        const profile::Role off("role-test-off");  // timers off: no phase
    }
    CHECK(role_test_phase_names().size() == before);
    CHECK_FALSE(role_test_has(role_test_phase_names(), "role-test-off"));

    profile::start();
    {
        const profile::Context fwd(profile::phase_id("role-test-fwd"));
        for (const char* role : {"qkv", "fc"}) {
            const profile::Role r(role);
            {
                const profile::Scope kernel(profile::detail::kernel_phase(kernel_ids, "matmul"));
            }
            volatile double spin = 0;  // the role's own code, after its kernel
            for (int i = 0; i < 20000; ++i) spin = spin + i;
        }
        const profile::Scope kernel(profile::detail::kernel_phase(kernel_ids, "matmul"));  // after the roles
    }
    {
        const profile::Context bwd(profile::phase_id("role-test-bwd"));
        const profile::Role r("qkv");
        const profile::Scope kernel(profile::detail::kernel_phase(kernel_ids, "matmul"));
    }
    profile::stop();
    std::vector<profile::Phase> phases;
    const std::vector<std::string> names = role_test_phase_names(&phases);
    CHECK(role_test_has(names, "role-test-fwd qkv matmul"));
    CHECK(role_test_has(names, "role-test-fwd fc matmul"));
    CHECK(role_test_has(names, "role-test-bwd qkv matmul"));
    REQUIRE(role_test_has(names, "role-test-fwd qkv"));  // registered as the kernels' context
    for (const profile::Phase& p : phases) {
        if (p.name == "role-test-fwd qkv" || p.name == "role-test-fwd fc") CHECK(p.us == 0.0);  // a name only
        if (p.name == "role-test-fwd") CHECK(p.us > 0.0);  // where the roles' own code went
    }
    CHECK(role_test_has(names, "role-test-fwd matmul"));   // the context is back once the role ends
    CHECK_FALSE(role_test_has(names, "role-test-fwd qkv fc matmul"));  // roles do not nest by accident
}
