#include "teachers.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "icl/data_dir.h"
#include "icl/file_read.h"
#include "icl/lesson_set.h"
#include "icl/package.h"
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

