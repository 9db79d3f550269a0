// The lesson parser and its JSON (native only: md4c); the lint and the lesson build are
// test_lessons_lint.cpp's. Expected HTML is CommonMark's rendering, written out by hand.
#ifndef ICL_WASM
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "icl/assets.h"
#include "icl/demo.h"
#include "icl/lesson.h"
#include "icl/lesson_set.h"
#include "icl/quiz.h"
#include "icl/rng.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ---- a tiny demo, so the lint and predict checks have something real to run ----------

struct ProbeSession : icl::Session {
    double value = 0;
    bool finished = false;
    void step(int) override { finished = true; }
    bool done() const override { return finished; }
    std::vector<icl::Panel> panels() const override {
        return {icl::ScalarsPanel{"probe", {{"n times lr", value, "", ""}}}};
    }
};

const icl::DemoDef kProbe = [] {
    icl::DemoDef d;
    d.id = "lesson_probe";
    d.analytic = true;
    d.params = {icl::ParamSpec::integer("n", 1, 10, 3, 1), icl::ParamSpec::real("lr", 0, 1, 0.1, 0.01),
                icl::ParamSpec::boolean("flag", false), icl::ParamSpec::choice("opt", {"sgd", "adam"}, "sgd")};
    d.start = [](const icl::DemoContext& ctx) -> icl::Expected<std::unique_ptr<icl::Session>> {
        auto s = std::make_unique<ProbeSession>();
        s->value = ctx.params.d("n") * ctx.params.d("lr");
        return std::unique_ptr<icl::Session>(std::move(s));
    };
    return d;
}();
ICL_REGISTER_DEMO(kProbe);

const char* kGood = R"(---
id: dual-form
title: "Attention: the dual form"
order: 2
summary: One sentence shown on the index.
---
Gradient descent ends at $W = W_0 + \sum_i e_i x_i^T$ when $a<b$.

$$y = Wx$$

<script>alert(1)</script>

```python
print("not a directive")
```

```demo lesson_probe
n: 8
lr: 0.1
flag: true
opt: "adam"
```

```demo lesson_probe name=second
# defaults otherwise
lr: 1e-2
```

```check id=softmax type=choice answer=b
In unnormalized attention, what is removed?
a) the value projection
b) the softmax and the division by $\sqrt{d}$
c) the query
---
Linear attention keeps **Q, K, V** but drops the softmax.
a: The value projection stays.
c: Without a query there is nothing to compare.
```

```check id=both type=multi answer=a,c
Which are inputs of attention?
a) queries
b) learning rates
c) keys
---
Queries and keys.
```

```check id=tf type=truefalse answer=false
ICL updates the weights.
---
No weights change.
true: That is fine-tuning.
```

```check id=num type=numeric answer=0.2 tol=0.02
What is $n \cdot lr$ with the defaults?
---
3 times 0.1 is about 0.3 — no, 2 times 0.1.
```

```check id=word type=text answer="cold|차가운| chilly "
Antonym of hot?
---
Cold.
```

```check id=pred type=predict demo=lesson_probe scalar="n times lr"
Predict n times lr, then run.
a) [-inf, 0.5] below one half
b) [0.5, 1e0] between
c) [1, inf] one or more
---
It is 0.8.
b: Right range.
```
)";

std::string first_error(const std::string& text, const std::string& file = "lessons/en/02-dual-form.md") {
    auto parsed = icl::parse_lesson(text, file);
    return parsed ? std::string("(parsed)") : parsed.error().message;
}

// A lesson with the front matter filled in, for the error cases.
std::string with_body(const std::string& body) {
    return "---\nid: x\ntitle: T\norder: 1\nsummary: S\n---\n" + body;
}

const json& block(const json& lesson, size_t i) { return lesson.at("blocks").at(i); }

}  // namespace

