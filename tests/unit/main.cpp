#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <icl/assets.h>

// The shipped lessons folder is the asset folder unless a test sets another: the
// English catalogue words the errors a learner can cause (icl/texts.h's learner_error),
// so a test that reads such a message reads the shipped English text.
int main(int argc, char** argv) {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    doctest::Context context(argc, argv);
    return context.run();
}
