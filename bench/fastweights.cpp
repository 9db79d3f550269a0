// fastweights: generation, one token at a time, with a KV cache (softmax layers) vs a
// fast-weight state (linear and delta-rule layers, gpt.h AttentionKind), as the
// sequence grows. The KV cache grows by 2·L·C floats a token and each new token reads
// all of it; a fast-weight state is L·H·(hs+1)·hs floats at any length and each token
// costs the same. Same model shape for the three (width 64, 4 heads, 2 layers, MLP 4×,
// V 64); process-CPU time per token, the median over the tokens of each window of
// positions ending at T. Prints per kind and T:
//   kind=<softmax|linear|delta> T=<T> state_bytes=<bytes at position T> us_per_token=<µs>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#include "icl/generate.h"
#include "icl/gpt.h"
#include "icl/rng.h"

namespace {

double cpu_us() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

}  // namespace

int main() {
    using namespace icl;
    const int Tmax = 2048, window = 32;
    const int checkpoints[] = {64, 128, 256, 512, 1024, 2048};
    for (gpt::AttentionKind kind : {gpt::AttentionKind::softmax, gpt::AttentionKind::linear, gpt::AttentionKind::delta}) {
        gpt::Config c;
        c.vocab = 64;
        c.context = Tmax;
        c.width = 64;
        c.heads = 4;
        c.layers = 2;
        c.kinds.assign(2, kind);
        Expected<gpt::Model> m = gpt::make_model(c, 1);
        if (!m) {
            std::fprintf(stderr, "%s\n", m.error().message.c_str());
            return 1;
        }
        gpt::KvCache cache = gpt::make_cache(c);
        std::vector<float> logits((size_t)c.vocab);
        Rng rng(2);
        std::vector<double> times;
        size_t next = 0;
        for (int t = 0; t < Tmax; ++t) {
            const double t0 = cpu_us();
            if (Status s = gpt::step(m.value(), cache, (int)rng.below(64), logits.data()); !s) {
                std::fprintf(stderr, "%s\n", s.error().message.c_str());
                return 1;
            }
            times.push_back(cpu_us() - t0);
            if (t + 1 == checkpoints[next]) {
                std::vector<double> w(times.end() - window, times.end());
                std::sort(w.begin(), w.end());
                // the state a generator must hold at position T: a KV cache sized for T
                // positions (2·L·T·C floats), or the fixed fast-weight state
                const size_t kv = 2 * (size_t)c.layers * (t + 1) * c.width * sizeof(float);
                const size_t bytes = kind == gpt::AttentionKind::softmax ? kv : cache.state_bytes();
                std::printf("kind=%s T=%d state_bytes=%zu us_per_token=%.1f\n", gpt::attention_kind_name(kind),
                            t + 1, bytes, w[w.size() / 2]);
                ++next;
            }
        }
    }
    return 0;
}
