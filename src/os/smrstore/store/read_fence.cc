#include "store/read_fence.h"

namespace smr {

uint64_t ReadFence::Enter() {
  MutexLock lock(&mu_);
  ++readers_[epoch_];
  return epoch_;
}

void ReadFence::Exit(uint64_t epoch) {
  MutexLock lock(&mu_);
  auto it = readers_.find(epoch);
  if (it != readers_.end() && --it->second == 0) {
    readers_.erase(it);
    cv_.NotifyAll();
  }
}

uint64_t ReadFence::Advance() {
  MutexLock lock(&mu_);
  return ++epoch_;
}

bool ReadFence::ReadersBeforeLocked(uint64_t epoch) const {
  return !readers_.empty() && readers_.begin()->first < epoch;
}

bool ReadFence::ReadersBefore(uint64_t epoch) const {
  MutexLock lock(&mu_);
  return ReadersBeforeLocked(epoch);
}

void ReadFence::WaitForReadersBefore(uint64_t epoch) {
  MutexUniqueLock lock(&mu_);
  while (ReadersBeforeLocked(epoch)) cv_.Wait(&lock);
}

}  // namespace smr
