// GcReadAhead: bytes of one GC victim read ahead of its cleaning, so that the slice that
// moves them reads nothing from the drive.
//
// Why: on a drive with one head, a GC slice that reads its victim and then writes the
// relocations is one long stretch of device work an arriving PUT waits behind (a seek to
// the victim, the reads, a seek to the GC zone, the writes). Idle GC instead reads the
// victim's live records ahead, in pieces small enough that an arrival waits behind at most
// one (the store checks for arrivals between pieces), and keeps them here; the slice then
// only writes. The store (store/gc_worker.cc) decides what to read; this class only keeps it.
//
// Contract
//   A cache belongs to one victim, named by a Key (drive, zone, the zone's start and its
//   opened_seq: a zone reset and reused gets a new opened_seq, so bytes of its earlier use
//   are never served). Begin(key) drops everything held for another key and makes `key` the
//   owner (same key: keeps what is held). Add(offset, bytes) keeps bytes read from the
//   owner's zone at device byte `offset`; they must lie wholly after every byte already held
//   (the store reads ahead in ascending order) or they are refused (false, nothing kept);
//   bytes that start where the last held range ends extend it (a record read in several
//   pieces is one range).
//   Copy(key, offset, dst, len) copies [offset, offset + len) into dst and returns true only
//   when `key` is the owner and one held range covers all of it; otherwise false and dst is
//   untouched (the caller reads the drive). DropBefore(offset) frees the ranges that end at
//   or before `offset` (the cursor has passed them). Clear() drops all and the owner.
// Invariants: held ranges are disjoint, ascending and never adjacent; bytes() is the sum
//   of their sizes; end() is the end of the last one (0 when none); nothing is ever served
//   for a key other than the owner's.
// Thread safety: none; the store uses it on its commit thread only.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace smr {

class GcReadAhead {
 public:
  struct Key {
    uint32_t drive = 0;
    uint32_t zone = 0;
    uint64_t start = 0;
    uint64_t opened_seq = 0;
    bool operator==(const Key& o) const {
      return drive == o.drive && zone == o.zone && start == o.start && opened_seq == o.opened_seq;
    }
  };

  // The largest device read of one read-ahead piece: at 250 MB/s about 2 ms, what an
  // arrival waits behind at most when it comes while GC reads ahead.
  static constexpr uint64_t kPiece = 512ull << 10;

  void Begin(const Key& key);
  bool Add(uint64_t offset, std::string bytes);
  bool Copy(const Key& key, uint64_t offset, void* dst, uint64_t len) const;
  void DropBefore(uint64_t offset);
  void Clear();

  bool owned_by(const Key& key) const { return owned_ && owner_ == key; }
  uint64_t bytes() const { return bytes_; }
  uint64_t end() const;
  // Whether [offset, offset + len) is held (for the owner).
  bool Holds(uint64_t offset, uint64_t len) const;

 private:
  bool owned_ = false;
  Key owner_;
  std::map<uint64_t, std::string> ranges_;  // by device offset
  uint64_t bytes_ = 0;
};

}  // namespace smr
