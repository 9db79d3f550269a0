// Figures that give a predict check's answer away: a check with hide=result asks the
// learner to predict a scalar of a demo instance, and the page holds that demo's result
// back until the check is answered or the demo run. A figure of the same instance and
// scalar quoted on an earlier line (in the text, or in an earlier check) tells the
// answer before the question; after the check (its own feedback included) it is fine.
#include "icl/lesson.h"

#include <variant>

namespace icl {

std::vector<Diagnostic> figures_giving_answers_away(const Lesson& lesson, const std::string& file) {
    std::vector<Diagnostic> out;
    for (const auto& block : lesson.blocks) {
        const auto* c = std::get_if<CheckBlock>(&block);
        if (!c || c->type != CheckType::Predict || !c->hides_result) continue;
        const std::string instance = c->grading.value("demo", ""), scalar = c->grading.value("scalar", "");
        for (const Figure& f : lesson.figures) {
            if (f.line >= c->line || f.instance != instance || f.scalar != scalar) continue;
            out.push_back({file, f.line,
                           "figure " + f.text + " (" + f.source() + ") stands above check '" + c->id + "' (line " +
                               std::to_string(c->line) + "), which asks the learner to predict " + instance + ":" +
                               scalar + ": move it after the check",
                           false});
        }
    }
    return out;
}

}  // namespace icl
