// HybridManager (store/hybrid_manager.h, which states its contract, invariants and
// thread-safety rule): realm conversions of hybrid drives and the H-Buffer's eviction.
// Its peers (GC worker, commit pipeline, metadata journal) are reached through core_.peers.
#include <algorithm>
#include <cstdio>

#include "store/hybrid_manager.h"
#include "store/commit_pipeline.h"
#include "common/engine_log.h"

namespace smr {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kRecentQuanta = 1024;
constexpr auto kStallAfter = std::chrono::seconds(30);
constexpr auto kRetryAfter = std::chrono::seconds(10);
constexpr uint32_t kHBufferLowZones = 1;  // H-Buffer: evict when this few CMR zones are free
constexpr uint32_t kSwapRoomZones = 2;    // Zone-Swap only with this many more free CMR zones
constexpr uint64_t kSwapWindow = 4096;    // ... of SMR zones opened this many txns ago at most

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

uint64_t HybridManager::NextQuantum() {
  MutexLock lock(&hybrid_mu);
  const uint64_t quantum = quantum_sizer.Next(core_.options.hybrid_latency_bound_ms);
  hybrid.quantum_bytes = quantum;
  return quantum;
}

void HybridManager::NoteQuantum(uint64_t quantum, uint64_t moved, double ms, bool queued) {
  {
    MutexLock lock(&core_.counters_mu);
    core_.counters.gc_throttle_ns += queued ? static_cast<uint64_t>(ms * 1e6) : 0;
  }
  MutexLock lock(&hybrid_mu);
  quantum_sizer.Note(moved, ms, core_.options.hybrid_latency_bound_ms);
  hybrid.fixed_quantum_ms = quantum_sizer.fixed_ms();
  hybrid.quanta++;
  hybrid.last_quantum_ms = ms;
  hybrid.max_quantum_ms = std::max(hybrid.max_quantum_ms, ms);
  if (moved > quantum) {
    hybrid.max_overshoot_bytes = std::max(hybrid.max_overshoot_bytes, moved - quantum);
  }
  if (ms > core_.options.hybrid_latency_bound_ms) hybrid.bound_violations++;
  if (hybrid.recent_quantum_ms.size() == kRecentQuanta) {
    hybrid.recent_quantum_ms.erase(hybrid.recent_quantum_ms.begin());
  }
  hybrid.recent_quantum_ms.push_back(ms);
}

bool HybridManager::MaybeEvict(bool queued) {
  if (core_.read_only || !core_.options.hybrid_hbuffer) return false;
  {
    MutexLock lock(&core_.mu);
    if (!core_.fatal.ok()) return false;
  }
  if (!evict_cursor) {
    const auto [cmr_free, smr_free] = core_.zones->FreeZonesByDomain();
    auto candidate = [&](const ZoneStatus& z) {
      return z.state == ZoneState::kSealed && z.stream != StreamId::kJournal &&
             !z.journal_pinned &&
             z.device_cond != ZoneCondition::kOffline &&
             z.device_cond != ZoneCondition::kReadOnly &&
             !(core_.peers.gc->gc_cursor() &&
               core_.peers.gc->gc_cursor()->victim.addr == z.addr) &&
             !(conversion && conversion->drive == z.addr.drive && z.realm == conversion->realm);
    };
    const std::vector<ZoneStatus> snap = core_.zones->Snapshot();
    std::optional<ZoneStatus> pick;
    if (cmr_free <= kHBufferLowZones && smr_free > core_.options.gc_reserve_zones + 1) {
      // The buffer runs short (at most one free CMR zone, SMR zones beyond the GC reserve
      // free): evict the oldest CMR zone's survivors to SMR.
      for (const ZoneStatus& z : snap) {
        if (z.cmr && candidate(z) && (!pick || z.opened_seq < pick->opened_seq)) pick = z;
      }
      evict_to = StreamId::kGcCold;
    } else if (cmr_free >= kHBufferLowZones + kSwapRoomZones) {
      // Zone-Swap: the buffer has room; an SMR zone whose data is dying fast — at least half
      // of what it holds already dead, sealed within the last kSwapWindow transactions —
      // holds hot data: its survivors move into the buffer (the young GC stream, which
      // prefers CMR), where their next overwrites cost no SMR zone rewrite.
      for (const ZoneStatus& z : snap) {
        if (z.cmr || !candidate(z) || z.written == 0 || !z.realm) continue;
        if (z.live_bytes * 2 > z.written || core_.seq - z.opened_seq > kSwapWindow) continue;
        if (!pick || z.live_bytes < pick->live_bytes) pick = z;
      }
      evict_to = StreamId::kGc;
    }
    if (!pick) return false;
    evict_cursor = GcCursor{*pick, pick->start, nullptr, nullptr, false};
  }
  MutexLock glock(&core_.group_mu);
  const uint64_t quantum = NextQuantum();
  const Clock::time_point t0 = Clock::now();
  const auto deadline = t0 + std::chrono::microseconds(
                                 uint64_t{core_.options.hybrid_latency_bound_ms} * 1000 / 2);
  bool zone_done = false;
  const StreamId to = evict_to;
  auto r = core_.peers.gc->GcSlice(&evict_cursor, quantum, &zone_done, deadline, to,
                           /*split_records=*/true);
  if (!r.ok()) {
    evict_cursor.reset();
    Log(LogLevel::kError, "H-Buffer eviction: %s", r.status().ToString().c_str());
    return false;
  }
  NoteQuantum(quantum, r->live_moved, MsSince(t0), queued);
  MutexLock lock(&hybrid_mu);
  if (to == StreamId::kGc) {
    hybrid.swapped_bytes += r->live_moved;
    if (zone_done) hybrid.swapped_zones++;
  } else {
    hybrid.evicted_bytes += r->live_moved;
    if (zone_done) hybrid.evicted_zones++;
  }
  return true;
}

void HybridManager::MaybeConvert(bool queued, bool for_space) {
  if (core_.read_only) return;
  if (ConversionStoppedByFatal()) return;
  if (!conversion && !StartConversion(for_space)) return;
  Conversion& c = *conversion;

  if (c.activating) {
    // Step (4) once the drive is done (for space: wait for it).
    if (!for_space &&
        c.activation.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      return;
    }
    FinishActivation();
    return;
  }

  // Step (1): one quantum of the drain.
  MutexLock glock(&core_.group_mu);
  RealmStatus now{};
  for (const RealmStatus& r : core_.zones->Realms()) {
    if (r.drive == c.drive && r.realm == c.realm) now = r;
  }
  if (!c.cursor && NextDrainZone(&c)) return;
  if (!c.cursor) {
    TakeAndActivateRealm(&c, now);
    return;
  }
  DrainQuantum(&c, now, queued);
}

bool HybridManager::ConversionStoppedByFatal() {
  {
    MutexUniqueLock lock(&core_.mu);
    if (!core_.fatal.ok()) {
      // The store stopped taking writes: so does a conversion (a drive converting a realm
      // is waited for at unmount); an operator's request gets the reason.
      const Status why = core_.fatal.WithContext("store stopped taking writes");
      if (convert_request) {
        convert_request->done.set_value(why);
        convert_request.reset();
      }
      lock.Unlock();
      if (conversion && !conversion->activating) {
        core_.zones->CancelDrain(conversion->drive, conversion->realm);
        conversion.reset();
        MutexLock hlock(&hybrid_mu);
        hybrid.active = false;
      }
      if (!conversion && pending_request_done) {
        pending_request_done->set_value(why);
        pending_request_done.reset();
      }
      return true;
    }
  }
  return false;
}

bool HybridManager::StartConversion(bool for_space) {
  std::optional<ConvertRequest> request;
  {
    MutexLock lock(&core_.mu);
    request.swap(convert_request);
  }
  const std::vector<RealmStatus> realms = core_.zones->Realms();
  if (realms.empty()) return false;
  const double free = core_.zones->free_fraction();
  const RealmStatus* pick = nullptr;
  ZoneDomain to = ZoneDomain::kSmr;
  if (request) {
    if (RefuseConvertRequest(&*request, realms, &pick)) return false;
    to = request->to;
    pending_request_done = std::move(request->done);
  } else {
    if (!core_.options.hybrid_auto) return false;
    MutexLock lock(&hybrid_mu);
    if (!for_space && hybrid.stalled && Clock::now() < hybrid_retry_at) return false;
  }
  if (request) {
    // the operator's pick stands
  } else if (free < core_.options.hybrid_convert_free || for_space) {
    pick = RealmToGrow(realms);
  } else if (core_.options.hybrid_shrink_free > 0 && free > core_.options.hybrid_shrink_free) {
    pick = RealmToShrink(realms, free);
    to = ZoneDomain::kCmr;
  }
  if (!pick) return false;
  return BeginConversion(pick, to);
}

bool HybridManager::RefuseConvertRequest(ConvertRequest* request,
                                         const std::vector<RealmStatus>& realms,
                                         const RealmStatus** pick_out) {
  const RealmStatus*& pick = *pick_out;
  for (const RealmStatus& r : realms) {
    if (r.drive == request->drive && r.realm == request->realm) pick = &r;
  }
  Status refuse;
  if (!pick) {
    refuse = Status::InvalidArgument("drive " + std::to_string(request->drive) +
                                     " has no realm " + std::to_string(request->realm));
  } else if (pick->domain == request->to) {
    refuse = Status::InvalidArgument("realm " + std::to_string(request->realm) + " of drive " +
                                     std::to_string(request->drive) + " is " +
                                     ZoneDomainName(request->to) + " already");
  } else if (pick->faulted) {
    refuse = Status::Busy("realm " + std::to_string(request->realm) + " of drive " +
                          std::to_string(request->drive) +
                          " has a zone the drive reports offline or read-only; it cannot "
                          "be emptied");
  } else if (pick->live_bytes + pick->live_bytes / 8 + 4 * core_.MaxRecordBytes() >
             core_.zones->free_bytes()) {
    refuse = Status::NoSpace("the live data of realm " + std::to_string(request->realm) +
                             " does not fit in the free space of the other realms");
  }
  if (!refuse.ok()) {
    request->done.set_value(refuse);
    return true;
  }
  return false;
}

const RealmStatus* HybridManager::RealmToGrow(const std::vector<RealmStatus>& realms) {
  const RealmStatus* pick = nullptr;
  const uint64_t outside_free = core_.zones->free_bytes();
  for (const RealmStatus& r : realms) {
    if (r.domain != ZoneDomain::kCmr || r.taken || r.faulted) continue;
    const uint64_t realm_free = uint64_t{r.free_zones} * (r.zones ? r.capacity / r.zones : 0);
    const uint64_t room = outside_free > realm_free ? outside_free - realm_free : 0;
    // Its live data plus a header block per record's worth must fit elsewhere.
    if (r.live_bytes + r.live_bytes / 8 + 4 * core_.MaxRecordBytes() > room) continue;
    // Cheapest first: least live data; a realm holding journal zones costs a checkpoint.
    auto cost = [](const RealmStatus& x) { return x.live_bytes + (x.has_journal ? 1 : 0); };
    if (!pick || cost(r) < cost(*pick)) pick = &r;
  }
  return pick;
}

const RealmStatus* HybridManager::RealmToShrink(const std::vector<RealmStatus>& realms,
                                                double free) {
  const RealmStatus* pick = nullptr;
  const uint64_t data = core_.zones->data_capacity();
  for (const RealmStatus& r : realms) {
    if (r.domain != ZoneDomain::kSmr || r.taken || r.faulted) continue;
    // Free fraction without this realm's SMR zones and with its CMR ones (empty).
    const uint64_t cmr_cap = uint64_t{core_.devices[r.drive]->info().cmr_zones_per_realm} *
                             core_.devices[r.drive]->info().zone_size;
    const double data_after = static_cast<double>(data - r.capacity + cmr_cap);
    const double free_after =
        (free * static_cast<double>(data) - static_cast<double>(r.capacity) +
         static_cast<double>(cmr_cap)) / data_after;
    if (free_after <= core_.options.hybrid_shrink_free) continue;
    if (!pick || r.live_bytes < pick->live_bytes) pick = &r;
  }
  return pick;
}

bool HybridManager::BeginConversion(const RealmStatus* pick, ZoneDomain to) {
  Status st = core_.zones->BeginDrain(pick->drive, pick->realm,
                                      core_.peers.pipeline->deferred_seals());
  if (!st.ok()) {
    if (pending_request_done) {
      pending_request_done->set_value(st);
      pending_request_done.reset();
    }
    return false;
  }
  Conversion c;
  c.drive = pick->drive;
  c.realm = pick->realm;
  c.to = to;
  c.live_at_start = pick->live_bytes;
  c.started = c.last_progress = Clock::now();
  conversion = std::move(c);
  MutexLock lock(&hybrid_mu);
  hybrid.conversions_started++;
  hybrid.active = true;
  hybrid.activating = false;
  hybrid.stalled = false;
  hybrid.stall_reason.clear();
  hybrid.drive = pick->drive;
  hybrid.realm = pick->realm;
  hybrid.to = ZoneDomainName(to);
  hybrid.progress = 0;
  Log(LogLevel::kInfo, "converting realm %u of drive %u to %s (%llu live bytes to move)",
               pick->realm, pick->drive, ZoneDomainName(to),
               static_cast<unsigned long long>(pick->live_bytes));
  return true;
}

bool HybridManager::NextDrainZone(Conversion* conv) {
  Conversion& c = *conv;
  // The realm's next zone holding data: a sealed one (BeginDrain sealed the open ones).
  std::optional<GcCursor>& gc_cursor = core_.peers.gc->gc_cursor();
  if (gc_cursor && gc_cursor->victim.realm == c.realm && gc_cursor->victim.addr.drive == c.drive) {
    c.cursor = std::move(gc_cursor);  // GC was cleaning one of them: carry on with it
    gc_cursor.reset();
  } else {
    bool journal = false;
    for (const ZoneStatus& z : core_.zones->Snapshot()) {
      if (z.addr.drive != c.drive || z.realm != c.realm) continue;
      if (z.state != ZoneState::kSealed && z.state != ZoneState::kOpen) continue;
      if (z.stream == StreamId::kJournal || z.journal_pinned) {
        // Not relocatable: a checkpoint frees it (a journal zone) or unpins it (a data
        // zone holding journal records), below.
        journal = true;
        continue;
      }
      c.cursor = GcCursor{z, z.start, nullptr, nullptr, false};
      break;
    }
    if (!c.cursor && journal) {
      // Only journal zones (and pinned ones) left (BeginDrain sealed the open one): a
      // checkpoint, written outside the realm, makes them obsolete and frees (unpins) them.
      const Clock::time_point t0 = Clock::now();
      Status st = core_.peers.journal->Checkpoint();
      if (!st.ok()) {
        // No room for the checkpoint (or it failed): the drain cannot go on. Retrying at
        // once would retry the same checkpoint without end (found by the option-space
        // run: a commit thread spinning in GrowForSpace on a full hybrid drive).
        AbandonConversion(st.WithContext("checkpoint to free the realm's journal zones"));
        return true;
      }
      c.last_progress = Clock::now();
      MutexLock lock(&hybrid_mu);
      hybrid.last_quantum_ms = MsSince(t0);
      return true;
    }
  }
  return false;
}

void HybridManager::TakeAndActivateRealm(Conversion* conv, const RealmStatus& now) {
  Conversion& c = *conv;
  // Step (2): nothing left in it.
  if (now.free_zones != now.zones) return;  // (cannot happen: no zone in use, all free)
  Status st = core_.zones->TakeRealm(c.drive, c.realm);
  if (st.ok()) {
    auto batch = core_.meta->NewBatch();
    for (const auto& [addr, zm] : core_.zones->TakeDirtyZones()) {
      batch->PutZone(addr.drive, addr.zone, zm);
    }
    st = core_.meta->Commit(batch.get(), /*sync=*/true);
  }
  if (!st.ok()) {
    Log(LogLevel::kError, "conversion of realm %u of drive %u: %s", c.realm, c.drive,
                 st.ToString().c_str());
    MutexLock lock(&core_.mu);
    core_.fatal = st;  // the metadata could not be written: stop writes, as a commit would
    return;
  }
  core_.FenceReaders();
  // Step (3), on its own thread.
  ZonedDevice* dev = core_.devices[c.drive].get();
  const uint32_t realm = c.realm;
  const ZoneDomain to = c.to;
  c.activating = true;
  c.activation = std::async(std::launch::async, [dev, realm, to] {
    return dev->ActivateRealms(realm, 1, to);
  });
  c.last_progress = Clock::now();
  MutexLock lock(&hybrid_mu);
  hybrid.activating = true;
  hybrid.progress = 0.95;
}

void HybridManager::DrainQuantum(Conversion* conv, const RealmStatus& now, bool queued) {
  Conversion& c = *conv;
  const uint64_t quantum = NextQuantum();
  const Clock::time_point t0 = Clock::now();
  bool zone_done = false;
  // The walk stops at half the bound too: a zone of dead records costs reads, not moves.
  const auto deadline = t0 + std::chrono::microseconds(
                                 uint64_t{core_.options.hybrid_latency_bound_ms} * 1000 / 2);
  auto r = core_.peers.gc->GcSlice(&c.cursor, quantum, &zone_done, deadline, std::nullopt,
                           /*split_records=*/true);
  const double ms = MsSince(t0);
  if (!r.ok()) {
    AbandonConversion(r.status());
    return;
  }
  c.moved += r->live_moved;
  if (r->live_moved > 0 || zone_done) c.last_progress = Clock::now();
  NoteQuantum(quantum, r->live_moved, ms, queued);
  MutexLock lock(&hybrid_mu);
  hybrid.migrated_bytes += r->live_moved;
  const uint64_t left = std::min(now.live_bytes, c.live_at_start);
  hybrid.progress = c.live_at_start == 0
                        ? 0.9
                        : 0.9 * (1.0 - static_cast<double>(left) /
                                           static_cast<double>(c.live_at_start));
  hybrid.stalled = Clock::now() - c.last_progress > kStallAfter;
  if (hybrid.stalled) hybrid.stall_reason = "no live bytes moved for 30 s";
}

void HybridManager::AbandonConversion(const Status& why) {
  // The realm takes data again; the next conversion is tried after kRetryAfter.
  Conversion& c = *conversion;
  const std::string text = why.ToString();
  Log(LogLevel::kWarning, "conversion of realm %u of drive %u abandoned: %s", c.realm,
               c.drive, text.c_str());
  core_.zones->CancelDrain(c.drive, c.realm);
  conversion.reset();
  if (pending_request_done) {
    pending_request_done->set_value(why.WithContext("converting the realm"));
    pending_request_done.reset();
  }
  MutexLock lock(&hybrid_mu);
  hybrid.active = false;
  hybrid.stalled = true;
  hybrid.stall_reason = text;
  hybrid_retry_at = Clock::now() + kRetryAfter;
}

bool HybridManager::GrowForSpace(uint64_t bytes) {
  if (!core_.options.hybrid_auto || core_.read_only) return false;
  bool grew = false;
  // Each round is a quantum, a checkpoint, a take or an activation: bounded; a conversion
  // that stops advancing ends (abandoned: `conversion` is reset) and so does this loop.
  for (int rounds = 0; rounds < 100000; ++rounds) {
    if (core_.zones->user_free_bytes(core_.MaxRecordBytes()) >= bytes) break;
    const bool had = converting();
    const uint64_t done = [&] {
      MutexLock lock(&hybrid_mu);
      return hybrid.conversions_done;
    }();
    MaybeConvert(/*queued=*/true, /*for_space=*/true);
    if (!had && !converting()) break;  // nothing to convert
    MutexLock lock(&hybrid_mu);
    grew |= hybrid.conversions_done > done;
  }
  return grew;
}

void HybridManager::FinishActivation() {
  if (!conversion || !conversion->activating) return;
  Conversion& c = *conversion;
  const Clock::time_point t0 = c.last_progress;
  const Status st = c.activation.get();
  const double ms = MsSince(t0);
  MutexLock glock(&core_.group_mu);
  Status refresh = core_.zones->RefreshRealm(c.drive, c.realm);
  if (refresh.ok()) {
    auto batch = core_.meta->NewBatch();
    for (const auto& [addr, zm] : core_.zones->TakeDirtyZones()) {
      batch->PutZone(addr.drive, addr.zone, zm);
    }
    refresh = core_.meta->Commit(batch.get(), /*sync=*/true);
  }
  if (!refresh.ok()) {
    Log(LogLevel::kError, "after converting realm %u of drive %u: %s", c.realm,
                 c.drive, refresh.ToString().c_str());
    MutexLock lock(&core_.mu);
    core_.fatal = refresh;
  }
  MutexLock lock(&hybrid_mu);
  hybrid.last_activation_ms = ms;
  hybrid.active = false;
  hybrid.activating = false;
  if (st.ok()) {
    hybrid.conversions_done++;
    hybrid.done_by_drive[c.drive]++;
    (c.to == ZoneDomain::kSmr ? hybrid.to_smr : hybrid.to_cmr)++;
    hybrid.progress = 1.0;
    hybrid.stalled = false;
    hybrid.stall_reason.clear();
    Log(LogLevel::kInfo, "realm %u of drive %u is %s now (%.0f ms)", c.realm, c.drive,
                 ZoneDomainName(c.to), ms);
  } else {
    hybrid.conversions_failed++;
    hybrid.stalled = true;
    hybrid.stall_reason = "the drive failed the conversion: " + st.ToString();
    hybrid_retry_at = Clock::now() + kRetryAfter;
    Log(LogLevel::kError, "the drive failed converting realm %u of drive %u: %s",
                 c.realm, c.drive, st.ToString().c_str());
  }
  conversion.reset();
  if (pending_request_done) {
    pending_request_done->set_value(st.ok() ? refresh : st);
    pending_request_done.reset();
  }
}

bool HybridManager::EmptiesZone(const ZoneAddress& zone) const {
  // being emptied by a hybrid conversion, or by the H-Buffer's eviction
  return (conversion && conversion->cursor && conversion->cursor->victim.addr == zone) ||
         (evict_cursor && evict_cursor->victim.addr == zone);
}

bool HybridManager::RequestQueued() const {
  core_.mu.AssertHeld();
  return convert_request.has_value();
}

void HybridManager::StopForUnmount() {
  FinishActivation();  // a drive converting a realm: wait for it, record it
  conversion.reset();  // a drain in progress resumes (from scratch) at the next mount
  if (pending_request_done) {
    pending_request_done->set_value(Status::Busy("store unmounted during the conversion"));
    pending_request_done.reset();
  }
  MutexLock lock(&core_.mu);
  if (convert_request) {
    convert_request->done.set_value(Status::Busy("store is unmounting"));
    convert_request.reset();
  }
}

Status HybridManager::ConvertRealm(uint16_t drive, uint32_t realm, ZoneDomain to) {
  if (core_.read_only) return Status::ReadOnly("store is mounted read-only");
  if (drive >= core_.devices.size()) {
    return Status::InvalidArgument("the store has no drive " + std::to_string(drive));
  }
  const DeviceInfo& info = core_.devices[drive]->info();
  if (!info.hybrid()) {
    return Status::NotSupported("drive " + std::to_string(drive) + " (" + info.path +
                                ") is not a hybrid drive");
  }
  std::future<Status> f;
  {
    MutexLock lock(&core_.mu);
    if (core_.stopping || core_.closed) return Status::Busy("store is unmounting");
    if (convert_request) return Status::Busy("another conversion request is queued");
    ConvertRequest req;
    req.drive = drive;
    req.realm = realm;
    req.to = to;
    f = req.done.get_future();
    convert_request = std::move(req);
  }
  core_.cv.NotifyAll();
  return f.get();
}

HybridCounters HybridManager::Counters() {
  MutexLock lock(&hybrid_mu);
  return hybrid;
}

// ---------------------------------------------------------------------------------------
// Public API

Status Store::ConvertRealm(uint16_t drive, uint32_t realm, ZoneDomain to) {
  return impl_->hybrid_manager->ConvertRealm(drive, realm, to);
}

std::vector<RealmUsage> Store::Realms() {
  std::vector<RealmUsage> out;
  for (const RealmStatus& r : impl_->zones->Realms()) {
    RealmUsage u;
    u.drive = r.drive;
    u.realm = r.realm;
    u.domain = r.domain;
    u.converting = r.draining || r.taken;
    u.zones = r.zones;
    u.zones_in_use = r.zones >= r.free_zones ? r.zones - r.free_zones : 0;
    u.capacity = r.capacity;
    u.written = r.written;
    u.live_bytes = r.live_bytes;
    u.has_journal = r.has_journal;
    out.push_back(u);
  }
  return out;
}

HybridCounters Store::Hybrid() { return impl_->hybrid_manager->Counters(); }

}  // namespace smr
