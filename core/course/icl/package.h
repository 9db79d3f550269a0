// `icl lessons package`: what turns the built site into a package for a learning
// platform — the SCORM manifest (imsmanifest.xml) and the teacher's xAPI setting written
// into the pages. The CLI reads the site and writes the zip (icl/zip.h); this file only
// makes text, so it is portable and tested without files.
//
// The package is the site as built (every page, the wasm core, KaTeX's CSS), with each
// lesson of one language a SCO (its page the SCO's launch file) and every file listed in
// one shared asset resource the SCOs depend on. SCORM 1.2 (ADL's imscp_rootv1p1p2 and
// adlcp_rootv1p2 namespaces) or SCORM 2004 4th edition (imscp_v1p1, adlcp_v1p3; no
// sequencing rules: the platform's defaults, a flow the learner chooses).
//
// The xAPI setting: an LRS endpoint (and optionally the Authorization header value the
// LRS gave the teacher) goes into each page as <meta name="icl-xapi-endpoint"> and
// <meta name="icl-xapi-auth">, and the endpoint's origin is added to the page's
// Content-Security-Policy connect-src, which otherwise allows 'self' only. No endpoint,
// no change: the pages send nothing anywhere (web/src/platform.js).
#pragma once
#include <string>
#include <vector>

#include "icl/expected.h"

namespace icl::package {

enum class Scorm { v1_2, v2004 };

struct Sco {
    std::string id;     // the lesson id (an XML ID is made from it)
    std::string title;  // the lesson's title, as the platform lists it
    std::string href;   // its page, relative to the package root ("en/dual-form.html")
};

struct Course {
    std::string identifier;          // the manifest's identifier ("icl-lab-en")
    std::string title;               // the organization's title
    std::vector<Sco> scos;           // in the course's order
    std::vector<std::string> files;  // every file of the package but the manifest, sorted
};

// The imsmanifest.xml text.
std::string manifest(const Course& course, Scorm version);

struct Xapi {
    std::string endpoint;  // "https://lrs.example.org/xapi/" (a trailing / is added)
    std::string auth;      // the Authorization header value, or empty
};

// The endpoint checked and normalised (one trailing /): http or https, a host name or
// address and an optional path; no user:password@, query, fragment, quotes or spaces
// (it goes into an HTML attribute and a CSP). An error names what is wrong.
Expected<std::string> check_endpoint(const std::string& url);
// scheme://host[:port] of a checked endpoint.
std::string origin_of(const std::string& endpoint);
// The auth value checked: printable ASCII, no quotes or angle brackets, at most 1,000
// characters.
Status check_auth(const std::string& auth);
// A site page with the setting written in (see above). A page without the site's CSP
// (connect-src 'self') is an error: the build it came from is not this site's.
Expected<std::string> with_xapi(const std::string& html, const Xapi& xapi);

}  // namespace icl::package
