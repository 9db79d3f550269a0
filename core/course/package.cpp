#include "icl/package.h"

#include <cctype>

#include "icl/format.h"

namespace icl::package {

namespace {

// A path as a URI reference (the manifest's href): bytes outside the unreserved set and
// '/' percent-encoded, then XML-escaped.
std::string href(const std::string& path) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : path) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') out += char(c);
        else { out += '%'; out += hex[c >> 4]; out += hex[c & 15]; }
    }
    return markup_escape(out);
}

// An XML ID (NCName) from a lesson id: letters, digits, '-', '_', '.'; others become '_'.
std::string xml_id(const std::string& prefix, const std::string& id) {
    std::string out = prefix;
    for (unsigned char c : id) out += (std::isalnum(c) || c == '-' || c == '_' || c == '.') ? char(c) : '_';
    return out;
}

}  // namespace

std::string manifest(const Course& course, Scorm version) {
    const bool v12 = version == Scorm::v1_2;
    std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x += "<manifest identifier=\"" + xml_id("", course.identifier) + "\" version=\"1\"\n";
    if (v12) {
        x += "  xmlns=\"http://www.imsproject.org/xsd/imscp_rootv1p1p2\"\n"
             "  xmlns:adlcp=\"http://www.adlnet.org/xsd/adlcp_rootv1p2\"\n"
             "  xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
             "  xsi:schemaLocation=\"http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd "
             "http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd "
             "http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd\">\n"
             "  <metadata>\n    <schema>ADL SCORM</schema>\n    <schemaversion>1.2</schemaversion>\n  </metadata>\n";
    } else {
        x += "  xmlns=\"http://www.imsglobal.org/xsd/imscp_v1p1\"\n"
             "  xmlns:adlcp=\"http://www.adlnet.org/xsd/adlcp_v1p3\"\n"
             "  xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
             "  xsi:schemaLocation=\"http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd "
             "http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd\">\n"
             "  <metadata>\n    <schema>ADL SCORM</schema>\n    <schemaversion>2004 4th Edition</schemaversion>\n  </metadata>\n";
    }
    x += "  <organizations default=\"org\">\n    <organization identifier=\"org\">\n";
    x += "      <title>" + markup_escape(course.title) + "</title>\n";
    for (const Sco& s : course.scos) {
        x += "      <item identifier=\"" + xml_id("item-", s.id) + "\" identifierref=\"" + xml_id("sco-", s.id) +
             "\" isvisible=\"true\">\n        <title>" + markup_escape(s.title) + "</title>\n      </item>\n";
    }
    x += "    </organization>\n  </organizations>\n  <resources>\n";
    const std::string type = v12 ? "adlcp:scormtype" : "adlcp:scormType";
    for (const Sco& s : course.scos) {
        x += "    <resource identifier=\"" + xml_id("sco-", s.id) + "\" type=\"webcontent\" " + type + "=\"sco\" href=\"" +
             href(s.href) + "\">\n      <file href=\"" + href(s.href) + "\"/>\n      <dependency identifierref=\"shared\"/>\n    </resource>\n";
    }
    x += "    <resource identifier=\"shared\" type=\"webcontent\" " + type + "=\"asset\">\n";
    for (const std::string& f : course.files) x += "      <file href=\"" + href(f) + "\"/>\n";
    x += "    </resource>\n  </resources>\n</manifest>\n";
    return x;
}

Expected<std::string> check_endpoint(const std::string& url) {
    const auto bad = [&](const std::string& why) {
        return make_error("the xAPI endpoint '" + url + "' " + why + " (expected e.g. https://lrs.example.org/xapi/)");
    };
    size_t rest;
    if (url.rfind("https://", 0) == 0) rest = 8;
    else if (url.rfind("http://", 0) == 0) rest = 7;
    else return bad("is not an http or https address");
    const size_t slash = url.find('/', rest);
    const std::string host = url.substr(rest, slash == std::string::npos ? std::string::npos : slash - rest);
    if (host.empty()) return bad("has no host");
    for (unsigned char c : host) {
        if (c == '@') return bad("holds a user name or password (give the key with --xapi-auth)");
        if (!(std::isalnum(c) || c == '.' || c == '-' || c == ':' || c == '[' || c == ']')) return bad("has a character a host name cannot have");
    }
    std::string path = slash == std::string::npos ? "/" : url.substr(slash);
    for (unsigned char c : path) {
        if (c == '?' || c == '#') return bad("has a query or fragment");
        if (!(std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~' || c == '%')) return bad("has a character its path cannot have here");
    }
    if (path.back() != '/') path += '/';
    return url.substr(0, rest) + host + path;
}

std::string origin_of(const std::string& endpoint) {
    const size_t rest = endpoint.find("://") + 3;
    return endpoint.substr(0, endpoint.find('/', rest));
}

Status check_auth(const std::string& auth) {
    if (auth.size() > 1000) return make_error("the xAPI auth value is longer than 1,000 characters");
    for (unsigned char c : auth) {
        if (c < 0x20 || c > 0x7E || c == '"' || c == '\'' || c == '<' || c == '>' || c == '&')
            return make_error("the xAPI auth value holds a character that is not printable ASCII, or a quote, < > or &");
    }
    return Ok{};
}

Expected<std::string> with_xapi(const std::string& html, const Xapi& xapi) {
    const std::string csp = "connect-src 'self'", tag = "<meta http-equiv=\"Content-Security-Policy\"";
    const size_t at = html.find(csp), meta = html.find(tag);
    if (at == std::string::npos || meta == std::string::npos || html.find(csp, at + 1) != std::string::npos)
        return make_error("the page has no Content-Security-Policy with one connect-src 'self' (not a page of this site's build)");
    std::string out = html;
    out.insert(at + csp.size(), " " + origin_of(xapi.endpoint));
    std::string metas = "<meta name=\"icl-xapi-endpoint\" content=\"" + markup_escape(xapi.endpoint) + "\">\n";
    if (!xapi.auth.empty()) metas += "<meta name=\"icl-xapi-auth\" content=\"" + markup_escape(xapi.auth) + "\">\n";
    out.insert(meta, metas);  // before the CSP meta, whose position did not move
    return out;
}

}  // namespace icl::package
