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

uint64_t GcPacer::PacedBytes(double free, bool cleaning, uint64_t written, double victim_live,
                             uint64_t budget) {
  if (free >= o_.start_free && !cleaning) {
    credit_ = 0;
    return 0;
  }
  if (Urgent(free)) {
    // Every group carries a slice: its budget (sized to the group's own write time when
    // that is longer), not a fixed size that would hold small groups for long.
    credit_ = std::max(0.0, credit_ - static_cast<double>(budget));
    return budget != 0 ? budget : kUrgentBytes;
  }
  const double u = std::clamp(victim_live, 0.05, 0.9);
  credit_ += static_cast<double>(written) * 2 * Debt(free) * u / (1 - u);
  credit_ = std::min(credit_, static_cast<double>(kCreditMax));
  // 1e-9: a debt of 0.1 / 0.2 computes as 0.4999...; a budget's worth of writes must
  // still earn the budget.
  if (budget == 0 || credit_ < static_cast<double>(budget) * (1 - 1e-9)) return 0;
  credit_ = std::max(0.0, credit_ - static_cast<double>(budget));
  return budget;
}

void GcPacer::Paid(uint64_t live) {
  credit_ = std::max(0.0, credit_ - static_cast<double>(live));
}

bool GcPacer::NextSlice(double free, bool cleaning, bool foreground_arrived) {
  groups_since_gc_ = 0;
  ++slices_;
  if (queued_) return urgent_ && slices_ < 2;
  if (foreground_arrived) return false;
  return cleaning || free < o_.stop_free;
}

}  // namespace smr
