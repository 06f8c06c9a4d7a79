#include "gc/read_ahead.h"

#include <cstring>
#include <iterator>
#include <utility>

namespace smr {

void GcReadAhead::Begin(const Key& key) {
  if (owned_by(key)) return;
  Clear();
  owned_ = true;
  owner_ = key;
}

bool GcReadAhead::Add(uint64_t offset, std::string bytes) {
  if (!owned_ || bytes.empty() || offset < end()) return false;
  bytes_ += bytes.size();
  if (!ranges_.empty() && offset == end()) {
    std::prev(ranges_.end())->second.append(bytes);
  } else {
    ranges_.emplace(offset, std::move(bytes));
  }
  return true;
}

bool GcReadAhead::Holds(uint64_t offset, uint64_t len) const {
  if (!owned_ || ranges_.empty()) return false;
  auto it = ranges_.upper_bound(offset);
  if (it == ranges_.begin()) return false;
  --it;
  return offset + len <= it->first + it->second.size();
}

bool GcReadAhead::Copy(const Key& key, uint64_t offset, void* dst, uint64_t len) const {
  if (!owned_by(key) || !Holds(offset, len)) return false;
  auto it = std::prev(ranges_.upper_bound(offset));
  std::memcpy(dst, it->second.data() + (offset - it->first), len);
  return true;
}

void GcReadAhead::DropBefore(uint64_t offset) {
  while (!ranges_.empty()) {
    auto it = ranges_.begin();
    if (it->first + it->second.size() > offset) break;
    bytes_ -= it->second.size();
    ranges_.erase(it);
  }
}

void GcReadAhead::Clear() {
  ranges_.clear();
  bytes_ = 0;
  owned_ = false;
  owner_ = Key{};
}

uint64_t GcReadAhead::end() const {
  if (ranges_.empty()) return 0;
  auto last = std::prev(ranges_.end());
  return last->first + last->second.size();
}

}  // namespace smr
