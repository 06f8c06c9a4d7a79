// ZoneMeta: the persistent accounting of one data zone. The struct lives in format/ so
// that both the zone layer (which keeps it) and the meta layer (which stores it in RocksDB,
// encoding in meta/onode.h) can use it without depending on each other.
// Thread safety: value type.
#pragma once

#include <cstdint>

namespace smr {

// The device's write pointer is the truth for where the next record goes; `committed_wp`
// is the end of the last record a committed transaction references, so bytes between it
// and the device write pointer are dead (written by a transaction that never committed).
struct ZoneMeta {
  uint8_t stream = 0;         // zone/stream.h StreamId of the zone's owner; 0 = free
  uint64_t live_bytes = 0;    // payload bytes referenced by extents
  uint64_t committed_wp = 0;  // bytes from zone start
  uint64_t opened_seq = 0;    // txn seq when the zone was first written (age for GC)
  bool sealed = false;        // the store finished the zone (no more records)
  // Bytes from zone start of the zone's footer record (format/record_format.h, the zone's
  // last record), 0 = none or not known. Only a sealed zone has one, and it lies inside the
  // committed bytes: footer_at + 4 KiB <= committed_wp. GC reads it to pass over dead
  // records without reading their headers, in any later mount too (encoding v2).
  uint64_t footer_at = 0;

  bool operator==(const ZoneMeta& o) const {
    return stream == o.stream && live_bytes == o.live_bytes && committed_wp == o.committed_wp &&
           opened_seq == o.opened_seq && sealed == o.sealed && footer_at == o.footer_at;
  }
};

}  // namespace smr
