// `icl lessons package`'s pieces: the stored zip (CRC-32 against the standard check
// value, the byte layout against APPNOTE's fixed offsets), the SCORM manifest (escaping,
// the attribute each version spells, IDs), the xAPI setting written into a page and the
// endpoints and auth values refused. The archive as a whole is read back by `unzip -t`
// in tests/cli/run.sh and the package run in Chromium by tests/browser/scorm.spec.mjs.
#include <doctest/doctest.h>

#include <string>

#include "icl/package.h"
#include "icl/zip.h"

namespace pk = icl::package;

namespace {
uint32_t u32(const std::string& s, size_t at) {
    return uint32_t((unsigned char)s[at]) | uint32_t((unsigned char)s[at + 1]) << 8 |
           uint32_t((unsigned char)s[at + 2]) << 16 | uint32_t((unsigned char)s[at + 3]) << 24;
}
uint32_t u16(const std::string& s, size_t at) { return uint32_t((unsigned char)s[at]) | uint32_t((unsigned char)s[at + 1]) << 8; }
}  // namespace

TEST_CASE("zip: CRC-32 check values and a two-file archive's layout") {
    CHECK(icl::zip::crc32("") == 0u);
    CHECK(icl::zip::crc32("123456789") == 0xCBF43926u);  // the CRC-32/ISO-HDLC check value
    CHECK(icl::zip::crc32("a") == 0xE8B7BE43u);
    const std::string z = icl::zip::store({{"a.txt", "a"}, {"d/b", ""}});
    // local header 1 at 0: 30 bytes + name (5) + data (1) = 36; local header 2 at 36:
    // 30 + 3 + 0 = 33 -> central directory at 69: 46 + 5, 46 + 3 = 100 bytes; end record 22.
    REQUIRE(z.size() == 69u + 100u + 22u);
    CHECK(u32(z, 0) == 0x04034b50u);
    CHECK(u32(z, 14) == 0xE8B7BE43u);             // CRC of "a"
    CHECK(u32(z, 18) == 1u); CHECK(u32(z, 22) == 1u);
    CHECK(z.substr(30, 5) == "a.txt"); CHECK(z[35] == 'a');
    CHECK(u32(z, 36) == 0x04034b50u);
    CHECK(u32(z, 69) == 0x02014b50u);
    CHECK(u32(z, 69 + 42) == 0u);                 // offset of local header 1
    CHECK(u32(z, 69 + 51 + 42) == 36u);           // offset of local header 2
    const size_t end = z.size() - 22;
    CHECK(u32(z, end) == 0x06054b50u);
    CHECK(u16(z, end + 10) == 2u);
    CHECK(u32(z, end + 12) == 100u);
    CHECK(u32(z, end + 16) == 69u);
    CHECK(icl::zip::fits({{"x", "y"}}));
}

TEST_CASE("package: the SCORM 1.2 and 2004 manifests") {
    pk::Course c{"icl-lab-en", "ICL <Lab> & co", {{"dual-form", "Attention \"is\" GD", "en/dual-form.html"}},
                 {"assets/a b.js", "en/dual-form.html"}};
    const std::string m12 = pk::manifest(c, pk::Scorm::v1_2);
    CHECK(m12.find("<schemaversion>1.2</schemaversion>") != std::string::npos);
    CHECK(m12.find("xmlns=\"http://www.imsproject.org/xsd/imscp_rootv1p1p2\"") != std::string::npos);
    CHECK(m12.find("adlcp:scormtype=\"sco\" href=\"en/dual-form.html\"") != std::string::npos);
    CHECK(m12.find("adlcp:scormtype=\"asset\"") != std::string::npos);
    CHECK(m12.find("<title>ICL &lt;Lab&gt; &amp; co</title>") != std::string::npos);
    CHECK(m12.find("<title>Attention &quot;is&quot; GD</title>") != std::string::npos);
    CHECK(m12.find("<file href=\"assets/a%20b.js\"/>") != std::string::npos);
    CHECK(m12.find("identifier=\"item-dual-form\" identifierref=\"sco-dual-form\"") != std::string::npos);
    CHECK(m12.find("<dependency identifierref=\"shared\"/>") != std::string::npos);
    const std::string m04 = pk::manifest(c, pk::Scorm::v2004);
    CHECK(m04.find("<schemaversion>2004 4th Edition</schemaversion>") != std::string::npos);
    CHECK(m04.find("xmlns=\"http://www.imsglobal.org/xsd/imscp_v1p1\"") != std::string::npos);
    CHECK(m04.find("adlcp:scormType=\"sco\"") != std::string::npos);
    CHECK(m04.find("scormtype") == std::string::npos);
}

TEST_CASE("package: the xAPI endpoint and auth are checked, then written into a page") {
    CHECK(pk::check_endpoint("https://lrs.example.org/xapi").value() == "https://lrs.example.org/xapi/");
    CHECK(pk::check_endpoint("http://127.0.0.1:8080").value() == "http://127.0.0.1:8080/");
    for (const char* bad : {"ftp://x/", "https://", "https://u:p@x/", "https://x/a?b=1", "https://x/a#f",
                            "https://x\"/", "https://x/ a", "https://x/a';script-src *", "lrs.example.org"}) {
        CAPTURE(bad);
        CHECK_FALSE(pk::check_endpoint(bad));
    }
    CHECK(pk::origin_of("https://lrs.example.org:8443/a/b/") == "https://lrs.example.org:8443");
    CHECK(pk::check_auth("Basic YWJjOmRlZg=="));
    CHECK_FALSE(pk::check_auth("Basic \"x\""));
    CHECK_FALSE(pk::check_auth("Basic x\ny"));
    const std::string page = "<head>\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; connect-src 'self'; worker-src 'self'\">\n</head>";
    const auto w = pk::with_xapi(page, {"https://lrs.example.org/xapi/", "Basic abc="});
    REQUIRE(w);
    CHECK(w.value() == "<head>\n<meta name=\"icl-xapi-endpoint\" content=\"https://lrs.example.org/xapi/\">\n"
                       "<meta name=\"icl-xapi-auth\" content=\"Basic abc=\">\n"
                       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; "
                       "connect-src 'self' https://lrs.example.org; worker-src 'self'\">\n</head>");
    CHECK_FALSE(pk::with_xapi("<head></head>", {"https://x/", ""}));
}
