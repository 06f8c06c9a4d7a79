#include "device/head_model.h"

#include <algorithm>
#include <thread>

namespace smr {

HeadModel::HeadModel(double seq_mbps, double seek_ms)
    : seq_mbps_(seq_mbps), seek_ms_(seek_ms), free_(Clock::now()) {}

HeadModel::Clock::time_point HeadModel::Charge(uint64_t offset, uint64_t len, bool read,
                                               Clock::time_point now) {
  MutexLock lock(&mu_);
  const double bw = seq_mbps_ * 1e6;
  const bool forward_gap = offset > pos_ && offset - pos_ <= kSkipWindow;
  double seconds = static_cast<double>(len) / bw;
  if (forward_gap) {
    // A short forward gap: the platter turns past it; cheaper than a seek.
    seconds += static_cast<double>(offset - pos_) / bw;
    ++stats_.skips;
  } else if (offset != pos_) {
    seconds += seek_ms_ / 1e3;
    ++stats_.seeks;
  } else {
    ++stats_.sequential;
  }
  if (read && (forward_gap || offset == pos_) && now > free_) {
    // Read-ahead: while the host was busy, the drive went on reading sequentially into its
    // cache (up to kReadAhead bytes); that part of this read is already done.
    const double idle = std::chrono::duration<double>(now - free_).count();
    const double prefetched = std::min(idle * bw, static_cast<double>(kReadAhead)) / bw;
    seconds = std::max(0.0, seconds - prefetched);
  }
  const Clock::time_point start = free_ > now ? free_ : now;
  free_ = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  pos_ = offset + len;
  ++stats_.ios;
  stats_.bytes += len;
  stats_.busy_seconds += seconds;
  if (read) {
    ++stats_.read_ios;
    stats_.read_bytes += len;
  }
  return free_;
}

void HeadModel::ChargeAndWait(uint64_t offset, uint64_t len, bool read) {
  std::this_thread::sleep_until(Charge(offset, len, read, Clock::now()));
}

HeadModel::Stats HeadModel::stats() const {
  MutexLock lock(&mu_);
  return stats_;
}

}  // namespace smr
