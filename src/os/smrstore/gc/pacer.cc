#include "gc/pacer.h"

#include <algorithm>

namespace smr {

double GcPacedFree(uint64_t free, uint64_t total, double stop_free, uint64_t stop_zones_max) {
  if (total == 0) return 0.0;
  const double fraction = static_cast<double>(free) / static_cast<double>(total);
  const double stop_zones = stop_free * static_cast<double>(total);
  if (stop_zones_max == 0 || stop_zones <= static_cast<double>(stop_zones_max)) return fraction;
  return fraction * stop_zones / static_cast<double>(stop_zones_max);
}

double GcPacer::Debt(double free) const {
  const double span = std::max(1e-9, o_.start_free - o_.urgent_free);
  return std::clamp((o_.start_free - free) / span, 0.05, 1.0);
}

bool GcPacer::StartRound(double free, bool cleaning, bool queued) {
  if (free >= o_.start_free && !cleaning) {
    groups_since_gc_ = 0;
    return false;
  }
  urgent_ = Urgent(free);
  queued_ = queued;
  slices_ = 0;
  ++groups_since_gc_;
  // 1e-9: a debt of 0.1 / 0.2 computes as 0.4999...; it must still mean every second group.
  if (!urgent_ && queued && static_cast<double>(groups_since_gc_) * Debt(free) + 1e-9 < 1.0) {
    return false;
  }
  return true;
}

bool GcPacer::NextSlice(double free, bool cleaning, bool foreground_arrived) {
  groups_since_gc_ = 0;
  ++slices_;
  if (queued_) return urgent_ && slices_ < 2;
  if (foreground_arrived) return false;
  return cleaning || free < o_.stop_free;
}

}  // namespace smr
