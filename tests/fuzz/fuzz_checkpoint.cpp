// libFuzzer target: the checkpoint loader (core/model/checkpoint.cpp) on arbitrary bytes.
// Properties beyond "no crash": a checkpoint that loads saves back to the very same
// bytes in the encoding it was stored in (the format has one encoding per model and
// storage form), its model runs a forward pass, and
// load_into a model of another config fails and leaves that model unchanged.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "icl/checkpoint.h"
#include "icl/gpt.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    icl::checkpoint::Encoding stored = icl::checkpoint::Encoding::f32;
    auto loaded = icl::checkpoint::load(data, size, &stored);
    if (!loaded) {
        if (loaded.error().message.empty()) std::abort();
        return 0;
    }
    const icl::gpt::Model& model = loaded.value();
    auto saved = icl::checkpoint::save(model, stored);
    if (!saved) std::abort();
    const std::vector<uint8_t>& again = saved.value();
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();

    icl::gpt::Activations acts;
    const int T = std::min(model.config.context, 4);
    std::vector<int> tokens(static_cast<size_t>(T));
    for (int t = 0; t < T; ++t) tokens[static_cast<size_t>(t)] = t % model.config.vocab;
    (void)icl::gpt::forward(model, acts, tokens.data(), nullptr, 1, T);

    icl::gpt::Config other = model.config;
    other.vocab = model.config.vocab == 2 ? 3 : 2;
    auto target = icl::gpt::make_model(other, 1);
    if (target) {
        const std::vector<float> before = target.value().params;
        if (icl::checkpoint::load_into(target.value(), data, size).ok()) std::abort();
        if (target.value().params != before) std::abort();
    }
    return 0;
}
