// ReadFence: readers against zone resets.
//
// Contract
//   A read finds extents in committed metadata and then reads them from the drives. GC (and
//   a hybrid drain) relocates live extents, commits the new locations, and only then resets
//   the victim zone. A read that found an old location before that commit may still be
//   reading the victim: the reset must wait for it.
//   Readers hold a ReadFence::Reader for the span of their read; it registers them in the
//   current epoch. After committing relocations, the writer calls Advance(), which starts a
//   new epoch and returns it, then WaitForReadersBefore(that epoch): it returns once no
//   reader registered in an older epoch remains. Readers that enter after Advance() found
//   the new locations, so they are not waited for; a reader is never blocked by the fence.
//
// Invariants
//   readers_ counts the live Readers per epoch (no entry with a zero count); every epoch
//   in it is <= epoch_.
//
// Thread safety
//   Every method may be called from any thread; mu_ guards the epochs and is held only
//   for the bookkeeping (never across a read or a wait's predicate evaluation elsewhere).
#pragma once

#include <cstdint>
#include <map>

#include "common/thread_annotations.h"

namespace smr {

class ReadFence {
 public:
  ReadFence() = default;
  ReadFence(const ReadFence&) = delete;
  ReadFence& operator=(const ReadFence&) = delete;

  // RAII registration of one read in the current epoch.
  class Reader {
   public:
    explicit Reader(ReadFence* fence) : fence_(fence), epoch_(fence->Enter()) {}
    ~Reader() { fence_->Exit(epoch_); }
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;

   private:
    ReadFence* fence_;
    uint64_t epoch_;
  };

  // Starts a new epoch (after the commit that made old extents unreachable); returns it.
  uint64_t Advance() SMR_EXCLUDES(mu_);
  // Whether a reader of an epoch older than `epoch` is still registered.
  bool ReadersBefore(uint64_t epoch) const SMR_EXCLUDES(mu_);
  // Blocks until no reader of an epoch older than `epoch` remains.
  void WaitForReadersBefore(uint64_t epoch) SMR_EXCLUDES(mu_);

 private:
  uint64_t Enter() SMR_EXCLUDES(mu_);
  void Exit(uint64_t epoch) SMR_EXCLUDES(mu_);
  bool ReadersBeforeLocked(uint64_t epoch) const SMR_REQUIRES(mu_);

  mutable Mutex mu_;
  CondVar cv_;  // notified when the oldest epoch's last reader exits
  uint64_t epoch_ SMR_GUARDED_BY(mu_) = 0;
  std::map<uint64_t, int> readers_ SMR_GUARDED_BY(mu_);  // epoch -> live readers
};

}  // namespace smr
