#include "tools/ops/verify/verify_report.h"

#include <array>

#include <nlohmann/json.hpp>

#include "tools/ops/common/sink.h"

namespace kseg {

namespace {


Counts count(const Findings& f) {
  Counts c{};
  for (const auto& p : f.problems) ++c[static_cast<size_t>(p.severity)];
  for (const auto& [file, s] : f.suppressed)
    for (size_t i = 0; i < c.size(); ++i) c[i] += s[i];
  return c;
}

std::string counts_text(const Counts& c) {
  return fmt::format("{} error{}, {} warning{}, {} info", c[2], c[2] == 1 ? "" : "s", c[1], c[1] == 1 ? "" : "s",
                     c[0]);
}

const char* kind_name(Target::Kind k) {
  return k == Target::partition ? "partition" : k == Target::log_dir ? "log_dir" : "file";
}

nlohmann::ordered_json counts_json(const Counts& c) {
  return {{"errors", c[2]}, {"warnings", c[1]}, {"info", c[0]}};
}

nlohmann::ordered_json target_json(const TargetResult& r) {
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const auto& f : r.findings.files)
    files.push_back({{"file", f.file}, {"kind", f.kind}, {"size_bytes", f.size_bytes},
                     {"checked_bytes", f.checked_bytes}, {"entries", f.entries}});
  nlohmann::ordered_json j{{"kind", kind_name(r.target.kind)}, {"path", r.target.path}};
  if (r.target.kind == Target::partition) {
    j["segments"] = r.segments;
    j["log_start_offset"] = r.log_start;
    j["log_end_offset"] = r.log_end;
  }
  j["files"] = files;
  j["summary"] = counts_json(count(r.findings));
  return j;
}

const char* depth_name(VerifyDepth d) {
  return d == VerifyDepth::quick ? "quick" : d == VerifyDepth::deep ? "deep" : "normal";
}

}  // namespace

int report(const VerifyOptions& opts, const std::vector<TargetResult>& results,
           const std::vector<std::string>& io_errors_in, const std::vector<std::string>& nothing, Sink& out, Sink& err) {
  std::vector<std::string> io_errors = io_errors_in;
  const bool only_nothing = io_errors.empty() && !nothing.empty() && !opts.allow_empty;
  if (!opts.allow_empty)
    for (const auto& p : nothing)
      io_errors.push_back(fmt::format("{}: nothing to check: no Kafka partition or file of a known kind (--allow-empty "
                                      "accepts this)",
                                      p));
  Counts total{};
  int64_t files = 0, bytes = 0, partitions = 0;
  for (const auto& r : results) {
    const Counts c = count(r.findings);
    for (size_t i = 0; i < 3; ++i) total[i] += c[i];
    files += static_cast<int64_t>(r.findings.files.size());
    for (const auto& f : r.findings.files) bytes += f.checked_bytes;
    partitions += r.target.kind == Target::partition;
    io_errors.insert(io_errors.end(), r.findings.io_errors.begin(), r.findings.io_errors.end());
  }
  bool failed = false;
  for (size_t s = static_cast<size_t>(opts.fail_on); s < 3; ++s) failed = failed || total[s] > 0;
  const int exit = !io_errors.empty() ? kExitIo : failed ? kExitProblems : kExitOk;
  if (opts.format == VerifyFormat::json) {
    nlohmann::ordered_json targets = nlohmann::ordered_json::array(), problems = nlohmann::ordered_json::array(),
                           suppressed = nlohmann::ordered_json::array();
    for (const auto& r : results) {
      targets.push_back(target_json(r));
      for (const auto& p : r.findings.problems) problems.push_back(problem_json(p));
      for (const auto& [file, c] : r.findings.suppressed) {
        if (c[0] + c[1] + c[2] == 0) continue;
        nlohmann::ordered_json s{{"file", file}};
        s.update(counts_json(c));
        suppressed.push_back(s);
      }
    }
    nlohmann::ordered_json doc{{"tool", "kseg-verify"}, {"schema_version", 1}, {"depth", depth_name(opts.depth)},
                               {"fail_on", severity_name(opts.fail_on)}, {"targets", targets},
                               {"problems", problems}, {"io_errors", io_errors}};
    // Problems past --max-problems in a file, counted only.
    if (!suppressed.empty()) doc["suppressed"] = suppressed;
    nlohmann::ordered_json summary{{"partitions", partitions}, {"files", files}, {"checked_bytes", bytes}};
    summary.update(counts_json(total));
    summary["exit_code"] = exit;
    doc["summary"] = summary;
    out.write(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));  // file text in messages may not be UTF-8
    out.put('\n');
    return exit;
  }
  for (const auto& e : io_errors) err.print("kseg-verify: {}\n", e);
  for (const auto& r : results) {
    for (const auto& p : r.findings.problems)
      if (p.severity != Severity::info || opts.show_info) out.print("{}\n", problem_text(p));
    for (const auto& [file, c] : r.findings.suppressed)
      if (c[0] + c[1] + c[2] > 0)
        out.print("{}: {} more problems not shown ({}): --max-problems {} per file and code\n", file, c[0] + c[1] + c[2],
                  counts_text(c), Findings::max_per_file());
    if (r.target.kind == Target::partition)
      out.print("{}: {} segment{}, {} files: {}\n", r.target.path, r.segments, r.segments == 1 ? "" : "s",
                r.findings.files.size(), counts_text(count(r.findings)));
  }
  out.print("total: {} partition{}, {} files, {} bytes checked: {}: {}\n", partitions, partitions == 1 ? "" : "s",
            files, bytes, counts_text(total), exit == kExitOk          ? "OK"
            : exit != kExitIo        ? "FAILED"
            : only_nothing && total[1] + total[2] == 0 ? "NOTHING CHECKED"
                                                                   : "I/O ERROR");
  return exit;
}

}  // namespace kseg
