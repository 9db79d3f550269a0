#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <icl/assets.h>
#if !defined(ICL_WASM)
#include <icl/process_memory.h>
#endif

// The shipped lessons folder is the asset folder unless a test sets another: the
// English catalogue words the errors a learner can cause (icl/texts.h's learner_error),
// so a test that reads such a message reads the shipped English text.
// Natively the tests keep freed memory as icl and icl-lab do (icl/process_memory.h): the
// unit binary ran 17.6-17.7 s with glibc's defaults, 15.2-15.6 s with these (two runs each).
int main(int argc, char** argv) {
#if !defined(ICL_WASM)
    icl::keep_freed_memory();
#endif
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    doctest::Context context(argc, argv);
    return context.run();
}
