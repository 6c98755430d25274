// The battery's offline HTML page: plain HTML and inline CSS, no script and no network
// (reports.h states the contract).
#include <sstream>
#include <string>

#include "mutations/runner/reports.h"
#include "tools/markup.h"

namespace music3::battery {

using tools::markup_escape;

std::string report_html(const RunRecord& run) {
  size_t as_expected = 0;
  for (const auto& r : run.mutations) as_expected += r.as_expected;
  const Provenance& p = run.provenance;
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>music3 mutation battery " << markup_escape(p.revision)
    << "</title>\n<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}"
       "td,th{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}"
       ".ok{background:#dfd}.bad{background:#fdd}code{font-size:90%}</style>\n</head>\n<body>\n"
    << "<h1>Mutation battery</h1>\n<p>revision <code>" << markup_escape(p.revision) << "</code>, " << markup_escape(p.date) << ", "
    << markup_escape(p.machine) << ", label " << markup_escape(p.label.empty() ? "all" : p.label) << "; " << as_expected << " of "
    << run.mutations.size() << " mutations as expected" << (run.void_run ? "; <b>VOID RUN</b>" : "")
    << (run.stopped.empty() ? "" : "; stopped: " + markup_escape(run.stopped)) << ".</p>\n<p>command <code>"
    << markup_escape(p.command) << "</code></p>\n<table>\n<tr><th>#</th><th>mutation</th><th>component</th><th>file</th>"
       "<th>expected</th><th>outcome</th><th>gates</th><th>files</th></tr>\n";
  for (const auto& r : run.mutations) {
    const Mutation& m = r.mutation;
    std::string gates;
    for (const auto& g : r.gates) gates += markup_escape(g.gate) + ": " + verdict_name(g.verdict) + "<br>";
    h << "<tr class=\"" << (r.as_expected ? "ok" : "bad") << "\"><td>" << r.index << "</td><td><b>" << markup_escape(m.id)
      << "</b><br>" << markup_escape(m.description) << "</td><td>" << markup_escape(m.component) << "</td><td><code>"
      << markup_escape(m.file) << ":" << r.start.line << "</code></td><td>" << expected_name(m.expected) << "</td><td>"
      << outcome_name(r.outcome) << (r.detail.empty() ? "" : "<br>" + markup_escape(r.detail)) << "</td><td>" << gates
      << "</td><td><a href=\"diff/" << markup_escape(m.id) << ".diff\">diff</a> <a href=\"log/" << markup_escape(m.id)
      << ".log\">log</a></td></tr>\n";
  }
  h << "</table>\n<p>Verifications: " << run.verifications.size()
    << "; the machine-readable report is <a href=\"mutation.json\">mutation.json</a> (Stryker schema), the "
       "provenance <a href=\"summary.md\">summary.md</a>.</p>\n</body>\n</html>\n";
  return h.str();
}

}  // namespace music3::battery