TEST_CASE("lesson: front matter, text with math, raw HTML shown as text, code stays code") {
    auto parsed = icl::parse_lesson(kGood, "lessons/en/02-dual-form.md");
    REQUIRE_MESSAGE(parsed, parsed.error().message);
    const icl::Lesson& l = parsed.value();
    CHECK(l.id == "dual-form");
    CHECK(l.title == "Attention: the dual form");
    CHECK(l.order == 2);
    CHECK(l.summary == "One sentence shown on the index.");
    CHECK(l.lang == "en");
    CHECK(l.source == "lessons/en/02-dual-form.md");

    const json j = icl::to_json(l);
    CHECK(j.at("id") == "dual-form");
    CHECK(j.at("lang") == "en");
    CHECK(j.at("order") == 2);
    CHECK(j.at("source") == "lessons/en/02-dual-form.md");
    REQUIRE(j.at("blocks").size() == 9);  // text, 2 demos, 6 checks
    const json& text = block(j, 0);
    CHECK(text.at("kind") == "html");
    const std::string html = text.at("html");
    CHECK(html.find("<p>Gradient descent ends at <x-equation>W = W_0 + \\sum_i e_i x_i^T</x-equation> when "
                    "<x-equation>a&lt;b</x-equation>.</p>") != std::string::npos);
    CHECK(html.find("<p><x-equation type=\"display\">y = Wx</x-equation></p>") != std::string::npos);
    CHECK(html.find("<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>") != std::string::npos);
    CHECK(html.find("<script>") == std::string::npos);
    CHECK(html.find("<pre><code class=\"language-python\">print(&quot;not a directive&quot;)\n</code></pre>") != std::string::npos);
    CHECK(text.at("markdown").get<std::string>().rfind("Gradient descent ends at $W", 0) == 0);
}

TEST_CASE("lesson: demo blocks — typed overrides, default and explicit instance names, lines") {
    auto parsed = icl::parse_lesson(kGood, "lessons/en/02-dual-form.md");
    REQUIRE(parsed);
    const json j = icl::to_json(parsed.value());
    const json& demo = block(j, 1);
    CHECK(demo.at("kind") == "demo");
    CHECK(demo.at("demo") == "lesson_probe");
    CHECK(demo.at("name") == "lesson_probe");
    CHECK(demo.at("line") == 17);
    CHECK(demo.at("params").at("n").is_number_integer());
    CHECK(demo.at("params") == json({{"n", 8}, {"lr", 0.1}, {"flag", true}, {"opt", "adam"}}));
    const json& second = block(j, 2);
    CHECK(second.at("name") == "second");
    CHECK(second.at("params") == json({{"lr", 0.01}}));
    CHECK(second.at("line") == 24);
}

TEST_CASE("lesson: every check type, its options, feedback and grading JSON") {
    auto parsed = icl::parse_lesson(kGood, "lessons/en/02-dual-form.md");
    REQUIRE(parsed);
    const json j = icl::to_json(parsed.value());

    const json& choice = block(j, 3);
    CHECK(choice.at("kind") == "check");
    CHECK(choice.at("id") == "softmax");
    CHECK(choice.at("type") == "choice");
    CHECK(choice.at("line") == 29);
    CHECK(choice.at("prompt_html") == "<p>In unnormalized attention, what is removed?</p>\n");
    REQUIRE(choice.at("options").size() == 3);
    CHECK(choice.at("options")[0] == json({{"key", "a"}, {"html", "the value projection"},
                                           {"feedback_html", "<p>The value projection stays.</p>\n"}}));
    CHECK(choice.at("options")[1].at("html") == "the softmax and the division by <x-equation>\\sqrt{d}</x-equation>");
    CHECK(choice.at("options")[1].at("feedback_html") == "");
    CHECK(choice.at("options")[2].at("feedback_html") == "<p>Without a query there is nothing to compare.</p>\n");
    CHECK(choice.at("feedback_html") == "<p>Linear attention keeps <strong>Q, K, V</strong> but drops the softmax.</p>\n");
    CHECK(choice.at("grading") == json({{"answer", "b"}}));

    const json& multi = block(j, 4);
    CHECK(multi.at("type") == "multi");
    CHECK(multi.at("grading") == json({{"answer", {"a", "c"}}}));

    const json& tf = block(j, 5);
    CHECK(tf.at("type") == "truefalse");
    CHECK(tf.at("grading") == json({{"answer", false}}));
    REQUIRE(tf.at("options").size() == 2);
    CHECK(tf.at("options")[0].at("key") == "true");
    CHECK(tf.at("options")[0].at("feedback_html") == "<p>That is fine-tuning.</p>\n");
    CHECK(tf.at("prompt_html") == "<p>ICL updates the weights.</p>\n");

    const json& num = block(j, 6);
    CHECK(num.at("grading") == json({{"answer", 0.2}, {"tol", 0.02}}));
    CHECK(num.at("options") == json::array());

    const json& text = block(j, 7);
    CHECK(text.at("grading") == json({{"accepted", {"cold", "차가운", "chilly"}}}));

    const json& pred = block(j, 8);
    CHECK(pred.at("type") == "predict");
    CHECK(pred.at("grading") == json({{"demo", "lesson_probe"}, {"scalar", "n times lr"},
                                      {"ranges", {{"a", {nullptr, 0.5}}, {"b", {0.5, 1.0}}, {"c", {1.0, nullptr}}}}}));
    CHECK(pred.at("options")[0].at("html") == "below one half");
    CHECK(pred.at("options")[1].at("feedback_html") == "<p>Right range.</p>\n");
}

