#include "teachers.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "icl/class_report.h"
#include "icl/data_dir.h"
#include "icl/file_read.h"
#include "icl/format.h"
#include "icl/lesson_set.h"
#include "icl/package.h"
#include "icl/progress.h"
#include "icl/texts.h"
#include "icl/zip.h"

namespace fs = std::filesystem;

namespace {

int usage(const std::string& message) {
    std::fprintf(stderr, "icl: %s\n", message.c_str());
    return 2;
}

int failed(const std::string& message) {
    std::fprintf(stderr, "icl: %s\n", message.c_str());
    return 1;
}

std::string lessons_dir() {
    std::error_code ec;
    return fs::is_directory("lessons", ec) ? "lessons" : icl::find_lessons_dir(ICL_SOURCE_DIR);
}

// Writes `bytes` to `path` through a temporary beside it, so a failed write leaves no
// half file under the name asked for.
bool write_whole(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".part";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f.write(bytes.data(), (std::streamsize)bytes.size());
        if (!f) { std::error_code ec; fs::remove(tmp, ec); return false; }
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    return !ec;
}

}  // namespace

// `icl lessons package --scorm <out.zip>`: exit 0 written, 1 the site or a write
// failed, 2 bad usage.
int cmd_lessons_package(int argc, char** argv) {
    std::string out, site = "build/site", lang = "en", dir = lessons_dir();
    icl::package::Scorm version = icl::package::Scorm::v1_2;
    icl::package::Xapi xapi;
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has = i + 1 < argc;
        if (a == "--scorm" && has) out = argv[++i];
        else if (a == "--scorm-2004") version = icl::package::Scorm::v2004;
        else if (a == "--site" && has) site = argv[++i];
        else if (a == "--lang" && has) lang = argv[++i];
        else if (a == "--dir" && has) dir = argv[++i];
        else if (a == "--xapi-endpoint" && has) xapi.endpoint = argv[++i];
        else if (a == "--xapi-auth" && has) xapi.auth = argv[++i];
        else return usage("lessons package: unknown or incomplete option '" + a + "'");
    }
    if (out.empty()) return usage("lessons package needs --scorm <out.zip>");
    if (!xapi.auth.empty() && xapi.endpoint.empty()) return usage("lessons package: --xapi-auth needs --xapi-endpoint");
    if (!xapi.endpoint.empty()) {
        auto checked = icl::package::check_endpoint(xapi.endpoint);
        if (!checked) return usage("lessons package: " + checked.error().message);
        xapi.endpoint = checked.value();
        if (auto a = icl::package::check_auth(xapi.auth); !a) return usage("lessons package: " + a.error().message);
    }
    // The lessons (titles and order) from the sources the site was built from.
    const icl::LessonSet set = icl::load_lesson_set(dir);
    if (set.errors() > 0) return failed("lessons package: the lessons in '" + dir + "' do not pass `icl lessons check`; nothing written");
    const auto found = set.lessons.find(lang);
    if (found == set.lessons.end() || found->second.empty()) return usage("lessons package: no lessons in language '" + lang + "' under '" + dir + "'");
    std::error_code ec;
    if (!fs::is_directory(fs::path(site) / lang, ec))
        return failed("lessons package: no built site at '" + site + "' (run scripts/build site, or give --site <folder>)");

    icl::package::Course course;
    course.identifier = "icl-lab-" + lang;
    course.title = "ICL Lab";
    for (const auto& l : found->second) {
        const std::string href = lang + "/" + l.id + ".html";
        if (!fs::is_regular_file(fs::path(site) / href, ec))
            return failed("lessons package: '" + site + "' has no page " + href + " (a site built from other lessons? run scripts/build site)");
        course.scos.push_back({l.id, l.title, href});
    }
    // Every file of the site but the precompressed copies (the platform serves the
    // files as they are) and a manifest of an earlier package.
    std::vector<icl::zip::Entry> entries;
    for (auto it = fs::recursive_directory_iterator(site, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string name = fs::relative(it->path(), site).generic_string();
        if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0) continue;
        if (name == "imsmanifest.xml") continue;
        auto bytes = icl::read_regular_file(it->path().string(), 256u << 20);
        if (!bytes) return failed("lessons package: " + bytes.error().message);
        std::string data = std::move(bytes.value());
        if (!xapi.endpoint.empty() && name.size() > 5 && name.compare(name.size() - 5, 5, ".html") == 0) {
            auto written = icl::package::with_xapi(data, xapi);
            if (!written) return failed("lessons package: " + site + "/" + name + ": " + written.error().message);
            data = std::move(written.value());
        }
        entries.emplace_back(name, std::move(data));
    }
    if (ec) return failed("lessons package: cannot read '" + site + "': " + ec.message());
    std::sort(entries.begin(), entries.end());
    for (const auto& e : entries) course.files.push_back(e.first);
    entries.insert(entries.begin(), {"imsmanifest.xml", icl::package::manifest(course, version)});
    if (!icl::zip::fits(entries)) return failed("lessons package: the site is too large for a zip without zip64 (4 GiB, 65,535 files)");
    const std::string zip = icl::zip::store(entries);
    if (!write_whole(out, zip)) return failed("lessons package: cannot write '" + out + "'");
    std::printf("wrote %s: SCORM %s, %zu lessons (%s) as SCOs, %zu files, %.1f MB%s\n", out.c_str(),
                version == icl::package::Scorm::v1_2 ? "1.2" : "2004 4th edition", course.scos.size(), lang.c_str(),
                entries.size(), zip.size() / 1e6, xapi.endpoint.empty() ? "" : (", xAPI statements to " + xapi.endpoint).c_str());
    return 0;
}

