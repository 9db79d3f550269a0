// Demos: a parameter schema, a session that computes in bounded slices, and a Result
// that both front ends draw generically by kind. Adding a demo is one file in
// core/demos/ that defines a DemoDef and registers it with ICL_REGISTER_DEMO; no
// front end changes.
//
// JSON forms (stable; the web worker, `icl run --json` and the tests use them):
//
//   DemoInfo  {"id": "dual_form", "title": "...", "summary": "...", "paper": "...",
//              "analytic": true, "assets": ["checkpoints/tasks-s.icl"],
//              "params": [ParamSpec, ...]}
//             (assets: named byte files the demo reads through icl/assets.h — a
//              front end without a file system, the web worker, fetches them first)
//   ParamSpec {"name": "lr", "type": "int"|"float"|"bool"|"choice"|"text",
//              "min": 0.001, "max": 1, "default": 0.1, "step": 0.001,
//              "choices": ["sgd", "adam"],          (type "choice" only; default is
//                                                    the default choice's name)
//              "help": "..."}                       (title/summary/help in the asked lang)
//             type "points": {"name", "type": "points", "x_min", "x_max", "y_min", "y_max",
//              "min_count", "max_count", "step" (the editor's snap grid, 0 = none),
//              "default": [[x, y], ...], "help"}
//             text: {"name": "prompt", "type": "text", "default": "hot → cold ; fast →",
//                    "max_length": 400, "vocabulary": ["→", ";", "hot", ...] (may be empty = any word),
//                    "help": "..."}
//   params    {"lr": 0.1, "optimizer": "sgd", "seed": 1}   (numbers as numbers,
//              bools as true/false, choices as their name, texts as strings; absent = default;
//              points as [[x, y], ...]; their text form, for --set and the URL, is
//              "x,y; x,y" — "" is no points — and validate_params reads that form too)
//   Result    {"demo": "dual_form", "progress": 0..1, "done": true, "error": "",
//              "headline": "...",    (a sentence the result opens with, numbers in place;
//                                      **x** is bold; "" where the catalogue has none)
//              "panels": [Panel, ...]}
//   Panel     {"kind": "scalars", "title": "...",
//                "items": [{"name": "...", "value": 1e-7, "unit": "", "help": "...",
//                           "label": "...",   (what a front end shows; never the name)
//                           "text": ""}]}     (the value in words, e.g. a flag's "yes")
//             Lines and bars panels may carry "beside": "<param>": drawn next to that
//             parameter's control (the lines a point editor moves, a prompt's answer).
//             {"kind": "lines", "title": "...", "x_label": "...", "y_label": "...",
//                "log_x": false, "log_y": false,
//                "beside": "" (optional, see above),
//                "series": [{"name": "...", "x": [...], "y": [...],
//                            "y_err": [...] (may be empty), "dashed": false,
//                            "markers": false (true: points only, no line)}]}
//             {"kind": "heatmap", "title": "...", "rows": R, "cols": C,
//                "values": [R*C row-major], "row_labels": [...], "col_labels": [...],
//                "x_label": "...", "y_label": "...", "scale": "diverging"|"sequential"}
//             {"kind": "bars", "title": "...", "y_label": "...", "labels": [...],
//                "values": [...], "errors": [...] (may be empty)}
//             {"kind": "table", "title": "...", "columns": [...], "rows": [[...], ...]}
//             {"kind": "note", "title": "...", "text": "..."}
//   Non-finite numbers are written as null.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "icl/expected.h"
#include "icl/texts.h"

namespace icl {

// ---- parameters ----------------------------------------------------------------

enum class ParamType { Int, Float, Bool, Choice, Text, Points };

using Point2 = std::array<double, 2>;  // (x, y)

// One parameter of a demo. Build it with the factory of its type (below), which names
// what that type needs and nothing else; the fields stay plain for the code that reads them.
struct ParamSpec {
    explicit ParamSpec() = default;  // not an aggregate: no positional {name, type, ...}
    std::string name;
    ParamType type = ParamType::Float;
    double min = 0, max = 1, default_value = 0, step = 0;  // Int, Float, Bool (0/1); Points: x range, snap
    std::vector<std::string> choices;                        // Choice
    std::string default_choice;                              // Choice: one of choices, by name
    // Its help text is the catalogue's "param.<name>" (icl/texts.h).
    // Text: a UTF-8 string of at most max_length code points, tokenized by core
    // (tokenize_text). With a vocabulary, every token must be one of its words.
    std::string default_text;
    int max_length = 0;
    std::vector<std::string> vocabulary;
    // Points: x in [min, max], y in [y_min, y_max], between min_count and max_count of
    // them; step is the editors' snap grid.
    double y_min = 0, y_max = 1;
    int min_count = 0, max_count = 0;
    std::vector<Point2> default_points;