TEST_CASE("lesson: a parsed check grades, and predict grades against the real demo run") {
    auto parsed = icl::parse_lesson(kGood, "lessons/en/02-dual-form.md");
    REQUIRE(parsed);
    const json j = icl::to_json(parsed.value());
    auto wrong = icl::grade(block(j, 3), "a");
    REQUIRE(wrong);
    CHECK_FALSE(wrong.value().correct);
    CHECK(wrong.value().feedback_html ==
          "<p>Linear attention keeps <strong>Q, K, V</strong> but drops the softmax.</p>\n<p>The value projection stays.</p>\n");
    auto word = icl::grade(block(j, 7), "  Chilly! ");
    REQUIRE(word);
    CHECK(word.value().correct);

    // Run the instance the predict check names, with the page's parameters: 8 * 0.1.
    const json& demo = block(j, 1);
    auto session = icl::start_demo(demo.at("demo"), demo.at("params"), icl::Texts(), 1);
    REQUIRE(session);
    session.value()->step(1);
    const json result = icl::to_json(session.value()->result());
    auto right = icl::grade(block(j, 8), "b", result);
    REQUIRE_MESSAGE(right, right.error().message);
    CHECK(right.value().correct);
    CHECK(right.value().feedback_html == "<p>It is 0.8.</p>\n<p>Right range.</p>\n");
    auto low = icl::grade(block(j, 8), "a", result);
    REQUIRE(low);
    CHECK_FALSE(low.value().correct);
}

TEST_CASE("lesson: Korean lessons get Korean true/false labels; CRLF and a BOM are read") {
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    std::string text = "\xEF\xBB\xBF---\r\nid: k\r\ntitle: 제목\r\norder: 1\r\nsummary: 요약\r\n---\r\n본문 $x$\r\n\r\n"
                       "```check id=t type=truefalse answer=true\r\n참인가?\r\n---\r\n그렇다.\r\n```\r\n";
    auto parsed = icl::parse_lesson(text, "lessons/ko/01-k.md");
    REQUIRE_MESSAGE(parsed, parsed.error().message);
    CHECK(parsed.value().lang == "ko");
    CHECK(parsed.value().title == "제목");
    const json j = icl::to_json(parsed.value());
    CHECK(block(j, 0).at("html") == "<p>본문 <x-equation>x</x-equation></p>\n");
    CHECK(block(j, 1).at("options")[0].at("html") == "참");
    CHECK(block(j, 1).at("options")[1].at("html") == "거짓");
}

TEST_CASE("lesson: the true/false labels are the catalogue's, not the parser's") {
    // A catalogue with other words for them (put over the file, then the file put back):
    // the options follow it, so a language added as a catalogue gets its own words.
    icl::set_asset_dir(ICL_SOURCE_DIR "/lessons");
    const std::string name = "ko/catalogue/app.json";
    const std::vector<uint8_t> kept = *icl::get_asset(name).value();
    json app = json::parse(kept.begin(), kept.end());
    app["true_label"] = "맞다";
    app["false_label"] = "틀리다";
    const std::string changed = app.dump();
    icl::put_asset(name, std::vector<uint8_t>(changed.begin(), changed.end()));
    const std::string text = "---\nid: k\ntitle: t\norder: 1\nsummary: s\n---\n"
                             "```check id=t type=truefalse answer=true\n참인가?\n---\n그렇다.\n```\n";
    auto parsed = icl::parse_lesson(text, "lessons/ko/01-k.md");
    icl::put_asset(name, kept);
    REQUIRE_MESSAGE(parsed, parsed.error().message);
    const json j = icl::to_json(parsed.value());
    CHECK(block(j, 0).at("options")[0].at("html") == "맞다");
    CHECK(block(j, 0).at("options")[1].at("html") == "틀리다");
}