// ---- icl class report ------------------------------------------------------------------

namespace {

// Markdown text on one line: line breaks as spaces, no trailing space.
std::string one_line(std::string s) {
    for (char& c : s) if (c == '\n' || c == '\r') c = ' ';
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

// The report's words: lessons/<lang>/catalogue/class-report.json over English's.
icl::Expected<icl::Texts> report_texts(const std::string& dir, const std::string& lang) {
    std::vector<nlohmann::json> layers;
    std::vector<std::string> names;
    for (const std::string& l : lang == "en" ? std::vector<std::string>{"en"} : std::vector<std::string>{"en", lang}) {
        const std::string file = dir + "/" + l + "/catalogue/class-report.json";
        auto text = icl::read_regular_file(file, 1u << 20);
        if (!text) return icl::make_error(text.error().message);
        auto j = nlohmann::json::parse(text.value(), nullptr, false);
        if (!j.is_object()) return icl::make_error("'" + file + "' is not a JSON object");
        layers.push_back(j);
        names.push_back(file);
    }
    return icl::Texts::from_layers(lang, layers, names);
}

// A bar per check: the share right at the first try, of the learners whose first try
// is known; grey when none is known.
std::string accuracy_svg(const icl::classroom::Report& r, const icl::Texts& t) {
    const int row = 18, label = 230, width = 360, top = 24;
    const int height = top + row * (int)r.checks.size() + 24;
    char buf[256];
    std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" + std::to_string(label + width + 60) +
                    "\" height=\"" + std::to_string(height) + "\" aria-label=\"" + icl::markup_escape(t("plot")) + "\">\n";
    for (int p = 0; p <= 100; p += 25) {
        const int x = label + width * p / 100;
        std::snprintf(buf, sizeof buf, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"grid\"/><text x=\"%d\" y=\"%d\" class=\"tick\">%d%%</text>\n",
                      x, top - 4, x, height - 20, x, height - 6, p);
        s += buf;
    }
    for (size_t i = 0; i < r.checks.size(); ++i) {
        const auto& c = r.checks[i];
        const int y = top + row * (int)i;
        s += "<text x=\"" + std::to_string(label - 6) + "\" y=\"" + std::to_string(y + 13) + "\" class=\"label\">" + icl::markup_escape(c.check) + "</text>";
        if (c.first_known == 0) {
            std::snprintf(buf, sizeof buf, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"unknown\"/>\n", label, y + 3, width, row - 6);
        } else {
            const double share = double(c.first_right) / c.first_known;
            std::snprintf(buf, sizeof buf, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"bar\"/><text x=\"%.1f\" y=\"%d\" class=\"value\">%d/%d</text>\n",
                          label, y + 3, width * share, row - 6, label + width * share + 4, y + 13, c.first_right, c.first_known);
        }
        s += buf;
    }
    return s + "</svg>\n";
}

const char* kReportCss =
    "body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#1b1b1f}"
    "table{border-collapse:collapse;width:100%;margin:0 0 1.5rem}th,td{border-bottom:1px solid #ccd;padding:.35rem .5rem;text-align:left;vertical-align:top}"
    "th{background:#f2f3f7}td.n{text-align:right;white-space:nowrap}ul{margin:0;padding-left:1.1rem}.reason{color:#444}.note{color:#555}"
    "svg .grid{stroke:#dde}svg .tick{font-size:11px;text-anchor:middle;fill:#555}svg .label{font-size:12px;text-anchor:end;fill:#1b1b1f}"
    "svg .bar{fill:#3b6fd8}svg .unknown{fill:#ccc}svg .value{font-size:11px;fill:#1b1b1f}";

}  // namespace

// `icl class report <files...> --out report.html`: exit 0 written, 1 a file could not be
// read or written, 2 bad usage.
int cmd_class(int argc, char** argv) {
    if (argc < 3 || std::string(argv[2]) != "report") return usage("class needs report (icl class report <statements.json | answers.csv | progress.json>... --out report.html)");
    std::string out, lang = "en", dir = lessons_dir();
    std::vector<std::string> inputs;
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has = i + 1 < argc;
        if (a == "--out" && has) out = argv[++i];
        else if (a == "--lang" && has) lang = argv[++i];
        else if (a == "--dir" && has) dir = argv[++i];
        else if (a.rfind("--", 0) == 0) return usage("class report: unknown or incomplete option '" + a + "'");
        else inputs.push_back(a);
    }
    if (out.empty()) return usage("class report needs --out <report.html>");
    if (inputs.empty()) return usage("class report needs at least one file: xAPI statements (.json), a progress document (.json) or an answers CSV (.csv)");
    const icl::LessonSet set = icl::load_lesson_set(dir);
    if (set.errors() > 0) return failed("class report: the lessons in '" + dir + "' do not pass `icl lessons check`");
    const auto found = set.lessons.find(lang);
    if (found == set.lessons.end()) return usage("class report: no lessons in language '" + lang + "' under '" + dir + "'");
    auto texts = report_texts(dir, lang);
    if (!texts) return failed("class report: " + texts.error().message);
    const icl::Texts& t = texts.value();