    // An integer in [min, max], moved in steps of `step`.
    static ParamSpec integer(std::string name, int min, int max, int default_value, int step);
    // A real number in [min, max], moved in steps of `step`.
    static ParamSpec real(std::string name, double min, double max, double default_value, double step);
    static ParamSpec boolean(std::string name, bool default_value);
    // One of `choices`; the default by name (a name not among the choices fails the
    // registry's test, tests/unit/test_demo_specs.cpp).
    static ParamSpec choice(std::string name, std::vector<std::string> choices, std::string default_choice);
    // A learner's text of at most max_length code points; an empty vocabulary allows any word.
    static ParamSpec text(std::string name, std::string default_text, int max_length,
                          std::vector<std::string> vocabulary);
    // Between min_count and max_count points in [x_min, x_max] × [y_min, y_max]; `snap`
    // is the editors' grid (0: none).
    static ParamSpec points(std::string name, Point2 x_range, Point2 y_range, int min_count, int max_count,
                            double snap, std::vector<Point2> default_points);

    // A Float over two decades or more, all positive (a learning rate), moves in log
    // steps: both front ends' sliders read this (the JSON's "log").
    bool log_scale() const { return type == ParamType::Float && min > 0 && max / min >= 100; }
};

// A Text parameter's tokens. Rules: valid UTF-8, at most max_length code points, no
// control characters; "->" reads as "→"; whitespace separates words, and a vocabulary
// word that is one non-alphanumeric code point ("→", ";") is split off where it touches
// a word ("fast→" = "fast", "→"). With a vocabulary a token must match a word exactly or,
// failing that, exactly one word ignoring ASCII case (the vocabulary's spelling is kept);
// otherwise the error names it, its position and the nearest words by edit distance:
//   parameter 'prompt': 'frigid' (word 6) is not in the vocabulary; nearest: rigid, ...
Expected<std::vector<std::string>> tokenize_text(const ParamSpec& spec, const std::string& text);

// Validated parameter values: every spec'd name present, in range, of its type.
class Params {
public:
    int i(const std::string& name) const;          // Int
    float f(const std::string& name) const;        // Float (also Int)
    double d(const std::string& name) const;       // any numeric
    bool b(const std::string& name) const;         // Bool
    const std::string& s(const std::string& name) const;  // Choice
    const std::vector<Point2>& pts(const std::string& name) const;  // Points
    const std::string& text(const std::string& name) const;                // Text, canonical form
    const std::vector<std::string>& tokens(const std::string& name) const;  // Text, its tokens
    const std::vector<int>& token_ids(const std::string& name) const;      // indexes into spec.vocabulary
    nlohmann::json to_json() const;