TEST_CASE("lesson: a look-alike fence inside a longer fence stays code") {
    auto parsed = icl::parse_lesson(with_body("````markdown\n```check id=q type=choice\n```\n````\n"), "f.md");
    REQUIRE_MESSAGE(parsed, parsed.error().message);
    REQUIRE(parsed.value().blocks.size() == 1);
    const auto* html = std::get_if<icl::HtmlBlock>(&parsed.value().blocks[0]);
    REQUIRE(html);
    CHECK(html->html == "<pre><code class=\"language-markdown\">```check id=q type=choice\n```\n</code></pre>\n");
    CHECK(parsed.value().lang == "");
    CHECK(parsed.value().source == "f.md");
}

TEST_CASE("lesson: each malformed input is an error naming file:line and what was expected") {
    struct Case { const char* name; std::string text; std::string expected; };
    const std::string check_ok_body = "Q?\na) x\nb) y\n---\nF.\n```\n";
    const Case cases[] = {
        {"no front matter", "# Title\n", "f.md:1: expected front matter"},
        {"unclosed front matter", "---\nid: x\ntitle: T\n", "f.md:1: front matter is not closed"},
        {"malformed front matter line", "---\nid x\ntitle: T\norder: 1\nsummary: S\n---\n", "f.md:2: malformed front matter line (expected 'key: value')"},
        {"missing key", "---\nid: x\ntitle: T\norder: 1\n---\n", "f.md:5: front matter has no 'summary:'"},
        {"unknown key", "---\nid: x\ntitle: T\nauthor: me\norder: 1\nsummary: S\n---\n", "f.md:4: unknown front matter key 'author'"},
        {"bad order", "---\nid: x\ntitle: T\norder: two\nsummary: S\n---\n", "f.md:4: front matter order 'two' is not a non-negative integer"},
        {"duplicate key", "---\nid: x\nid: y\ntitle: T\norder: 1\nsummary: S\n---\n", "f.md:3: front matter key 'id' appears twice"},
        {"unknown check type", with_body("\n```check id=q type=essay answer=a\n" + check_ok_body), "f.md:8: unknown check type 'essay'"},
        {"check without answer", with_body("```check id=q type=choice\n" + check_ok_body), "f.md:7: check block has no answer= (expected answer=a|b)"},
        {"check without id", with_body("```check type=choice answer=a\n" + check_ok_body), "f.md:7: check block has no id="},
        {"check without type", with_body("```check id=q answer=a\n" + check_ok_body), "f.md:7: check block has no type="},
        {"check without ---", with_body("```check id=q type=choice answer=a\nQ?\na) x\nb) y\n```\n"), "f.md:7: check block has no '---' line"},
        {"check without feedback", with_body("```check id=q type=choice answer=a\nQ?\na) x\nb) y\n---\n\n```\n"), "f.md:11: check block has no feedback after '---'"},
        {"check without prompt", with_body("```check id=q type=choice answer=a\na) x\nb) y\n---\nF\n```\n"), "f.md:7: check block has no prompt"},
        {"answer not an option", with_body("```check id=q type=choice answer=d\n" + check_ok_body), "f.md:7: answer 'd' is not among the options (expected answer=a|b)"},
        {"multi answer not an option", with_body("```check id=q type=multi answer=a,e\n" + check_ok_body), "f.md:7: answer key 'e' is not among the options"},
        {"bad truefalse", with_body("```check id=q type=truefalse answer=yes\nQ\n---\nF\n```\n"), "f.md:7: truefalse answer 'yes' must be true or false"},
        {"bad numeric tol", with_body("```check id=q type=numeric answer=0.2 tol=abc\nQ\n---\nF\n```\n"), "f.md:7: numeric tol 'abc' is not a non-negative number"},
        {"negative tol", with_body("```check id=q type=numeric answer=0.2 tol=-1\nQ\n---\nF\n```\n"), "f.md:7: numeric tol '-1'"},
        {"numeric without tol", with_body("```check id=q type=numeric answer=0.2\nQ\n---\nF\n```\n"), "f.md:7: numeric check has no tol="},
        {"bad numeric answer", with_body("```check id=q type=numeric answer=zero tol=1\nQ\n---\nF\n```\n"), "f.md:7: numeric answer 'zero' is not a number"},
        {"key for another type", with_body("```check id=q type=choice answer=a tol=1\n" + check_ok_body), "f.md:7: check key 'tol=' does not apply to a choice check"},
        {"options out of order", with_body("```check id=q type=choice answer=a\nQ?\na) x\nc) y\n---\nF\n```\n"), "f.md:10: option 'c)' is out of order (expected 'b)')"},
        {"text after options", with_body("```check id=q type=choice answer=a\nQ?\na) x\nb) y\nmore\n---\nF\n```\n"), "f.md:11: text after the options"},
        {"one option", with_body("```check id=q type=choice answer=a\nQ?\na) x\n---\nF\n```\n"), "f.md:7: choice check needs at least two options"},
        {"feedback for no option", with_body("```check id=q type=choice answer=a\nQ?\na) x\nb) y\n---\nF\nd: no such\n```\n"), "f.md:13: per-option feedback 'd:' names no option"},
        {"unterminated quote", with_body("```check id=q type=text answer=\"cold\nQ\n---\nF\n```\n"), "f.md:7: check block: unterminated quoted value for 'answer='"},
        {"empty text alternative", with_body("```check id=q type=text answer=\"cold||hot\"\nQ\n---\nF\n```\n"), "f.md:7: text answer has an empty alternative"},
        {"duplicate check id", with_body("```check id=q type=truefalse answer=true\nQ\n---\nF\n```\n\n```check id=q type=truefalse answer=true\nQ\n---\nF\n```\n"), "f.md:13: check id 'q' is used twice in this lesson (first at line 7)"},
        {"malformed demo line", with_body("```demo lesson_probe\nn: 3\nlr 0.1\n```\n"), "f.md:9: malformed demo parameter line 'lr 0.1' (expected name: value)"},
        {"demo param twice", with_body("```demo lesson_probe\nn: 3\nn: 4\n```\n"), "f.md:9: demo parameter 'n' is set twice"},
        {"demo without id", with_body("```demo\n```\n"), "f.md:7: demo block has no demo id"},
        {"two instances, one name", with_body("```demo lesson_probe\n```\n\n```demo lesson_probe\n```\n"), "f.md:10: a second demo instance named 'lesson_probe'"},
        {"unclosed directive", with_body("```check id=q type=truefalse answer=true\nQ\n---\nF\n"), "f.md:7: check block is not closed"},
        {"indented directive", with_body("  ```check id=q type=truefalse answer=true\nQ\n---\nF\n  ```\n"), "f.md:7: check fence is indented"},
        {"directive typo", with_body("```chek id=q type=truefalse answer=true\nQ\n---\nF\n```\n"), "f.md:7: unknown directive 'chek' (did you mean check?"},
        {"directive in capitals", with_body("```Demo lesson_probe\n```\n"), "f.md:7: unknown directive 'Demo' (did you mean demo?"},
        {"predict without range", with_body("```demo lesson_probe\n```\n```check id=p type=predict demo=lesson_probe scalar=x\nQ\na) small\nb) [1, 2] big\n---\nF\n```\n"), "f.md:11: predict option 'a)' has no range"},
        {"predict empty range", with_body("```demo lesson_probe\n```\n```check id=p type=predict demo=lesson_probe scalar=x\nQ\na) [2, 1] small\nb) [3, 4] big\n---\nF\n```\n"), "f.md:11: predict option 'a)': range '[2, 1]' is empty"},
        {"predict overlapping ranges", with_body("```demo lesson_probe\n```\n```check id=p type=predict demo=lesson_probe scalar=x\nQ\na) [0, 2] small\nb) [1, inf] big\n---\nF\n```\n"), "f.md:9: predict ranges of options 'a' and 'b' overlap"},
        {"predict with unknown instance", with_body("```demo lesson_probe\n```\n```check id=p type=predict demo=other scalar=x\nQ\na) [0, 1] small\nb) [1, inf] big\n---\nF\n```\n"), "f.md:9: predict check names demo instance 'other', which is not on this page (instances: lesson_probe)"},
        {"predict with answer", with_body("```demo lesson_probe\n```\n```check id=p type=predict demo=lesson_probe scalar=x answer=a\nQ\na) [0, 1] small\nb) [1, inf] big\n---\nF\n```\n"), "f.md:9: check key 'answer=' does not apply to a predict check"},
        {"invalid UTF-8", with_body("ok\nbad \xC3\x28 byte\n"), "f.md:8: the file is not valid UTF-8"},
        {"control character", with_body("ok\nmath $a \x07pprox b$\n"), "f.md:8: control character U+0007 in the text"},
        {"javascript: link", with_body("ok\nsee [this](javascript:alert(1))\n"), "f.md:7: link or image target 'javascript:alert(1)' is not allowed"},
        {"JavaScript: link by entity", with_body("[x](&#74;avaScript:go)\n"), "f.md:7: link or image target 'JavaScript:go' is not allowed"},
        {"data: image", with_body("![x](data:text/html,hi)\n"), "f.md:7: link or image target 'data:text/html,hi' is not allowed"},
        {"unknown TeX command", with_body("ok\nmath $a \\foo b$\n"), "f.md:8: math: the desktop app cannot show \\foo ("},
        {"unknown TeX environment, on the third line of display math", with_body("$$\na =\n\\begin{align} b \\end{align}\n$$\n"),
         "f.md:9: math: the desktop app cannot show \\begin{align} ("},
        {"stray & in a check's feedback", with_body("```check id=q type=choice answer=a\nQ?\na) x\nb) y\n---\nF $a & b$\n```\n"),
         "f.md:12: math: the desktop app cannot show & outside a matrix"},
        {"matrix in a fraction in an option", with_body("```check id=q type=choice answer=a\nQ?\na) $\\frac{\\begin{pmatrix}1\\end{pmatrix}}{2}$\nb) y\n---\nF\n```\n"),
         "f.md:9: math: the desktop app cannot show \\begin{pmatrix} inside \\frac"},
        {"javascript: link in feedback", with_body("```check id=a type=choice answer=a\nQ\na) x\nb) y\n---\nF [x](javascript:go)\n```\n"), "f.md:12: link or image target 'javascript:go' is not allowed"},
    };
    for (const auto& c : cases) {
        const std::string got = first_error(c.text, "f.md");
        CHECK_MESSAGE(got.rfind(c.expected, 0) == 0, c.name, ": got '", got, "', expected it to start with '", c.expected, "'");
    }
}