    icl::classroom::Class cls;
    for (const std::string& file : inputs) {
        auto text = icl::read_regular_file(file, 64u << 20);
        if (!text) return failed("class report: " + text.error().message);
        const std::string stem = fs::path(file).stem().string();
        if (fs::path(file).extension() == ".csv") {
            if (auto s = cls.add_csv(stem, text.value()); !s) return failed("class report: '" + file + "': " + s.error().message);
            continue;
        }
        const auto j = nlohmann::json::parse(text.value(), nullptr, false);
        if (j.is_discarded()) return failed("class report: '" + file + "' is not JSON (give statements or a progress document as .json, answers as .csv)");
        if (j.is_object() && j.contains("version")) {
            auto doc = icl::progress::read(text.value());
            if (!doc) return failed("class report: '" + file + "': " + doc.error().message);
            cls.add_document(stem, doc.value().doc);
            continue;
        }
        auto used = cls.add_statements(j);
        if (!used) return failed("class report: '" + file + "': " + used.error().message);
    }
    std::vector<std::pair<std::string, std::vector<nlohmann::json>>> lessons;
    std::map<std::string, const icl::CheckBlock*> blocks;  // "lesson/check" -> its block
    for (const auto& l : found->second) {
        lessons.push_back({l.id, {}});
        for (const auto& b : l.blocks) {
            if (const auto* c = std::get_if<icl::CheckBlock>(&b)) {
                lessons.back().second.push_back(icl::to_json(*c));
                blocks[l.id + "/" + c->id] = c;
            }
        }
    }
    const icl::classroom::Report r = cls.report(lessons);

