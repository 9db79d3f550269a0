// Less at once: a Result shows its headline numbers, its notes and one main chart open
// (lead_panels), the rest folded. The expected layouts are written out by hand here.
#include <doctest/doctest.h>

#include "demo_testing.h"
#include "icl/result_layout.h"

namespace {

icl::LinesPanel lines(std::string beside = "") {
    icl::LinesPanel p;
    p.title = "lines";
    p.beside = std::move(beside);
    return p;
}

}  // namespace

TEST_CASE("lead panels: first scalars, every note, then the first chart or table; beside panels left out") {
    using namespace icl;
    // 0 beside-lines, 1 table, 2 heatmap, 3 scalars, 4 lines, 5 scalars, 6 note, 7 bars, 8 note
    std::vector<Panel> panels = {lines("prompt"), TablePanel{"t", {"a"}, {}}, HeatmapPanel{},
                                 ScalarsPanel{"s1", {}}, lines(), ScalarsPanel{"s2", {}},
                                 NotePanel{"What to see", "x"}, BarsPanel{}, NotePanel{"n2", "y"}};
    CHECK(lead_panels(panels) == std::vector<size_t>{3, 6, 8, 1});  // a table counts as a chart
    CHECK(lead_panels({NotePanel{"n", ""}, BarsPanel{}, TablePanel{}}) == std::vector<size_t>{0, 1});
    // Only beside panels and nothing else: nothing open but the headline.
    CHECK(lead_panels({lines("prompt")}).empty());
    CHECK(lead_panels({}).empty());
}

TEST_CASE("attention_dual leads with its numbers, its note and one chart; the JSON carries the order") {
    icl::testing::use_shipped_lessons();
    const icl::Result r = icl::testing::run_demo("attention_dual", nlohmann::json::object());
    const std::vector<size_t> lead = icl::lead_panels(r.panels);
    REQUIRE(lead.size() == 3);
    CHECK(std::holds_alternative<icl::ScalarsPanel>(r.panels[lead[0]]));
    CHECK(std::holds_alternative<icl::NotePanel>(r.panels[lead[1]]));
    int charts = 0;
    for (const icl::Panel& p : r.panels)
        charts += std::holds_alternative<icl::LinesPanel>(p) || std::holds_alternative<icl::HeatmapPanel>(p);
    CHECK(charts >= 4);  // the rest is folded, not gone
    CHECK(icl::to_json(r)["lead"] == nlohmann::json(lead));
}