TEST_CASE("lesson: web, mail, relative and anchor links are fine") {
    const std::string text = with_body("[a](https://arxiv.org/abs/2005.14165) [b](http://x.org/a:b) [c](mailto:t@x.org) "
                                       "[d](../en/02-dual-form.html) [e](#checks) [f](page.html?x=a:b)\n");
    const icl::LessonParse parsed = icl::parse_lesson_collect(text, "f.md");
    CHECK(parsed.problems.empty());
}

TEST_CASE("lesson: one bad block does not hide the next") {
    const std::string text = with_body("```check id=a type=choice answer=z\nQ\na) x\nb) y\n---\nF\n```\n\n"
                                       "```demo lesson_probe\nbroken\n```\n\n"
                                       "```check id=c type=truefalse answer=true\nQ\n---\nF\n```\n");
    const icl::LessonParse parsed = icl::parse_lesson_collect(text, "f.md");
    REQUIRE(parsed.problems.size() == 2);
    CHECK(icl::to_string(parsed.problems[0]).rfind("f.md:7: answer 'z'", 0) == 0);
    CHECK(icl::to_string(parsed.problems[1]).rfind("f.md:16: malformed demo parameter line 'broken'", 0) == 0);
    REQUIRE(parsed.lesson.blocks.size() == 1);  // the good check survived
    CHECK(std::get<icl::CheckBlock>(parsed.lesson.blocks[0]).id == "c");
}

