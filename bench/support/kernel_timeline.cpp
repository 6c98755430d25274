#include "bench/support/kernel_timeline.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace music3::bench {
namespace {

std::string erase_all(std::string s, const std::string& what) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at)) s.erase(at, what.size());
  return s;
}

}  // namespace

std::string short_kernel_name(const std::string& demangled) {
  std::string s = demangled;
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  if (!s.empty() && s.back() == ')') {  // the parameter list: from its matching '(' to the end
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
      if (depth == 0) {
        s.erase(i);
        break;
      }
    }
  }
  return erase_all(erase_all(erase_all(s, "(anonymous namespace)::"), "music3::ops::"), "music3::");
}

KernelTimeline summarize_kernels(std::vector<KernelRecord> records, int steps) {
  if (steps < 1 || records.empty() || records.size() % size_t(steps) != 0)
    throw std::invalid_argument("kernel trace: " + std::to_string(records.size()) + " kernels do not split into " +
                                std::to_string(steps) + " steps of the same kernels");
  for (const KernelRecord& r : records)
    if (r.end_ns < r.start_ns) throw std::invalid_argument("kernel trace: '" + r.name + "' ends before it starts");
  std::stable_sort(records.begin(), records.end(),
                   [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
  KernelTimeline t;
  t.steps = steps;
  t.kernels_per_step = int(records.size() / size_t(steps));
  std::map<std::string, KernelRow> by_name;
  std::vector<std::string> order;  // first-seen order, for ties in the sort below
  for (int s = 0; s < steps; ++s) {
    const auto first = records.begin() + std::ptrdiff_t(s) * t.kernels_per_step;
    uint64_t frontier = first->start_ns;  // the latest end so far in this step
    for (auto k = first; k != first + t.kernels_per_step; ++k) {
      const std::string name = short_kernel_name(k->name);
      auto [row, added] = by_name.try_emplace(name);
      if (added) {
        row->second.name = name;
        order.push_back(name);
      }
      const double idle = k->start_ns > frontier ? double(k->start_ns - frontier) : 0.0;
      const double exposed = k->end_ns > std::max(k->start_ns, frontier) ? double(k->end_ns - std::max(k->start_ns, frontier)) : 0.0;
      row->second.calls += 1;
      row->second.busy_us += double(k->end_ns - k->start_ns) / 1e3;
      row->second.exposed_us += exposed / 1e3;
      row->second.idle_before_us += idle / 1e3;
      frontier = std::max(frontier, k->end_ns);
    }
    t.span_us += double(frontier - first->start_ns) / 1e3;
  }
  for (const std::string& name : order) {
    KernelRow row = by_name[name];
    row.calls /= steps;
    row.busy_us /= steps;
    row.exposed_us /= steps;
    row.idle_before_us /= steps;
    t.busy_us += row.busy_us;
    t.exposed_us += row.exposed_us;
    t.idle_us += row.idle_before_us;
    t.rows.push_back(row);
  }
  t.span_us /= steps;
  std::stable_sort(t.rows.begin(), t.rows.end(),
                   [](const KernelRow& a, const KernelRow& b) { return a.exposed_us > b.exposed_us; });
  return t;
}

std::vector<KernelRecord> whole_periods(std::vector<KernelRecord> records, const std::string& anchor, int skip,
                                        int count) {
  std::stable_sort(records.begin(), records.end(),
                   [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
  std::vector<size_t> anchors;
  for (size_t i = 0; i < records.size(); ++i)
    if (short_kernel_name(records[i].name).find(anchor) != std::string::npos) anchors.push_back(i);
  if (skip < 0 || count < 1 || anchors.size() < size_t(skip + count + 1))
    throw std::invalid_argument("kernel trace: " + std::to_string(anchors.size()) + " kernels named '" + anchor +
                                "', fewer than the " + std::to_string(skip + count + 1) + " that " +
                                std::to_string(count) + " whole periods after " + std::to_string(skip) + " need");
  return {records.begin() + std::ptrdiff_t(anchors[size_t(skip)]),
          records.begin() + std::ptrdiff_t(anchors[size_t(skip + count)])};
}

void print_kernel_timeline(std::ostream& out, const KernelTimeline& t) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "kernel trace (CUPTI, production step): %d kernels per step, mean of %d steps\n"
                "%-64s %6s %10s %10s %10s %8s\n",
                t.kernels_per_step, t.steps, "kernel", "calls", "busy us", "exposed us", "idle-before", "us/call");
  out << buf;
  for (const KernelRow& r : t.rows) {
    const std::string name = r.name.size() > 64 ? r.name.substr(0, 61) + "..." : r.name;
    std::snprintf(buf, sizeof buf, "%-64s %6d %10.1f %10.1f %10.1f %8.2f\n", name.c_str(), r.calls, r.busy_us,
                  r.exposed_us, r.idle_before_us, r.calls ? r.busy_us / r.calls : 0.0);
    out << buf;
  }
  std::snprintf(buf, sizeof buf,
                "step span %.1f us = exposed %.1f + idle %.1f (no kernel running: launch gaps and waits PDL left); "
                "kernels busy %.1f us (overlap %.1f)\n",
                t.span_us, t.exposed_us, t.idle_us, t.busy_us, t.busy_us - t.exposed_us);
  out << buf;
}

nlohmann::json kernel_timeline_json(const KernelTimeline& t) {
  nlohmann::json j = {{"steps", t.steps},       {"kernels_per_step", t.kernels_per_step},
                      {"span_us", t.span_us},   {"busy_us", t.busy_us},
                      {"exposed_us", t.exposed_us}, {"idle_us", t.idle_us}};
  j["kernels"] = nlohmann::json::array();
  for (const KernelRow& r : t.rows)
    j["kernels"].push_back({{"kernel", r.name},
                            {"calls_per_step", r.calls},
                            {"busy_us", r.busy_us},
                            {"exposed_us", r.exposed_us},
                            {"idle_before_us", r.idle_before_us}});
  return j;
}

}  // namespace music3::bench
