// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/common/progress.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

#include "lib/units.h"

namespace kseg {

namespace {

// The active line: set and cleared, drawn and erased under g_mu.
std::mutex g_mu;
Progress* g_active = nullptr;
// The active line when it counts bytes: what progress_more/progress_done
// tell, read without g_mu (the line outlives the work that tells it).
std::atomic<Progress*> g_bytes{nullptr};
bool g_drawn = false;
std::string g_stage;  // progress_stage's text
std::atomic<int64_t> g_first_draw_ns{1'000'000'000};
constexpr int64_t kRedrawNs = 200'000'000;

}  // namespace

Progress::Progress(const char* tool, Unit unit, int64_t total, bool enabled, const char* noun)
    : tool_(tool), noun_(noun), unit_(unit), total_(total), enabled_(enabled), start_(std::chrono::steady_clock::now()),
      next_draw_ns_(g_first_draw_ns.load()) {
  if (!enabled_) return;
  std::lock_guard lk(g_mu);
  g_active = this;
  if (unit_ == Unit::bytes) g_bytes.store(this);
}

Progress::~Progress() {
  if (!enabled_) return;
  std::lock_guard lk(g_mu);
  if (g_bytes.load() == this) g_bytes.store(nullptr);
  if (g_active != this) return;
  g_active = nullptr;
  if (g_drawn) std::fputs("\r\033[K", stderr);
  g_drawn = false;
  g_stage.clear();
  if (!drawn_ever_) return;
  // The run's last line: it lasted more than a second, and the figures were on screen.
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int64_t done = done_.load(std::memory_order_relaxed);
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  const std::string peak = human_bytes(static_cast<int64_t>(ru.ru_maxrss) * 1024);
  if (unit_ == Unit::bytes)
    std::fprintf(stderr, "%s: %s in %.1f s (%s/s), peak memory %s\n", tool_, human_bytes(done).c_str(), secs,
                 human_bytes(secs > 0 ? static_cast<double>(done) / secs : 0).c_str(), peak.c_str());
  else
    std::fprintf(stderr, "%s: %lld %s in %.1f s, peak memory %s\n", tool_, static_cast<long long>(done), noun_, secs,
                 peak.c_str());
  std::fflush(stderr);
}

void Progress::draw_at_once() { g_first_draw_ns.store(0); }

bool Progress::wanted(bool quiet, bool force) {
  struct stat st {};
  const bool stdout_pipe = fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode);
  return !quiet && isatty(STDERR_FILENO) != 0 && (force || !stdout_pipe);
}

void Progress::add(int64_t done) {
  if (!enabled_) return;
  done_.fetch_add(done, std::memory_order_relaxed);
  const auto now = std::chrono::steady_clock::now();
  const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - start_).count();
  int64_t due = next_draw_ns_.load(std::memory_order_relaxed);
  if (ns < due || !next_draw_ns_.compare_exchange_strong(due, ns + kRedrawNs)) return;
  draw(now);
}

void Progress::add_total(int64_t more) {
  if (enabled_) total_.fetch_add(more, std::memory_order_relaxed);
}

void progress_more(int64_t more) {
  if (Progress* p = g_bytes.load(std::memory_order_acquire)) p->add_total(more);
}

void progress_done(int64_t done) {
  if (Progress* p = g_bytes.load(std::memory_order_acquire)) p->add(done);
}

void progress_stage(std::string text) {
  std::lock_guard lk(g_mu);
  g_stage = std::move(text);
}

void Progress::draw(std::chrono::steady_clock::time_point now) {
  std::unique_lock lk(g_mu, std::try_to_lock);
  if (!lk || g_active != this) return;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const int64_t total = total_.load(std::memory_order_relaxed);
  const int64_t done = std::min(done_.load(std::memory_order_relaxed), total);
  const double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
  const double left = rate > 0 ? static_cast<double>(total - done) / rate : 0;
  const int pct = total > 0 ? static_cast<int>(100 * static_cast<double>(done) / static_cast<double>(total)) : 0;
  const std::string stage = g_stage.empty() ? "" : g_stage + ": ";
  if (unit_ == Unit::bytes) {
    std::fprintf(stderr, "\r%s: %s%s of %s (%d%%), %s/s, %.0f s left\033[K", tool_, stage.c_str(),
                 human_bytes(done).c_str(), human_bytes(total).c_str(), pct, human_bytes(rate).c_str(), left);
  } else {
    std::fprintf(stderr, "\r%s: %lld of %lld %s (%d%%), %.0f/s, %.0f s left\033[K", tool_,
                 static_cast<long long>(done), static_cast<long long>(total), noun_, pct, rate, left);
  }
  std::fflush(stderr);
  g_drawn = true;
  drawn_ever_ = true;
}

void progress_clear_line(std::FILE* f) {
  static const bool stdout_tty = isatty(STDOUT_FILENO) != 0;
  if (f != stderr && (f != stdout || !stdout_tty)) return;
  std::lock_guard lk(g_mu);
  if (!g_drawn) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  g_drawn = false;
}

}  // namespace kseg