TEST_CASE("lesson: a quoted figure shows its value and records where it comes from") {
    const std::string body = "Text with $x^{{2}}$ and {{ 1.5 @lesson_probe:n times lr ±0.1}} here,\n"
                             "and {{2e-3 @lesson_probe:n times lr +- 10%}}.\n\n```demo lesson_probe\n```\n";
    auto parsed = icl::parse_lesson_collect(with_body(body), "lessons/en/01-x.md");
    REQUIRE_MESSAGE(parsed.problems.empty(), parsed.problems[0].message);
    const auto& html = std::get<icl::HtmlBlock>(parsed.lesson.blocks[0]);
    CHECK(html.markdown == "Text with $x^{{2}}$ and 1.5 here,\nand 2e-3.\n");
    REQUIRE(parsed.lesson.figures.size() == 2);
    const icl::Figure& a = parsed.lesson.figures[0];
    CHECK(a.line == 7);
    CHECK(a.text == "1.5");
    CHECK(a.instance == "lesson_probe");
    CHECK(a.scalar == "n times lr");
    CHECK(a.tol == doctest::Approx(0.1));
    CHECK_FALSE(a.relative);
    CHECK(parsed.lesson.figures[1].line == 8);
    CHECK(parsed.lesson.figures[1].relative);
    CHECK(parsed.lesson.figures[1].tol == doctest::Approx(10));

    CHECK(first_error(with_body("A {{0.5 @p:s}}.\n")).find(":7: figure '{{0.5 @p:s}}': no tolerance") != std::string::npos);
    CHECK(first_error(with_body("A {{0.5x @p:s ±1}}.\n")).find("'0.5x' is not a number") != std::string::npos);
    CHECK(first_error(with_body("A {{0.5 @p s ±1}}.\n")).find("no ':' between") != std::string::npos);
    CHECK(first_error(with_body("```check id=q type=truefalse answer=true\nQ\n---\nIt is {{1 @p:s ±-1}}.\n```\n"))
              .find(":10: figure '{{1 @p:s ±-1}}': tolerance '-1' is not") != std::string::npos);

    // A run with some of the instance's parameters changed: instance[name=value, ...].
    auto changed = icl::parse_lesson_collect(with_body("A {{2.5 @lesson_probe[ n=5 , opt=adam]:n times lr ±0.1}}.\n\n```demo lesson_probe\n```\n"),
                                             "lessons/en/01-x.md");
    REQUIRE_MESSAGE(changed.problems.empty(), changed.problems[0].message);
    REQUIRE(changed.lesson.figures.size() == 1);
    const icl::Figure& c = changed.lesson.figures[0];
    CHECK(c.instance == "lesson_probe");
    CHECK(c.params == nlohmann::json{{"n", 5}, {"opt", "adam"}});
    CHECK(c.scalar == "n times lr");
    CHECK(c.source() == "lesson_probe[n=5,opt=adam]:n times lr");
    CHECK(a.source() == "lesson_probe:n times lr");
    CHECK(first_error(with_body("A {{1 @p[n=5:s ±1}}.\n")).find("'[' without a closing ']'") != std::string::npos);
    CHECK(first_error(with_body("A {{1 @p[]:s ±1}}.\n")).find("no parameters between '[' and ']'") != std::string::npos);
    CHECK(first_error(with_body("A {{1 @p[n]:s ±1}}.\n")).find("parameter 'n' is not name=value") != std::string::npos);
    CHECK(first_error(with_body("A {{1 @p[n=1,,lr=2]:s ±1}}.\n")).find("parameter '' is not name=value") != std::string::npos);
    CHECK(first_error(with_body("A {{1 @p[n=1, n=2]:s ±1}}.\n")).find("parameter 'n' is set twice") != std::string::npos);
}

