// The catalogue-key lint (lint_catalogues, run by `icl lessons check`): a key says what
// its text is, never the first words of the text. Native only: the lint is the host's.
#ifndef ICL_WASM
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "icl/lesson_set.h"

namespace fs = std::filesystem;

namespace {

std::string lint(const fs::path& root, const std::vector<std::string>& langs) {
    std::vector<icl::Diagnostic> out;
    icl::lint_catalogues(root.string(), langs, out);
    std::string text;
    for (const auto& d : out) text += icl::to_string(d) + "\n";
    return text;
}

}  // namespace

TEST_CASE("catalogue keys: a key that is the first words of its text, or of no known shape, is refused") {
    const fs::path root = fs::temp_directory_path() / ("icl_catalogue_keys_" + std::to_string(getpid()));
    fs::remove_all(root);
    const auto write = [&](const std::string& rel, const std::string& text) {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel, std::ios::binary) << text;
    };
    const std::string good =
        "{\n"
        " \"title\": \"A demo\",\n"
        " \"summary\": \"What it does.\",\n"
        " \"param.layers\": \"layers of the model\",\n"     // a parameter's name may read like its text
        " \"scalar.kl_mean\": \"mean KL\",\n"
        " \"scalar.kl_mean.help\": \"mean KL over the positions\",\n"
        " \"scalar.follows=1\": \"yes\",\n"
        " \"panel.kl.title\": \"KL at each position\",\n"
        " \"panel.cmp.col.word\": \"word\",\n"
        " \"series.model\": \"tiny GPT\",\n"
        " \"axis.step\": \"step\",\n"                       // one word is a name
        " \"note.guide.title\": \"What to see\",\n"
        " \"result_headline\": \"It worked.\"\n"
        "}\n";
    write("en/catalogue/demo_x.json", good);
    write("ko/catalogue/demo_x.json", good);
    write("en/catalogue/app.json", "{\n \"run\": \"Run\",\n \"lessons_empty\": \"No lessons found.\"\n}\n");
    write("ko/catalogue/app.json", "{\n \"run\": \"실행\",\n \"lessons_empty\": \"레슨이 없다.\"\n}\n");
    const std::string clean = lint(root, {"en", "ko"});
    CHECK_MESSAGE(clean.empty(), clean);

    write("en/catalogue/demo_x.json",
          "{\n"
          " \"title\": \"A demo\",\n"
          " \"the_answer_s_probability\": \"The answer's probability with no demonstrations\",\n"
          " \"the_answer_s_probability_3\": \"The answer's probability as the prompt grows\",\n"
          " \"panel.mean_kl.title\": \"Mean KL over the positions\",\n"
          " \"foo\": \"a text\",\n"
          " \"panel.kl.title\": \"KL at each position\"\n"
          "}\n");
    write("en/catalogue/app.json", "{\n \"run\": \"Run\",\n \"no_lessons\": \"No lessons found.\"\n}\n");
    fs::remove_all(root / "ko");
    const std::string text = lint(root, {"en"});
    const std::string file = (root / "en" / "catalogue" / "demo_x.json").string();
    const std::string words = " is the first words of its text, not a name: key a text by what it is "
                              "(scalar.<name>.help, panel.<id>.title, series.<id>, note.<id>.text: docs/authoring.md)";
    const auto has = [&](const std::string& line) {
        CHECK_MESSAGE(text.find(line + "\n") != std::string::npos, "missing: ", line, "\nin:\n", text);
    };
    has(file + ":3: 'the_answer_s_probability'" + words);
    has(file + ":4: 'the_answer_s_probability_3'" + words);
    has(file + ":5: 'panel.mean_kl.title'" + words);
    has((root / "en" / "catalogue" / "app.json").string() + ":3: 'no_lessons'" + words);
    CHECK(text.find(file + ":6: 'foo' is not a catalogue key: a demo's keys are title, summary, ") != std::string::npos);
    CHECK(text.find("panel.kl.title") == std::string::npos);
    CHECK(text.find("'run'") == std::string::npos);
    fs::remove_all(root);
}

TEST_CASE("catalogue keys: the shipped catalogues' keys are names") {
    std::vector<icl::Diagnostic> out;
    icl::lint_catalogues(std::string(ICL_SOURCE_DIR) + "/lessons", {"en", "ko"}, out);
    for (const auto& d : out)
        CHECK_MESSAGE(d.warning, icl::to_string(d));
}
#endif  // ICL_WASM
