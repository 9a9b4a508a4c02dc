// SPDX-License-Identifier: Apache-2.0
// .txnindex checks: Kafka's own (version, sanity check), then the entries
// against the aborted transactions the producer-state replay found.
#include <algorithm>

#include <fmt/format.h>

#include "lib/mapped_file.h"
#include "tools/ops/verify/verify_producer.h"

namespace kseg {

namespace {

std::string describe(const txn_index::AbortedTxn& t) {
  return fmt::format("pid {}, first {}, last {}, LSO {}", t.producer_id, t.first_offset, t.last_offset,
                     t.last_stable_offset);
}

// Decodes the whole entries, reporting Kafka's structural problems; stops at
// a bad version as Kafka's iterator does.
std::vector<txn_index::AbortedTxn> read_entries(const std::string& path, const SegmentScan& s, Bytes data,
                                                Findings& f) {
  txn_index::View v(data);
  if (v.trailing_bytes().bytes != 0)
    f.add(Code::txnindex_size, path, v.entry_position(v.entry_count()), "size is not a multiple of 34",
          "a multiple of 34", std::to_string(data.size()));
  std::vector<txn_index::AbortedTxn> out;
  for (int64_t i = 0; i < v.entry_count(); ++i) {
    const auto t = v.entry(i);
    if (t.version != txn_index::kCurrentVersion) {
      f.add(Code::txnindex_bad_version, path, v.entry_position(i), "unexpected AbortedTxn version", "0",
            std::to_string(t.version));
      break;
    }
    if (t.last_offset < s.base_offset.value)
      f.add(Code::txnindex_below_base, path, v.entry_position(i), "lastOffset below the segment's base offset",
            fmt::format(">= {}", s.base_offset), std::to_string(t.last_offset));
    if (!out.empty() && t.last_offset <= out.back().last_offset)
      f.add(Code::txnindex_not_increasing, path, v.entry_position(i), "lastOffset not above the previous entry's",
            fmt::format("> {}", out.back().last_offset), std::to_string(t.last_offset));
    out.push_back(t);
  }
  return out;
}

// The entry names the same marker as the replayed abort: producer and offset.
bool same_marker(const txn_index::AbortedTxn& t, const txn_index::AbortedTxn& entry) {
  return entry.version == t.version && entry.producer_id == t.producer_id && entry.last_offset == t.last_offset;
}

// Whether `entry` is what the cleaner leaves of the abort `r`: the same
// producer and marker, a first offset in data since removed (above the
// producer's data before the transaction, below what is left of it), and an
// LSO no higher than the log shows now (other transactions' data removed).
bool cleaned_form(const ReplayedAbort& r, const txn_index::AbortedTxn& entry) {
  const auto& t = r.txn;
  const int64_t first_left = t.first_offset >= 0 ? t.first_offset : t.last_offset;
  return same_marker(t, entry) && entry.first_offset > r.data_floor && entry.first_offset <= first_left &&
         entry.last_stable_offset <= t.last_stable_offset;
}

// Whether `entry` differs from the replayed abort `r` only as a marker lost
// in an offset gap explains: the producer's transaction, or another's that
// set the replay's LSO, spans a gap that may have held its end.
bool gap_form(const ReplayedAbort& r, const txn_index::AbortedTxn& entry) {
  const auto& t = r.txn;
  if (!same_marker(t, entry)) return false;
  const bool first_ok = entry.first_offset == t.first_offset ||
                        (r.gap_begin >= 0 && entry.first_offset >= r.gap_begin && entry.first_offset <= t.last_offset);
  const bool lso_ok = entry.last_stable_offset == t.last_stable_offset ||
                      (entry.last_stable_offset > t.last_stable_offset && entry.last_stable_offset <= r.lso_without_gaps);
  return first_ok && lso_ok;
}

}  // namespace

void check_txn_index(const std::string& path, const MappedFile* mf, const SegmentScan& s,
                     const std::vector<ReplayedAbort>& replayed, bool state_known, bool compacted, Findings& f) {
  std::vector<txn_index::AbortedTxn> actual;
  const bool has_data = std::any_of(replayed.begin(), replayed.end(), [](const auto& r) { return r.txn.first_offset >= 0; });
  if (mf != nullptr) {
    auto& fr = f.file(path, "txnindex");
    fr.size_bytes = fr.checked_bytes = mf->size();
    actual = read_entries(path, s, mf->bytes(), f);
    fr.entries = static_cast<int64_t>(actual.size());
  } else if (!has_data) {
    return;  // no file and nothing aborted: what Kafka leaves
  }
  std::vector<bool> matched(actual.size(), false);
  for (const auto& r : replayed) {
    const auto& e = r.txn;
    auto it = std::find_if(actual.begin(), actual.end(), [&](const auto& a) { return a.last_offset == e.last_offset; });
    const auto i = it - actual.begin();
    if (e.first_offset < 0) {  // no data of it left: an entry only if the cleaner removed it
      if (it != actual.end() && compacted && cleaned_form(r, *it)) matched[static_cast<size_t>(i)] = true;
      continue;
    }
    if (it == actual.end()) {
      const auto before = std::count_if(actual.begin(), actual.end(), [&](const auto& a) { return a.last_offset < e.last_offset; });
      f.add(Code::txnindex_missing_abort, path, Position{before * txn_index::kEntrySize},
            fmt::format("no entry for the ABORT marker at offset {}", e.last_offset), describe(e), "no entry");
      continue;
    }
    matched[static_cast<size_t>(i)] = true;
    if (r.marker_removed) {
      f.add(Code::txnindex_marker_removed, path, Position{i * txn_index::kEntrySize},
            fmt::format("no batch holds offset {}, the ABORT marker of producer {}'s transaction from offset {}: a "
                        "broker that rebuilds producer state from before it keeps the transaction open (if "
                        "READ_COMMITTED consumers stall there: kafka-transactions.sh abort --start-offset {})",
                        e.last_offset, e.producer_id, e.first_offset, e.first_offset),
            "an ABORT marker", "an offset gap");
      continue;
    }
    if (!(*it == e) && !(compacted && cleaned_form(r, *it)) && gap_form(r, *it)) {
      f.add(Code::txnindex_marker_removed, path, Position{i * txn_index::kEntrySize},
            fmt::format("entry for the ABORT marker at offset {} differs from the log only as a transaction marker "
                        "lost in an offset gap explains (the bytes a repair removed)",
                        e.last_offset),
            describe(e), describe(*it));
      continue;
    }
    if (!(*it == e) && !(compacted && cleaned_form(r, *it)))
      f.add(Code::txnindex_entry_mismatch, path, Position{i * txn_index::kEntrySize},
            fmt::format("entry for the ABORT marker at offset {} differs from the log", e.last_offset), describe(e),
            describe(*it));
  }
  // Without the state at the segment start an abort may complete a
  // transaction begun in deleted data, and the log cannot say.
  if (!state_known) return;
  for (size_t i = 0; i < actual.size(); ++i)
    if (!matched[i] && actual[i].last_offset < s.next_offset())
      f.add(Code::txnindex_unexpected_entry, path, Position{static_cast<int64_t>(i) * txn_index::kEntrySize},
            fmt::format("no aborted transaction ends at offset {} in the log", actual[i].last_offset), "no entry",
            describe(actual[i]));
}

}  // namespace kseg