    std::string h = "<!doctype html>\n<html lang=\"" + icl::markup_escape(lang) + "\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" + icl::markup_escape(t("title")) + " · ICL Lab</title>\n<style>" +
                    kReportCss + "</style>\n</head>\n<body>\n<h1>" + icl::markup_escape(t("title")) + "</h1>\n<p>" +
                    icl::markup_escape(t("summary", {{"learners", r.learners.size()}, {"checks", r.total_checks}, {"lessons", found->second.size()}})) + "</p>\n";
    if (!r.unknown.empty()) {
        std::string list;
        for (const auto& u : r.unknown) list += (list.empty() ? "" : ", ") + u;
        h += "<p class=\"note\">" + icl::markup_escape(t("unknown", {{"checks", list}})) + "</p>\n";
    }
    h += "<h2>" + icl::markup_escape(t("plot")) + "</h2>\n<p class=\"note\">" + icl::markup_escape(t("plotNote")) + "</p>\n" + accuracy_svg(r, t);
    size_t at = 0;
    for (const auto& l : found->second) {
        h += "<h2>" + icl::markup_escape(t("lesson", {{"order", l.number()}, {"title", l.title}})) + "</h2>\n<table>\n<tr><th>" + icl::markup_escape(t("check")) + "</th><th>" +
             icl::markup_escape(t("answered")) + "</th><th>" + icl::markup_escape(t("firstRight")) + "</th><th>" + icl::markup_escape(t("wrong")) + "</th></tr>\n";
        for (; at < r.checks.size() && r.checks[at].lesson == l.id; ++at) {
            const auto& c = r.checks[at];
            const icl::CheckBlock* block = blocks[c.lesson + "/" + c.check];
            h += "<tr id=\"" + icl::markup_escape(c.lesson + "-" + c.check) + "\"><td><code>" + icl::markup_escape(c.check) + "</code><br><span class=\"reason\">" +
                 icl::markup_escape(one_line(block ? block->prompt_markdown : "")) + "</span></td><td class=\"n\">" + std::to_string(c.answered) + "</td><td class=\"n\">" +
                 icl::markup_escape(t("firstOf", {{"right", c.first_right}, {"known", c.first_known}}));
            if (c.answered > c.first_known) h += "<br><span class=\"note\">" + icl::markup_escape(t("firstUnknown", {{"count", c.answered - c.first_known}})) + "</span>";
            h += "</td><td>";
            if (c.wrong.empty()) h += icl::markup_escape(t("none"));
            else {
                h += "<ul>";
                for (const auto& [response, learners] : c.wrong) {
                    std::string reason;
                    if (block) {
                        for (const auto& o : block->options) if (o.key == response) reason = o.feedback_markdown;
                    }
                    h += "<li><b>" + icl::markup_escape(response) + "</b> (" + std::to_string(learners) + ") <span class=\"reason\">" +
                         icl::markup_escape(reason.empty() ? t("noReason") : one_line(reason)) + "</span></li>";
                }
                h += "</ul>";
            }
            h += "</td></tr>\n";
        }
        h += "</table>\n";
    }
    h += "<h2>" + icl::markup_escape(t("learners")) + "</h2>\n<table>\n<tr><th>" + icl::markup_escape(t("learner")) + "</th><th>" + icl::markup_escape(t("progress")) + "</th><th>" +
         icl::markup_escape(t("right")) + "</th></tr>\n";
    for (const auto& L : r.learners) {
        h += "<tr><td>" + icl::markup_escape(L.name) + "</td><td class=\"n\">" + std::to_string(L.answered) + " / " + std::to_string(r.total_checks) +
             "</td><td class=\"n\">" + std::to_string(L.right) + "</td></tr>\n";
    }
    h += "</table>\n</body>\n</html>\n";
    if (!write_whole(out, h)) return failed("class report: cannot write '" + out + "'");
    std::printf("wrote %s: %zu learners, %d checks\n", out.c_str(), r.learners.size(), r.total_checks);
    return 0;
}
