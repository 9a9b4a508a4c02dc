// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/verify/verify_report.h"

#include <array>
#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "lib/units.h"
#include "tools/ops/common/envelope.h"
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

// A target's problems (each with its remedy) and its counts past
// --max-problems, as JSON objects, to `problem` and `suppressed`: the one
// form of the json and the jsonl reports.
template <class P, class S>
void findings_json(const TargetResult& r, P&& problem, S&& suppressed) {
  for (const auto& p : r.findings.problems) {
    auto j = problem_json(p);
    j["remedy"] = code_info(p.code).remedy;
    problem(j);
  }
  for (const auto& [file, s] : r.findings.suppressed) {
    if (s[0] + s[1] + s[2] == 0) continue;
    nlohmann::ordered_json j{{"file", file}};
    j.update(counts_json(s));
    suppressed(j);
  }
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

// Pretty JSON at `depth` levels of two spaces, as nlohmann prints a value
// nested that deep in a document (strings hold no raw newline).
std::string nested(const nlohmann::ordered_json& j, size_t depth) {
  const std::string s = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);  // file text may not be UTF-8
  std::string indented;
  indented.reserve(s.size());
  for (char c : s) {
    indented.push_back(c);
    if (c == '\n') indented.append(depth * 2, ' ');
  }
  return indented;
}

// One more element of an array that is a member of the report object.
void element(Spill& to, const nlohmann::ordered_json& j) {
  to.append(to.empty() ? "\n    " : ",\n    ");
  to.append(nested(j, 2));
}

}  // namespace

Spill::~Spill() {
  if (file_ != nullptr) std::fclose(file_);
}

void Spill::append(std::string_view s) {
  empty_ = empty_ && s.empty();
  buf_.append(s);
  if (buf_.size() < (1u << 20) || no_file_) return;
  if (file_ == nullptr) file_ = std::tmpfile();
  if (file_ == nullptr) {  // no temporary file to be had: memory, rather than no report
    no_file_ = true;
    return;
  }
  errno = 0;
  if (error_ == 0 && std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) error_ = errno ? errno : EIO;
  buf_.clear();
}

bool Spill::copy_to(Sink& out) {
  if (error_ == 0 && file_ != nullptr) {
    char block[1 << 16];
    errno = 0;
    if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0) error_ = errno ? errno : EIO;
    else
      for (size_t got; error_ == 0 && (got = std::fread(block, 1, sizeof block, file_)) > 0;) out.write({block, got});
    if (error_ == 0 && std::ferror(file_)) error_ = errno ? errno : EIO;
  }
  if (error_ != 0) return false;
  out.write(buf_);
  return true;
}

nlohmann::ordered_json VerifyReport::head() const {
  nlohmann::ordered_json head = json_envelope("kseg-verify");
  head["schema_version"] = 1;  // before the envelope's "schema"; kept for the readers of schema 1
  head["depth"] = depth_name(opts_.depth);
  head["fail_on"] = severity_name(opts_.fail_on);
  return head;
}

int VerifyReport::exit_for(const Counts& c, bool io_errors) const {
  bool failed = false;
  for (size_t s = static_cast<size_t>(opts_.fail_on); s < 3; ++s) failed = failed || c[s] > 0;
  return io_errors ? kExitIo : failed ? kExitProblems : kExitOk;
}

