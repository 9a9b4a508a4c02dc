// SPDX-License-Identifier: Apache-2.0
#include "tools/ops/partition/log_end.h"

#include <algorithm>

#include "formats/batch_v2.h"
#include "formats/log_entry.h"
#include "formats/index_serves.h"
#include "formats/offset_index.h"
#include "lib/mapped_file.h"

namespace kseg {

namespace {

int64_t scan(MappedFile& f, Position from, int64_t base, bool* misaligned) {
  EntryScanner scanner(f.bytes().subspan(static_cast<size_t>(from.value)), from);
  int64_t end = base;
  bool first = true;
  while (auto e = scanner.next()) {
    // An index entry that points at no batch boundary: the caller reads the
    // whole file instead.
    if (misaligned && first && e->position.value > 0 && v2::last_offset_of(*e) < base) {
      *misaligned = true;
      return end;
    }
    first = false;
    end = std::max(end, next_offset(v2::last_offset_of(*e)));
    f.release_before(e->position);  // in steps (MappedFile): resident memory stays flat
  }
  return end;
}

}  // namespace

Result<int64_t> segment_next_offset(const std::string& log_path, int64_t base, const std::string& index_path) {
  auto f = MappedFile::open(log_path);
  if (!f.ok()) return f.error().in(log_path);
  Position from{0};
  if (!index_path.empty())
    if (auto idx = MappedFile::open(index_path); idx.ok()) {
      offset_index::View v(idx->bytes(), Offset{base}, Position{0}, offset_index_width(idx->bytes(), Offset{base}, f->bytes()));
      const int64_t n = v.live_entry_count();
      if (n > 0 && v.entry(n - 1).position >= 0 && v.entry(n - 1).position < f->size())
        from = Position{v.entry(n - 1).position};
    }
  bool misaligned = false;
  const int64_t end = scan(*f, from, base, from.value > 0 ? &misaligned : nullptr);
  // No whole batch from the index's last entry on (it names a torn or
  // zeroed batch): the whole batches end before it, found from the start.
  const bool none_there = from.value > 0 && end == base;
  return misaligned || none_there ? scan(*f, Position{0}, base, nullptr) : end;
}

}  // namespace kseg
