// SPDX-License-Identifier: Apache-2.0
// A progress line on stderr while a long run works: how much of the total is
// done, the rate and the time left, redrawn at most five times a second and
// only after the first second (short runs print nothing), and once drawn,
// a last line when the run ends: what was done, the time, the rate and the
// process's peak memory. Off unless stderr is a terminal and the run is not
// --quiet. One at a time per process; a
// Sink writing to a terminal clears the line before its output (the next
// update draws it again), so the two never share a line.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace kseg {

class Progress {
 public:
  enum class Unit { bytes, partitions };
  // `enabled`: Progress::wanted(quiet) for the usual rule. `noun` names
  // what Unit::partitions counts.
  Progress(const char* tool, Unit unit, int64_t total, bool enabled, const char* noun = "partitions");
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // From any thread.
  void add(int64_t done);
  // More work found as the run goes (from any thread): the total grows.
  void add_total(int64_t more);
  // stderr is a terminal, stdout is not a pipe (a pager would share the
  // terminal and the line would land on its screen) unless `force`
  // (--progress), and the run is not quiet.
  static bool wanted(bool quiet, bool force = false);
  // For tests: lines made after this draw from their first update, not
  // after a second.
  static void draw_at_once();

 private:
  void draw(std::chrono::steady_clock::time_point now);

  const char* tool_;
  const char* noun_;
  const Unit unit_;
  std::atomic<int64_t> total_;
  const bool enabled_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<int64_t> done_{0};
  std::atomic<int64_t> next_draw_ns_;  // since start_
  bool drawn_ever_ = false;            // under the line's mutex
};

// Work deep in an operation (a writer's pass over a partition's segments),
// told to the run's progress line in bytes, if one is drawn: `more` bytes of
// work found, `done` bytes of it done. No-ops otherwise; from any thread.
void progress_more(int64_t more);
void progress_done(int64_t done);
// What the work is doing now ("round 2: cleaning"), shown before the
// figures until the next stage; empty: nothing.
void progress_stage(std::string text);
// Tells progress_done(bytes) when it goes: one segment of a pass, however
// the pass leaves it.
struct ProgressDoneAtEnd {
  int64_t bytes;
  ~ProgressDoneAtEnd() { progress_done(bytes); }
};

// Clears the progress line, if one is drawn, before text goes to `f` (stdout
// or stderr) on the same terminal; Sink calls it before each write.
void progress_clear_line(std::FILE* f);

}  // namespace kseg