void VerifyReport::line(const TargetResult* r, const std::vector<std::string>& io_errors,
                        nlohmann::ordered_json summary) {
  nlohmann::ordered_json doc = head();
  doc["targets"] = nlohmann::ordered_json::array();
  doc["problems"] = nlohmann::ordered_json::array();
  nlohmann::ordered_json suppressed = nlohmann::ordered_json::array();
  if (r) {
    doc["targets"].push_back(target_json(*r));
    findings_json(*r, [&](auto& j) { doc["problems"].push_back(std::move(j)); },
                  [&](auto& j) { suppressed.push_back(std::move(j)); });
  }
  doc["io_errors"] = io_errors;
  if (!suppressed.empty()) doc["suppressed"] = std::move(suppressed);
  doc["summary"] = std::move(summary);
  out_.print("{}\n", doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  out_.flush();
}

VerifyReport::VerifyReport(const VerifyOptions& opts, Sink& out, Sink& err, const std::vector<std::string>& io_errors)
    : opts_(opts), out_(out), err_(err), path_errors_(io_errors) {
  if (opts_.format != VerifyFormat::json) return;
  std::string text = nested(head(), 0);
  text.resize(text.size() - 2);  // "\n}": the document goes on
  out_.write(text);
  out_.write(",\n  \"targets\": [");
}

void VerifyReport::add(const TargetResult& r) {
  const Counts c = count(r.findings);
  for (size_t i = 0; i < 3; ++i) total_[i] += c[i];
  files_ += static_cast<int64_t>(r.findings.files.size());
  for (const auto& f : r.findings.files) bytes_ += f.checked_bytes;
  partitions_ += r.target.kind == Target::partition;
  target_errors_.insert(target_errors_.end(), r.findings.io_errors.begin(), r.findings.io_errors.end());
  if (opts_.format == VerifyFormat::jsonl) {
    int64_t checked = 0;
    for (const auto& f : r.findings.files) checked += f.checked_bytes;
    nlohmann::ordered_json summary{{"partitions", r.target.kind == Target::partition ? 1 : 0},
                                   {"files", r.findings.files.size()},
                                   {"checked_bytes", checked}};
    summary.update(counts_json(c));
    summary["exit_code"] = exit_for(c, !r.findings.io_errors.empty());
    line(&r, r.findings.io_errors, std::move(summary));
    return;
  }
  if (opts_.format == VerifyFormat::json) {
    out_.write(any_target_ ? ",\n    " : "\n    ");
    out_.write(nested(target_json(r), 2));
    any_target_ = true;
    findings_json(r, [&](const auto& j) { element(problems_, j); }, [&](const auto& j) { element(suppressed_, j); });
    return;
  }
  for (const auto& p : r.findings.problems) {
    if (p.severity == Severity::info && !opts_.show_info) continue;
    out_.print("{}\n", problem_text(p));
    // What fixes it, under the first error of each code in the run.
    if (p.severity == Severity::error && remedied_.insert(p.code).second)
      out_.print("  fix: {}\n", code_info(p.code).remedy);
  }
  for (const auto& [file, s] : r.findings.suppressed)
    if (s[0] + s[1] + s[2] > 0)
      out_.print("{}: {} more problems not shown ({}): --max-problems {} per file and code\n", file, s[0] + s[1] + s[2],
                 counts_text(s), Findings::max_per_file());
  if (r.target.kind == Target::partition)
    out_.print("{}: {} segment{}, {} files: {}\n", r.target.path, r.segments, r.segments == 1 ? "" : "s",
               r.findings.files.size(), counts_text(c));
}

int VerifyReport::finish(const std::vector<std::string>& nothing) {
  // The paths' errors, the paths with nothing to check, the files' errors.
  std::vector<std::string> io_errors = path_errors_;
  const bool only_nothing = io_errors.empty() && !nothing.empty() && !opts_.allow_empty;
  if (!opts_.allow_empty)
    for (const auto& p : nothing)
      io_errors.push_back(fmt::format(
          "{}: nothing to check: no Kafka partition or file of a known kind (--allow-empty accepts this)", p));
  io_errors.insert(io_errors.end(), target_errors_.begin(), target_errors_.end());
  int exit = exit_for(total_, !io_errors.empty());
  if (opts_.format == VerifyFormat::jsonl) {
    // The run's line: its totals, and the errors no target's line holds.
    nlohmann::ordered_json summary{{"partitions", partitions_}, {"files", files_}, {"checked_bytes", bytes_}};
    summary.update(counts_json(total_));
    summary["exit_code"] = exit;
    std::vector<std::string> own(io_errors.begin(), io_errors.end() - static_cast<long>(target_errors_.size()));
    line(nullptr, own, std::move(summary));
    return exit;
  }
  if (opts_.format == VerifyFormat::json) {
    // A temporary file that could not be written or read back: said on
    // stderr (and in io_errors when it comes before them), exit 3.
    auto lost = [&](const Spill& s, const char* what) {
      const std::string e = fmt::format("the report's {} could not be kept in a temporary file: {}", what,
                                        std::strerror(s.error()));
      err_.print("kseg-verify: {}\n", e);
      io_errors.push_back(e);
      exit = kExitIo;
    };
    out_.write(any_target_ ? "\n  ],\n  \"problems\": [" : "],\n  \"problems\": [");
    if (!problems_.copy_to(out_)) lost(problems_, "problems");
    out_.write(problems_.empty() ? "],\n  \"io_errors\": " : "\n  ],\n  \"io_errors\": ");
    out_.write(nested(nlohmann::ordered_json(io_errors), 1));
    // Problems past --max-problems in a file, counted only.
    if (!suppressed_.empty()) {
      out_.write(",\n  \"suppressed\": [");
      if (!suppressed_.copy_to(out_)) lost(suppressed_, "suppressed counts");
      out_.write("\n  ]");
    }
    nlohmann::ordered_json summary{{"partitions", partitions_}, {"files", files_}, {"checked_bytes", bytes_}};
    summary.update(counts_json(total_));
    summary["exit_code"] = exit;
    out_.write(",\n  \"summary\": ");
    out_.write(nested(summary, 1));
    out_.write("\n}\n");
    return exit;
  }
  for (const auto& e : io_errors) err_.print("kseg-verify: {}\n", e);
  out_.print("total: {} partition{}, {} files, {} checked: {}: {}\n", partitions_, partitions_ == 1 ? "" : "s",
             files_, human_bytes(bytes_), counts_text(total_), exit == kExitOk          ? "OK"
             : exit != kExitIo        ? "FAILED"
             : only_nothing && total_[1] + total_[2] == 0 ? "NOTHING CHECKED"
                                                                     : "I/O ERROR");
  return exit;
}

}  // namespace kseg
