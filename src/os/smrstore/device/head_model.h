// HeadModel: the HDD timing model of one actuator — what an I/O costs on a drive with a
// sequential bandwidth and a positioning time — shared by EmulatedZonedDevice (TimingModel)
// and the nbdkit filter that gives the VM's kernel zoned device the same cost
// (src/tools/nbdkit/nbdkit_timing_filter.cc, issue 19 goal 1), so both charge by one rule.
//
// Contract: Charge(offset, len, read, now) books one I/O on the head and returns when it
// completes. Its device time is
//   len / bw                                    always, plus
//   (offset - end) / bw   if it starts after the previous I/O's end by at most
//                         kSkipWindow bytes (the platter turns past the gap), else
//   seek_ms               if it does not start exactly at that end,
// where bw = seq_mbps x 10^6 bytes/s. I/Os queue on the one head: an I/O starts when the
// head is free (or at `now` if it already is). A read that starts at or shortly after the
// previous end, arriving after the head went idle, finds up to kReadAhead bytes read ahead
// into the drive's cache (idle time x bw of them): that much of it is already done.
// ChargeAndWait() charges at the current time and sleeps until completion.
//
// Invariants: the head's free time never moves backwards; Stats() counts every I/O charged
// and how it was classified (sequential, skip, seek), and the sum of device time booked.
//
// Thread safety: all methods are thread-safe (one internal mutex, never held while
// sleeping).
#ifndef SMRSTORE_DEVICE_HEAD_MODEL_H_
#define SMRSTORE_DEVICE_HEAD_MODEL_H_

#include <chrono>
#include <cstdint>

#include "common/thread_annotations.h"

namespace smr {

class HeadModel {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint64_t kSkipWindow = 2ull << 20;  // forward gaps read/written through
  static constexpr uint64_t kReadAhead = 2ull << 20;   // drive read-ahead while host is busy

  struct Stats {
    uint64_t ios = 0;
    uint64_t bytes = 0;
    uint64_t sequential = 0;  // started exactly where the previous I/O ended
    uint64_t skips = 0;       // a forward gap of at most kSkipWindow
    uint64_t seeks = 0;       // anything else: charged seek_ms
    double busy_seconds = 0;  // device time booked (after read-ahead credit)
    uint64_t read_ios = 0;    // of ios / bytes: the reads (the rest are writes)
    uint64_t read_bytes = 0;
  };

  // seq_mbps > 0 (MB/s, 10^6 bytes); seek_ms >= 0. The head starts free, at offset 0.
  HeadModel(double seq_mbps, double seek_ms);

  Clock::time_point Charge(uint64_t offset, uint64_t len, bool read, Clock::time_point now);
  void ChargeAndWait(uint64_t offset, uint64_t len, bool read);
  Stats stats() const;

  double seq_mbps() const { return seq_mbps_; }
  double seek_ms() const { return seek_ms_; }

 private:
  const double seq_mbps_;
  const double seek_ms_;
  mutable Mutex mu_;
  uint64_t pos_ SMR_GUARDED_BY(mu_) = 0;
  Clock::time_point free_ SMR_GUARDED_BY(mu_);
  Stats stats_ SMR_GUARDED_BY(mu_);
};

}  // namespace smr

#endif  // SMRSTORE_DEVICE_HEAD_MODEL_H_
