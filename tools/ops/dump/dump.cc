// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/dump/dump.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "formats/file_names.h"
#include "tools/ops/dump/dumper.h"
#include "tools/ops/partition/log_dir.h"
#include "tools/ops/partition/partition_dir.h"
#include "tools/ops/partition/segment_end_code.h"

namespace kseg {

std::string java_file_path(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out += c;
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string absolute_path(const std::string& path) {
  if (!path.empty() && path[0] == '/') return java_file_path(path);
  return java_file_path(std::filesystem::current_path().string() + "/" + path);
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string dir_name(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void Dumper::report(const std::string& path, std::optional<Code> code, const Error& e, bool emit) {
  if (emit) emit_problem(path, code, e);
  const bool fails = !code || code_info(*code).severity == Severity::error;
  const std::string note =
      fails ? std::string() : fmt::format(" [{} {}: not a problem in the data]", severity_name(code_info(*code).severity),
                                          code_name(*code));
  if (e.position)
    err_.print("kseg-dump: {}: position {}: {}{}\n", path, *e.position, e.message, note);
  else
    err_.print("kseg-dump: {}: {}{}\n", path, e.message, note);
  if (fails) exit_ = std::max(exit_, exit_code_for(e.code));
}

void Dumper::index_problem(const std::string& path, Code code, const Error& e) {
  emit_problem(path, code, e);
  if (code_info(code).severity != Severity::error) return;
  index_failed_ = true;
  // Kafka's summary at the end names offsets only; this names the slot's byte position.
  if (opts_.format == OutputFormat::text) {
    if (e.position) err_.print("kseg-dump: {}: position {}: {} [{}]\n", path, *e.position, e.message, code_name(code));
    else err_.print("kseg-dump: {}: {} [{}]\n", path, e.message, code_name(code));
  }
}

bool Dumper::last_segment(const std::string& path, Offset base) const {
  auto layout = read_partition_layout(dir_name(path), Unreadable::list);
  return !layout.ok() || layout->segments.empty() || layout->segments.rbegin()->first <= base;
}

Code Dumper::active_code(const std::string& path, Code preallocated) const {
  return preallocated == Code::timeindex_preallocated && active_indexes_loaded_as_is(dir_name(path))
             ? Code::timeindex_preallocated_loaded
             : preallocated;
}

void Dumper::io_problem(const std::string& path, const std::string& what) {
  report(path, std::nullopt, Error{Errc::io, std::nullopt, what});
}

std::optional<MappedFile> Dumper::mapped(const std::string& path, std::string_view why, int64_t max_bytes) {
  auto f = MappedFile::open(path, max_bytes);
  if (!f.ok()) {
    io_problem(path, f.error().message + std::string(why));
    return std::nullopt;
  }
  return std::move(*f);
}

Code Dumper::zero_tail_code(const std::string& path, Offset base, int64_t file_size) const {
  // preallocate=true sizes the active segment in pages; Kafka's recovery trims the zeros.
  const bool preallocated = base.value >= 0 && file_size % 4096 == 0 && last_segment(path, base);
  return preallocated ? Code::log_preallocated_tail : Code::log_zero_tail;
}

std::optional<DumpProblem> Dumper::log_end_problem(const EntryScanner& scan, const std::string& path, Offset base,
                                                   int64_t file_size) const {
  const SegmentEnd end = scan.end();
  const bool bad_size = end == SegmentEnd::zero_tail || end == SegmentEnd::bad_size;
  // Under --max-bytes a short or torn tail is the cut, not damage.
  if (!bad_size && (scan.trailing().bytes == 0 || opts_.max_bytes != INT32_MAX)) return std::nullopt;
  auto code = segment_end_code(end, true);
  if (!code) return std::nullopt;
  if (end == SegmentEnd::zero_tail) code = zero_tail_code(path, base, file_size);
  return DumpProblem{*code, Error{bad_size ? Errc::bad_length : Errc::truncated, scan.valid_end(),
                                  segment_end_detail(scan)}};
}

Dumper::Pairs& Dumper::pairs_for(std::vector<Pairs>& list, const std::string& abs_path) {
  for (auto& p : list)
    if (p.file == abs_path) return p;
  list.push_back({abs_path, {}});
  return list.back();
}

// The one dispatch on a file's type, for both formats, by its suffix as
// DumpLogSegments matches it; files named by a base offset are parsed as
// Kafka's offsetFromFileName (formats/file_names.h) once, here.
void Dumper::dump_file(const std::string& arg, bool kafka_form) {
  if (arg == "-" && !stdin_as_file()) return;
  const std::string path = arg == "-" ? std::string(kStdinPath) : java_file_path(arg);
  const bool text = opts_.format == OutputFormat::text;
  if (text) out_.print("Dumping {}\n", path);
  const std::string name = base_name(path);
  if (arg == "-") {  // a segment of unknown base offset
    ++read_;
    return log_file(path, "-.log", Offset{-1});
  }
  if (auto kind = state_file_kind(name)) {
    ++read_;
    if (!text || !kafka_form) return state_file(path, *kind);
    // --files is kafka-dump-log's form, whose text output is Kafka's byte for byte.
    err_.print("Ignoring unknown file {}\n", path);
    err_.print("kseg-dump: WARNING {}: not printed under --files, as Kafka's tool does not: name it as a path, "
               "or use --format json\n", path);
    return;
  }
  const auto dot = name.rfind('.');
  const std::string suffix = dot == std::string::npos ? std::string() : name.substr(dot);
  const bool by_offset = suffix == ".log" || suffix == ".index" || suffix == ".timeindex" || suffix == ".txnindex";
  Offset base{-1};
  if (by_offset) {
    auto parsed = file_names::offset_from_file_name(name);
    if (!parsed.ok()) return problem(path, Code::dir_file_name, Error{Errc::bad_value, std::nullopt, "file name does not start with a base offset"});
    base = *parsed;
  }
  if (suffix == ".log" || suffix == ".checkpoint") log_file(path, name, base);
  else if (suffix == ".index") index_file(path, name, base);
  else if (suffix == ".timeindex") time_index_file(path, name, base);
  else if (suffix == ".snapshot") text ? snapshot_text(path) : state_json(path, true);
  else if (suffix == ".txnindex") text ? txn_index_text(path) : state_json(path, false);
  else {
    if (text) err_.print("Ignoring unknown file {}\n", path);  // DumpLogSegments' line, for drop-in use
    else emit({{"type", "file"}, {"file", path}, {"kind", "unknown"}});
    // A file of no known kind among others is skipped with a warning; a
    // mistyped path, or a run that read nothing, is not a clean run.
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      err_.print("kseg-dump: WARNING {}: skipped: not a file kseg-dump reads\n", path);
      ++skipped_;
      return;
    }
    err_.print("kseg-dump: {}: no such file or directory\n", path);
    exit_ = std::max<int>(exit_, kExitIo);
  }
  ++read_;
}

bool Dumper::stdin_as_file() {
  // A segment piped in is copied to an unlinked temporary file, which then
  // stands in for standard input: the dump maps files, and memory does not
  // grow with the segment. A file redirected in is mapped as it is.
  struct stat sb {};
  if (::fstat(0, &sb) != 0) {  // closed: mkstemp would take fd 0 itself
    io_problem("-", fmt::format("standard input: {}", errno_text(errno)));
    return false;
  }
  if (S_ISREG(sb.st_mode)) return true;
  const char* dir = std::getenv("TMPDIR");
  std::string templ = fmt::format("{}/kseg-dump-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
  const int fd = ::mkstemp(templ.data());
  if (fd < 0) {
    io_problem("-", fmt::format("cannot copy standard input to {}: {}", templ, errno_text(errno)));
    return false;
  }
  ::unlink(templ.c_str());
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t n = ::read(0, buf.data(), buf.size());
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    const int err = n < 0 ? errno : write_all(fd, buf.data(), static_cast<size_t>(n));
    if (err != 0) {
      io_problem("-", fmt::format("cannot copy standard input to {}: {}", templ, errno_text(err)));
      ::close(fd);
      return false;
    }
  }
  const bool ok = ::dup2(fd, 0) == 0;
  ::close(fd);
  if (!ok) io_problem("-", fmt::format("dup2: {}", errno_text(errno)));
  return ok;
}

int Dumper::finish() {
  close_json();
  // Kafka's end-of-run summaries on stderr, in its order.
  for (const auto& p : index_mismatches_) {
    // Kafka 4.4 keeps these in a map keyed by index offset, descending.
    std::map<int64_t, int64_t, std::greater<>> ordered;
    for (const auto& [a, b] : p.pairs) ordered[a] = b;
    err_.print("Mismatches in :{}\n", p.file);
    for (const auto& [a, b] : ordered) err_.print("  Index offset: {}, log offset: {}\n", a, b);
  }
  for (const auto& p : time_mismatches_) {
    err_.print("Found timestamp mismatch in :{}\n", p.file);
    for (const auto& [a, b] : p.pairs) err_.print("  Index timestamp: {}, log timestamp: {}\n", a, b);
  }
  for (const auto& p : time_out_of_order_) {
    err_.print("Found out of order timestamp in :{}\n", p.file);
    for (const auto& [a, b] : p.pairs) err_.print("  Index timestamp: {}, Previously indexed timestamp: {}\n", a, b);
  }
  for (const auto& p : time_not_found_) {
    err_.print("The following indexed offsets are not found in :{}\n", p.file);
    for (const auto& [a, b] : p.pairs) err_.print("Indexed offset: {}, found log offset: {}\n", a, b);
  }
  for (const auto& p : non_consecutive_) {
    // Kafka 4.4 keeps these in a map keyed by the first offset, ascending.
    std::map<int64_t, int64_t> ordered;
    for (const auto& [a, b] : p.pairs) ordered[a] = b;
    err_.print("Non-consecutive offsets in {}\n", p.file);
    for (const auto& [a, b] : ordered) err_.print("  {} is followed by {}\n", a, b);
  }
  if (index_failed_ && exit_ == kExitOk) exit_ = kExitProblems;
  if (skipped_ > 0 && read_ == 0) {
    err_.print("kseg-dump: nothing read: {} file{} of no kind kseg-dump reads\n", skipped_, skipped_ == 1 ? "" : "s");
    exit_ = std::max<int>(exit_, kExitIo);
  }
  out_.flush();
  err_.flush();
  return exit_;
}

namespace {

// Whether the offset filters leave out a whole segment: one whose base is
// past --to-offset, or whose next segment starts at or below --from-offset.
// `layouts` keeps each directory's listing, read once.
bool segment_outside(const DumpFilter& f, const std::string& path,
                     std::map<std::string, std::optional<PartitionLayout>>& layouts) {
  if ((!f.from_offset && !f.to_offset) || !path.ends_with(".log")) return false;
  auto base = file_names::offset_from_file_name(base_name(path));
  if (!base.ok()) return false;
  if (f.to_offset && base->value > *f.to_offset) return true;
  if (!f.from_offset) return false;
  const std::string dir = dir_name(java_file_path(path));
  auto [it, fresh] = layouts.try_emplace(dir);
  if (fresh) {
    auto layout = read_partition_layout(dir, Unreadable::list);  // the names only: each file is opened when dumped
    if (layout.ok()) it->second = std::move(*layout);
  }
  if (!it->second) return false;
  const auto& segments = it->second->segments;
  const auto next = segments.upper_bound(*base);
  return next != segments.end() && next->first.value <= *f.from_offset;
}

}  // namespace

int run_dump(const DumpOptions& opts, Sink& out, Sink& err) {
  Dumper d(opts, out, err);
  std::vector<std::string> files;
  std::vector<bool> kafka_form;
  std::map<std::string, std::optional<PartitionLayout>> layouts;
  for (size_t i = 0; i < opts.files.size(); ++i)
    if (!segment_outside(opts.filter, opts.files[i], layouts)) {
      files.push_back(opts.files[i]);
      kafka_form.push_back(i < opts.kafka_form_files);
    }
  // The .log bytes to print: what the progress line counts.
  int64_t total = 0;
  if (opts.progress)
    for (const auto& f : files) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(f, ec);
      if (!ec && (f.ends_with(".log") || f.ends_with(".checkpoint")))
        total += std::min(static_cast<int64_t>(size), opts.max_bytes > 0 ? int64_t{opts.max_bytes} : INT64_MAX);
    }
  Progress progress("kseg-dump", Progress::Unit::bytes, total, opts.progress && total > 0);
  d.set_progress(&progress);
  for (size_t i = 0; i < files.size(); ++i) d.dump_file(files[i], kafka_form[i]);
  return d.finish();
}

}  // namespace kseg