TEST_CASE("lesson: hide=result is a predict check's, with run=lesson only; it reaches the check's JSON") {
    const std::string check = "```demo lesson_probe\n```\n\n```check id=p type=predict demo=lesson_probe scalar=\"n times lr\" %\n"
                              "Predict.\na) [0, 1] low\nb) [1, inf] high\n---\nFeedback.\n```\n";
    auto with_keys = [&](const std::string& keys) {
        std::string t = check;
        t.replace(t.find('%'), 1, keys);
        return with_body(t);
    };
    auto held = icl::parse_lesson(with_keys("hide=result"), "f.md");
    REQUIRE(held);
    const auto& c = std::get<icl::CheckBlock>(held.value().blocks.back());
    CHECK(c.hides_result);
    CHECK(icl::to_json(c).at("hides_result") == true);
    auto plain = icl::parse_lesson(with_keys("run=lesson"), "f.md");
    REQUIRE(plain);
    CHECK(icl::to_json(std::get<icl::CheckBlock>(plain.value().blocks.back())).at("hides_result") == false);
    CHECK(first_error(with_keys("hide=panels"), "f.md").find("hide='panels' is not known") != std::string::npos);
    CHECK(first_error(with_keys("hide=result run=own"), "f.md").find("hide=result needs run=lesson") != std::string::npos);
    CHECK(first_error(with_body("```check id=q type=choice answer=a hide=result\nQ\na) x\nb) y\n---\nF\n```\n"), "f.md")
              .find("check key 'hide=' does not apply to a choice check") != std::string::npos);
}