    std::map<std::string, double> numbers;         // Int, Float, Bool (0/1)
    std::map<std::string, std::string> choices;    // Choice
    std::map<std::string, std::vector<Point2>> points;  // Points
    std::map<std::string, std::string> texts;      // Text: tokens joined by one space
    std::map<std::string, std::vector<std::string>> words;  // Text: the tokens
    std::map<std::string, std::vector<int>> word_ids;       // Text with a vocabulary: their indexes
};

// Checks `given` (a JSON object, absent keys take defaults) against `specs`. The error
// names the parameter and its allowed range or choices; unknown names are errors too.
Expected<Params> validate_params(const std::vector<ParamSpec>& specs, const nlohmann::json& given);
// "k=v" strings (CLI --set, URL query) -> a JSON object, typed by the specs.
Expected<nlohmann::json> parse_param_strings(const std::vector<ParamSpec>& specs,
                                             const std::vector<std::string>& key_values);
// The text form of a points value, "x,y; x,y" (the inverse of what --set reads).
std::string points_text(const std::vector<Point2>& points);

// ---- results ---------------------------------------------------------------------

// A named number. name is its identifier (the export's column); label and text are
// filled by the framework from the demo's catalogue (Session::result): label is
// "scalar.<name>", else the help; text is "scalar.<name>=<value>" for a whole value the
// catalogue puts in words (a flag's −1 / 0 / 1).
struct Scalar { std::string name; double value = 0; std::string unit, help, label, text; };
struct ScalarsPanel { std::string title; std::vector<Scalar> items; };
struct Series {
    std::string name;
    std::vector<double> x, y, y_err;
    bool dashed = false;
    bool markers = false;  // points only, no line through them (e.g. the in-context examples)
};
struct LinesPanel {
    std::string title, x_label, y_label;
    bool log_x = false, log_y = false;
    std::vector<Series> series;
    std::string beside;  // a parameter's name: drawn next to its control ("" : with the others)
};
struct HeatmapPanel {
    std::string title, x_label, y_label;
    int rows = 0, cols = 0;
    std::vector<double> values;  // rows*cols, row-major
    std::vector<std::string> row_labels, col_labels;
    bool diverging = false;      // centred at 0 (signed data) vs sequential
};
struct BarsPanel {
    std::string title, y_label;
    std::vector<std::string> labels;
    std::vector<double> values, errors;
    std::string beside;  // as LinesPanel's
};
struct TablePanel { std::string title; std::vector<std::string> columns; std::vector<std::vector<std::string>> rows; };
struct NotePanel { std::string title, text; };

using Panel = std::variant<ScalarsPanel, LinesPanel, HeatmapPanel, BarsPanel, TablePanel, NotePanel>;

struct Result {
    std::string demo;
    double progress = 0;   // 0..1
    bool done = false;
    std::string error;     // non-empty: the demo stopped (e.g. training diverged at step n)
    std::string headline;  // the sentence it opens with (Session::headline)
    std::vector<Panel> panels;
};

nlohmann::json to_json(const Result& r);
// A number as the Result's JSON writes it: a non-finite one as null.
nlohmann::json json_number(double v);
nlohmann::json json_numbers(const std::vector<double>& v);
// Their inverses, for a lane's state (Session::take_lane): `key` of `j` as numbers (null
// reads as NaN), `n` of them (n < 0: any count); an error names the key.
Expected<std::vector<double>> read_json_numbers(const nlohmann::json& j, const char* key, long n);
Expected<double> read_json_number(const nlohmann::json& j, const char* key);
// A lane state's two common fields: "steps", a whole number of units from 0 to max_steps,
// and "error", a text (non-empty: the lane stopped on that problem).
Status read_lane_header(const nlohmann::json& state, long long max_steps, long long& steps, std::string& error);
// A readable multi-line text form for `icl run` without --json.
std::string to_text(const Result& r);

// ---- sessions and the registry ---------------------------------------------------

class Session {
public:
    virtual ~Session() = default;
    // Do at most `budget` units of work (a unit is demo-defined: one optimizer step,
    // one task, ...). Analytic demos finish in the first call.
    virtual void step(int budget) = 0;
    virtual bool done() const = 0;
    // A snapshot of what step() computed, never running the model (the desktop app calls
    // it every frame while a demo trains; tests/unit/test_result_snapshot.cpp). The
    // framework fills the header — the demo's id, progress(), done(), error_ — and the
    // demo its panels().
    Result result() const;
    const std::string& error() const { return error_; }
    // How much of its work step() has done, 0..1; by default 0 until done, then 1.
    virtual double progress() const { return done() ? 1.0 : 0.0; }

