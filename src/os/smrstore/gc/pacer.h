// Background GC pacing: when the store's background GC runs and how many slices it runs.
//
// Contract
//   The store asks StartRound after every commit group (and when idle), and NextSlice
//   after every slice of cleaning that succeeded; it stops the round when a slice fails.
//   Inputs: `free`, the fraction of user zone space that is free; `cleaning`, whether a
//   victim zone is half cleaned (a GC cursor is in hand); `queued`, whether foreground
//   transactions are waiting (StartRound: they were when the round started; NextSlice:
//   one arrived since).
//   With watermarks urgent <= start <= stop (Options::gc_*_free):
//   * free >= start and nothing half cleaned: no GC, and the spacing count restarts.
//   * Below start, with foreground work queued: a round runs once every 1/debt commit
//     groups, debt = (start - free) / (start - urgent) clamped to [0.05, 1]: cleaning grows
//     with the debt and interleaves with commits instead of stalling them for a zone.
//     Below urgent (free < urgent) every group runs a round of two slices; otherwise a
//     round is one slice.
//   * Idle (nothing queued): a round runs at once and goes on, slice after slice, while a
//     victim is half cleaned or free < stop, and stops as soon as a foreground transaction
//     arrives.
//   IdleSlice(free): the live bytes of an idle slice when the store sizes them (its
//   gc_idle_slice = 0): kIdleShort (1 MiB) while GC is ahead — free at or above the
//   midpoint of start and stop — so an arrival waits behind less; kIdleFull (4 MiB, a paced
//   slice's size) below it, so each slice's fixed cost (seeks, journal record, sync) buys
//   more and idle cleaning keeps up on a drive that seeks.
//   Byte pacing (PacedBytes; the store's gc_slice_ms > 0, slices sized by time): instead of
//   a fixed slice every 1/debt groups, each commit group earns GC credit for the zone
//   bytes it consumes: written * 2 * debt * u / (1 - u), u the live fraction of the victim
//   in hand (clamped to [0.05, 0.9]) — moving u / (1 - u) live bytes frees one byte, so at
//   debt 0.5 cleaning frees what the writes take; above, less, below, more. A group
//   carries a slice when the credit reaches the slice's size (`budget`: the bytes the
//   store's fitted slice time allows), and the slice's bytes are taken off the credit.
//   Below urgent every group carries a slice of its budget (kUrgentBytes when it has
//   none), whatever the credit: GC advances with every group, each slice still bounded in
//   time (room for a group that does not fit is the store's cleaning for space). The
//   credit is capped at kCreditMax and dropped when free space is back above start.
//   Groups that write nothing to the zones (metadata only, inline objects) earn nothing:
//   the debt they leave is idle GC's. Cleaning outside the pacing (idle slices, cleaning for
//   space) pays the credit off (Paid).
//   Invariants: Debt() is in [0.05, 1]; a paced (queued, not urgent) round is at most one
//   slice; an urgent queued round at most two; IdleSlice() is kIdleShort or kIdleFull;
//   0 <= credit() <= kCreditMax; PacedBytes returns 0, `budget`, or (urgent, no budget)
//   kUrgentBytes.
//   GcPacedFree: the `free` the store passes is free / total data zones, unless the stop
//   watermark would then keep more than a cap of zones free (a large drive: 5 % of 76,000
//   zones is 3,800, about 1 TB): then it is scaled up as if all three watermarks were
//   lowered by the same factor, so that stop keeps exactly the cap free.
// Thread safety: none; the store calls it with its group mutex held.
#pragma once

#include <cstdint>

namespace smr {

struct GcPaceOptions {
  double start_free = 0.03;
  double urgent_free = 0.01;
  double stop_free = 0.05;
};

// The free fraction to compare with the watermarks when `free` of `total` data zones are
// free: free / total when stop_free * total <= stop_zones_max (or stop_zones_max is 0: no
// cap); else free / total * (stop_free * total / stop_zones_max) — the same comparisons as
// watermarks lowered by stop_zones_max / (stop_free * total), so idle cleaning stops with
// stop_zones_max zones free and start and urgent keep their ratio to stop. 0 when total is 0.
double GcPacedFree(uint64_t free, uint64_t total, double stop_free, uint64_t stop_zones_max);

class GcPacer {
 public:
  explicit GcPacer(GcPaceOptions o) : o_(o) {}

  // How far below the start watermark `free` is, in [0.05, 1].
  double Debt(double free) const;
  bool Urgent(double free) const { return free < o_.urgent_free; }

  static constexpr uint64_t kIdleShort = 1ull << 20;
  static constexpr uint64_t kIdleFull = 4ull << 20;
  uint64_t IdleSlice(double free) const {
    return free >= (o_.start_free + o_.stop_free) / 2 ? kIdleShort : kIdleFull;
  }

  // Byte pacing (see the contract): the live bytes of the slice the commit group that
  // writes `written` zone bytes carries now, or 0; `victim_live` the live fraction of the
  // victim in hand (or that would be picked), `budget` the slice's size by time.
  static constexpr uint64_t kUrgentBytes = 8ull << 20;
  static constexpr uint64_t kCreditMax = 64ull << 20;
  uint64_t PacedBytes(double free, bool cleaning, uint64_t written, double victim_live,
                      uint64_t budget);
  double credit() const { return credit_; }
  // Cleaning outside byte pacing (idle slices, cleaning for space) moved `live` bytes:
  // it pays what the credit owes.
  void Paid(uint64_t live);

  // After a commit group (queued) or when idle: whether to run a slice now.
  bool StartRound(double free, bool cleaning, bool queued);
  // After a slice that succeeded: whether to run another in this round.
  bool NextSlice(double free, bool cleaning, bool foreground_arrived);

  uint64_t groups_since_gc() const { return groups_since_gc_; }

 private:
  GcPaceOptions o_;
  uint64_t groups_since_gc_ = 0;  // commit groups since the last slice
  bool queued_ = false;           // the round started with foreground work queued
  bool urgent_ = false;           // ... below the urgent watermark
  int slices_ = 0;                // slices run in this round
  double credit_ = 0;             // byte pacing: live bytes GC owes
};

}  // namespace smr