// Deterministic mutations of a good lesson (lines dropped, doubled, cut, bytes changed):
// the parser must always come back with a lesson or problems, and the JSON of what it
// parsed must serialise. Run under ASan by scripts/test.
TEST_CASE("lesson: mutated sources never crash the parser") {
    std::vector<std::string> lines;
    std::stringstream in(kGood);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    icl::Rng rng(2024);
    int parsed_ok = 0;
    for (int iter = 0; iter < 1500; ++iter) {
        std::vector<std::string> m = lines;
        const int edits = 1 + static_cast<int>(rng.below(4));
        for (int e = 0; e < edits; ++e) {
            const size_t at = rng.below(static_cast<uint32_t>(m.size()));
            switch (rng.below(5)) {
                case 0: m.erase(m.begin() + static_cast<long>(at)); break;
                case 1: m.insert(m.begin() + static_cast<long>(at), m[at]); break;
                case 2: m[at] = m[at].substr(0, rng.below(static_cast<uint32_t>(m[at].size() + 1))); break;
                case 3: if (!m[at].empty()) m[at][rng.below(static_cast<uint32_t>(m[at].size()))] = static_cast<char>(rng.below(256)); break;
                default: m[at] += "```"; break;
            }
            if (m.empty()) m.push_back("");
        }
        std::string text;
        for (const auto& l : m) text += l + "\n";
        const icl::LessonParse p = icl::parse_lesson_collect(text, "f.md");
        for (const auto& d : p.problems) REQUIRE(d.line >= 0);
        CHECK_NOTHROW((void)icl::to_json(p.lesson).dump());
        parsed_ok += p.problems.empty();
    }
    // Some mutations (a changed word of prose) leave a valid lesson, most do not.
    CHECK(parsed_ok > 0);
    CHECK(parsed_ok < 1500);
}

TEST_CASE("lesson: a predict check graded against the learner's own run (run=own); another run= is an error") {
    const std::string check = "```demo lesson_probe\n```\n\n```check id=p type=predict demo=lesson_probe scalar=\"n times lr\" run=%\n"
                              "Predict.\na) [0, 1] low\nb) [1, inf] high\n---\nFeedback.\n```\n";
    auto with_run = [&](const std::string& run) {
        std::string t = check;
        t.replace(t.find('%'), 1, run);
        return with_body(t);
    };
    auto own = icl::parse_lesson(with_run("own"), "f.md");
    REQUIRE(own);
    const auto* c = std::get_if<icl::CheckBlock>(&own.value().blocks.back());
    REQUIRE(c != nullptr);
    CHECK(c->grading.value("run", "") == "own");
    auto lesson = icl::parse_lesson(with_run("lesson"), "f.md");
    REQUIRE(lesson);
    CHECK_FALSE(std::get<icl::CheckBlock>(lesson.value().blocks.back()).grading.contains("run"));
    CHECK(first_error(with_run("mine"), "f.md").find("run='mine' is neither lesson") != std::string::npos);
}

#endif  // ICL_WASM