    // ---- lanes: work another worker can do side by side ------------------------------
    // A session that trains models independent of each other (induction_heads' 1-layer
    // control beside the model) has more than one lane. The web worker hands lane k >= 1
    // to a second worker: there start_demo(..., lane k) makes a session that computes only
    // that lane and reports it as lane_state(); here offload(k), before the first step,
    // stops this session computing lane k, and take_lane(k, state) takes each state the
    // other worker sends. Once the lane's last state is in, the Result is the whole
    // session's, number for number (tests/unit/test_worker_api.cpp).
    virtual int lanes() const { return 1; }
    // Lane k is computed elsewhere from now on. An error if there is no such lane or the
    // session has already stepped.
    virtual Status offload(int lane);
    // A lane session's state so far (its history and whether it is done), as JSON.
    virtual nlohmann::json lane_state() const { return nullptr; }
    // A state of offloaded lane k; an error names what is wrong with it.
    virtual Status take_lane(int lane, const nlohmann::json& state);
    // Its own work is done and it waits for an offloaded lane's last state.
    virtual bool waiting() const { return false; }
    // The lane this session computes: 0 for a whole session (the lanes it did not
    // offload), k >= 1 for a session started as lane k.
    int lane() const { return lane_; }

protected:
    // What the demo draws, from what step() stored.
    virtual std::vector<Panel> panels() const = 0;
    // The sentence the result opens with, from the catalogue, numbers in place. By default
    // "result_headline" filled with the scalars by name ({max_abs_diff:.0e}; {<name>_pct} is
    // the value × 100); where a whole-valued scalar has "result_headline.<name>=<value>", that.
    // "" when the catalogue has none or a value it names is missing or not finite (a
    // run not done then opens with common's "result_headline.pending").
    virtual std::string headline(const std::vector<Panel>& panels) const;
    // The demo's messages in the learner's language (those start_demo was given).
    const Texts& texts() const { return texts_; }
    // Set when the demo stops on a problem (e.g. training diverged at step n): the
    // result's error, in the learner's language.
    std::string error_;

private:
    friend Expected<std::unique_ptr<Session>> start_demo(const std::string&, const nlohmann::json&, const Texts&, uint64_t, int);
    std::string demo_id_;  // set by start_demo
    int lane_ = 0;         // set by start_demo
    Texts texts_;          // set by start_demo
};

struct DemoContext {
    Params params;
    Texts text;  // the demo's messages in the learner's language (icl/texts.h)
    uint64_t seed = 1;
    int lane = 0;  // 0: the whole session; k >= 1: only its lane k (Session::lanes)
};

// A demo's card. Each demo file fills one field by field and registers it:
//   const DemoDef kDualForm = [] {
//       DemoDef d;
//       d.id = "dual_form";
//       d.params = {ParamSpec::real("lr", 0.001, 1, 0.3, 0.001), ...};
//       d.start = start;
//       return d;
//   }();
//   ICL_REGISTER_DEMO(kDualForm);
struct DemoDef {
    std::string id;
    std::string paper;                  // e.g. "Irie, Csordás, Schmidhuber 2022"
    bool analytic = false;              // finishes in one step
    std::vector<ParamSpec> params;
    // Params are already validated. May still refuse (e.g. a size past the bound).
    Expected<std::unique_ptr<Session>> (*start)(const DemoContext& ctx) = nullptr;
    std::vector<std::string> assets;    // files it needs, relative to the lessons/ folder
    // A demo whose memory grows with its sizes: an upper bound of its peak from the
    // parameters alone, which start_demo holds against kDemoMemoryBudget (icl/demo_memory.h).
    // nullptr: small at every setting.
    size_t (*peak_bytes)(const Params& params) = nullptr;
};

// title, summary and each parameter's help from `text`, the demo's catalogue (its keys
// "title", "summary", "param.<name>"); with_texts adds "texts": every message, which a
// page hands its worker with each run.
nlohmann::json to_json(const DemoDef& def, const Texts& text, bool with_texts = false);
// A parameter's default as its JSON value (what to_json writes as "default", and what a
// front end puts in a control before the learner touches it).
nlohmann::json default_json(const ParamSpec& spec);
// A parameter's ParamSpec JSON (the form above), help in `lang`.
nlohmann::json to_json(const ParamSpec& spec, const Texts& text);

void register_demo(const DemoDef* def);
const std::vector<const DemoDef*>& all_demos();      // sorted by id
const DemoDef* find_demo(const std::string& id);     // nullptr if unknown

// The messages of demo `demo_id` in `lang`: load_catalogue(lang, {"common", demo_id})
// (icl/texts.h), i.e. lessons/en/catalogue/common.json and <demo_id>.json, then the same
// two of `lang` over them.
Expected<Texts> load_texts(const std::string& lang, const std::string& demo_id);

// Validates and starts: the one entry point both front ends and the CLI use. lane k >= 1
// starts only the session's lane k (Session::lanes; an error if it has no such lane).
Expected<std::unique_ptr<Session>> start_demo(const std::string& id, const nlohmann::json& params,
                                              const Texts& text, uint64_t seed, int lane = 0);

// DemoDef::start for a demo whose session is made from the context alone:
// `d.start = start_session<MySession>;`.
template <class S>
Expected<std::unique_ptr<Session>> start_session(const DemoContext& ctx) {
    return std::unique_ptr<Session>(new S(ctx));
}

struct DemoRegistrar { explicit DemoRegistrar(const DemoDef* def) { register_demo(def); } };
#define ICL_REGISTER_DEMO(def) static ::icl::DemoRegistrar icl_registrar_##def(&def)

}  // namespace icl
