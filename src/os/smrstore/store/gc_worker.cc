// GcWorker (store/gc_worker.h: its contract, invariants and locks).
// Zone GC: picks a victim (gc/victim_policy.h), relocates its live extents into the GC
// stream as one commit (new records durable, then the metadata that points at them), and
// resets the victim only after (1) that commit and (2) every read that may still use the
// victim's old extents has ended (the read fence). A crash before (1) leaves the victim as
// it was (the new records are dead space); a crash between (1) and the reset leaves a
// sealed zone with no live bytes, which mount resets (zone/zone_manager.cc).
// Runs on the commit thread holding group_mu: between commit groups (GcSlice), or as part
// of one (GcPlanSlice within CommitGroup, then GcFinishSlice once the group committed:
// StoreOptions::gc_in_groups).
#include <algorithm>
#include "format/record_format.h"
#include <chrono>
#include <cmath>
#include <cstdio>
#include <future>
#include <utility>

#include "store/commit_pipeline.h"
#include "store/store_internal.h"
#include "store/gc_worker.h"
#include "store/hybrid_manager.h"
#include "common/engine_log.h"

namespace smr {

namespace {

// Records are aligned to the record format's block (format/record_format.h).
constexpr uint64_t kBlock = recfmt::kBlockSize;
// The smallest piece a split record moves in (a piece costs a record header: 1/16 here).
constexpr uint64_t kMinSplitPiece = 64ull << 10;

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Milliseconds since `start_ns` (a NowNs value).
double MsSince(uint64_t start_ns) { return static_cast<double>(NowNs() - start_ns) / 1e6; }

}  // namespace

// ---------------------------------------------------------------------------------------
// Read fence

void StoreCore::FenceReaders() {
  const uint64_t epoch = read_fence.Advance();
  if (!read_fence.ReadersBefore(epoch)) return;
  {
    MutexLock lock(&counters_mu);
    counters.gc_fence_waits++;
  }
  read_fence.WaitForReadersBefore(epoch);
}

// ---------------------------------------------------------------------------------------
// One GC cycle

Result<GcReport> GcWorker::GcOne() {
  core_.group_mu.AssertHeld();
  // A whole zone: slices until the victim is reset.
  GcReport total;
  for (;;) {
    bool zone_done = false;
    SMR_ASSIGN_OR_RETURN(GcReport r, GcStep(UINT64_MAX, &zone_done));
    total.zones_cleaned += r.zones_cleaned;
    total.live_moved += r.live_moved;
    total.bytes_written += r.bytes_written;
    total.bytes_freed += r.bytes_freed;
    if (zone_done) {
      // Whole victims are for callers that need the zone now (RunGc, cleaning for space).
      SMR_RETURN_IF_ERROR(ReapResets(/*wait=*/true));
      return total;
    }
  }
}

Result<GcReport> GcWorker::GcStep(uint64_t max_live, bool* zone_done, bool stop_on_arrival,
                                  bool read_ahead) {
  *zone_done = false;
  if (!gc_cursor_) {
    const uint64_t pick_start = NowNs();
    auto picked = PickVictim();
    round_.pick_ms += MsSince(pick_start);
    SMR_RETURN_IF_ERROR(picked.status());
    gc_cursor_ = GcCursor{*picked, picked->start, nullptr, nullptr, false};
  }
  // A slice that fails gives back what it allocated (GcSlice rolls back before its commit;
  // after it, only the reset can fail), and its victim waits in quarantine: the store
  // keeps taking writes and GC cleans other zones meanwhile. A read-ahead that fails is
  // the slice's failure (nothing was allocated yet).
  const ZoneAddress victim = gc_cursor_->victim.addr;
  if (read_ahead) {
    // At least a paced slice's worth: shorter idle slices then write what one read-ahead
    // (one trip of the head to the victim) brought in, slice after slice.
    const uint64_t ahead_start = NowNs();
    auto held = GcReadAheadFor(&*gc_cursor_, max_live, std::max(max_live, kGcSliceBytes));
    round_.read_ahead_ms += MsSince(ahead_start);
    if (!held.ok()) {
      gc_cursor_.reset();
      gc_ahead_.Clear();
      Quarantine(victim, held.status());
      return held.status();
    }
    if (!*held) {
      ++round_.read_ahead_yields;
      MutexLock lock(&core_.counters_mu);
      core_.counters.gc_read_ahead_yields++;
      return GcReport{};
    }
  }
  const uint64_t t0 = NowNs();
  auto r = GcSlice(&gc_cursor_, max_live, zone_done, std::nullopt, std::nullopt,
                   /*split_records=*/false, stop_on_arrival);
  last_slice_ms_ = MsSince(t0);
  round_.slice_ms += last_slice_ms_;
  ++round_.slices;
  if (!r.ok()) {
    gc_cursor_.reset();
    Quarantine(victim, r.status());
    return r;
  }
  round_.live_moved += r->live_moved;
  if (*zone_done) ++round_.victims_done;
  return r;
}

void GcWorker::Quarantine(const ZoneAddress& zone, const Status& why) {
  core_.group_mu.AssertHeld();
  Quarantined& q = quarantine_[zone];
  ++q.failures;
  q.retry_at_pick = gc_picks_ + (kQuarantinePicks << std::min<uint32_t>(q.failures - 1, 6));
  Log(LogLevel::kError, "GC of drive %u zone %u failed (%s); zone quarantined, retried after "
               "%llu more victim picks (failure %u)",
               zone.drive, zone.zone, why.ToString().c_str(),
               static_cast<unsigned long long>(q.retry_at_pick - gc_picks_), q.failures);
  MutexLock lock(&core_.counters_mu);
  core_.counters.gc_failures++;
  core_.counters.gc_quarantined_zones = quarantine_.size();
}

Result<ZoneStatus> GcWorker::PickVictim() {
  // Candidates: sealed zones with dead bytes. A relocated extent costs its payload plus a
  // record header again, so count live bytes with a 1/16 allowance for headers: a zone
  // that is all live (but for headers) must never look worth cleaning.
  ++gc_picks_;
  const std::vector<ZoneStatus> snap = core_.zones->Snapshot();
  std::vector<ZoneCandidate> cands;
  std::vector<size_t> index;
  uint64_t pinned_worth = 0;  // pinned zones that would be candidates
  for (size_t i = 0; i < snap.size(); ++i) {
    const ZoneStatus& z = snap[i];
    if (z.state != ZoneState::kSealed || z.written == 0) continue;
    if (z.stream == StreamId::kJournal) continue;  // freed by checkpoints, not by GC
    if (z.journal_pinned) {  // holds journal records a rebuild needs: after a checkpoint
      if (std::min(z.written, z.live_bytes + z.live_bytes / 16) < z.written) ++pinned_worth;
      continue;
    }
    // Being emptied by a hybrid conversion or the H-Buffer's eviction (store/hybrid_manager.h).
    if (core_.peers.hybrid->EmptiesZone(z.addr)) continue;
    if (IsPendingReset(z.addr)) continue;  // emptied, its reset waits for reads
    if (auto q = quarantine_.find(z.addr);
        q != quarantine_.end() && gc_picks_ < q->second.retry_at_pick) {
      continue;
    }
    if (z.device_cond == ZoneCondition::kOffline || z.device_cond == ZoneCondition::kReadOnly) {
      continue;
    }
    ZoneCandidate c;
    c.drive = z.addr.drive;
    c.zone = z.addr.zone;
    c.stream = static_cast<uint8_t>(z.stream);
    c.capacity = z.capacity;
    c.written = z.written;
    c.live = std::min(z.written, z.live_bytes + z.live_bytes / 16);
    c.age = core_.seq > z.opened_seq ? core_.seq - z.opened_seq : 0;
    if (c.live >= c.written) continue;
    cands.push_back(c);
    index.push_back(i);
  }
  // Death rate per stream (lifetime policy): bytes that died / integral of live bytes over
  // time, measured online (UpdateDeathRates); horizon = mean age of the candidates.
  PolicyParams params;
  params.death_rate_per_age = core_.death_rates.Rates();
  double age_sum = 0;
  for (const ZoneCandidate& c : cands) age_sum += static_cast<double>(c.age);
  params.horizon = cands.empty() ? 0 : age_sum / static_cast<double>(cands.size());
  const std::vector<size_t> ranked = RankVictims(core_.options.gc_policy, cands, params);
  if (ranked.empty()) {
    if (pinned_worth > 0) {
      // Only zones pinned by journal records have dead bytes: a checkpoint makes those
      // records obsolete and unpins them (every caller holds group_mu, as Checkpoint needs).
      // A stepped checkpoint under way is finished (it unpins what was pinned when it
      // began; a zone given a record since stays pinned), else one is taken at once, which
      // unpins them all: at most two rounds.
      const size_t pinned = core_.zones->JournalPins().size();
      const uint64_t cp_start = NowNs();
      Status cp = core_.peers.journal->CheckpointForPins();
      round_.checkpoint_ms += MsSince(cp_start);
      SMR_RETURN_IF_ERROR(cp.WithContext("checkpoint to unpin zones for GC"));
      if (core_.zones->JournalPins().size() < pinned) return PickVictim();
    }
    return Status::NotFound("no zone has dead bytes to reclaim");
  }
  const ZoneStatus& picked = snap[index[ranked[0]]];
  last_victim_live_ = picked.written == 0 ? 0.5
                                          : static_cast<double>(picked.live_bytes) /
                                                static_cast<double>(picked.written);
  return picked;
}

// Relocates the live extents of the cursor's victim, from the cursor on, until about
// `max_live` payload bytes moved or the zone's end; commits them; at the end resets the
// victim (after the read fence).
Result<GcReport> GcWorker::GcSlice(std::optional<GcCursor>* cursor, uint64_t max_live,
                                   bool* zone_done, Deadline deadline,
                                   std::optional<StreamId> to, bool split_records,
                                   bool stop_on_arrival) {
  core_.group_mu.AssertHeld();
  // Until its commit, a failing slice rolls its allocations back (zone write pointers and
  // space as before; zones a failed write left bytes in are sealed or reset).
  const ZoneManager::AllocationMark mark = core_.zones->MarkAllocations();
  bool committed = false;
  auto result =
      GcSliceOrFail(cursor, max_live, zone_done, &committed, deadline, to, split_records,
                    stop_on_arrival);
  if (!result.ok() && !committed) {
    Status rb = core_.zones->RollBack(mark);
    if (rb.ok()) {
      // A destination zone the drive now reports offline or read-only is retired, so the
      // next slice writes elsewhere (otherwise every victim would fail on it in turn).
      auto retired = core_.zones->RefreshConditions();
      if (!retired.ok()) {
        rb = retired.status();
      } else if (!retired->empty()) {
        MutexLock lock(&core_.counters_mu);
        core_.counters.zones_retired += retired->size();
      }
    }
    if (!rb.ok()) {
      Log(LogLevel::kError, "GC rollback failed, store stops taking writes: %s",
                   rb.ToString().c_str());
      MutexLock lock(&core_.mu);
      core_.fatal = rb;
    }
  }
  return result;
}

Result<GcReport> GcWorker::GcSliceOrFail(std::optional<GcCursor>* cursor, uint64_t max_live,
                                         bool* zone_done, bool* committed,
                                         Deadline deadline, std::optional<StreamId> to_stream,
                                         bool split_records, bool stop_on_arrival) {
  auto batch = core_.meta->NewBatch();
  GroupWrites writes;
  const uint64_t t0 = NowNs();
  SMR_ASSIGN_OR_RETURN(GcSlicePlan plan,
                       GcPlanSlice(cursor, max_live, batch.get(), &writes, deadline, to_stream,
                                   split_records, stop_on_arrival));
  const uint64_t t1 = NowNs();
  round_.plan_ms += static_cast<double>(t1 - t0) / 1e6;
  if (plan.any) {
    SMR_RETURN_IF_ERROR(
        core_.peers.pipeline->WriteAndCommit(&writes, batch.get(), 0, /*recoverable_writes=*/true));
  }
  const uint64_t t2 = NowNs();
  round_.commit_ms += static_cast<double>(t2 - t1) / 1e6;
  *committed = true;
  CountSliceMoves(plan);
  auto finished = GcFinishSlice(cursor, std::move(plan), zone_done);
  round_.finish_ms += MsSince(t2);
  return finished;
}

void GcWorker::CountSliceMoves(const GcSlicePlan& plan) {
  MutexLock lock(&core_.counters_mu);
  core_.counters.gc_live_moved += plan.report.live_moved;
  core_.counters.gc_slices++;
}

Result<std::shared_ptr<const std::vector<ZoneFooterEntry>>> GcWorker::ReadFooterIndex(
    ZonedDevice* dev, const ZoneStatus& victim) {
  using Index = std::shared_ptr<const std::vector<ZoneFooterEntry>>;
  // The footer record runs from footer_at to the committed end (it is the zone's last).
  if (victim.footer_at == 0 || victim.committed_wp < victim.footer_at + kBlock ||
      victim.committed_wp - victim.footer_at > kMaxFooterRead) {
    return Index();
  }
  std::string bytes(victim.committed_wp - victim.footer_at, '\0');
  SMR_RETURN_IF_ERROR(dev->Read(victim.start + victim.footer_at, bytes.data(), bytes.size()));
  // A footer that does not check out is not used (logged): the walk reads every header,
  // and each record it moves is checked against its own crc.
  auto unusable = [&](const std::string& why) {
    Log(LogLevel::kWarning, "GC of drive %u zone %u: its footer at %llu is not used (%s); "
                 "reading every record header",
                 victim.addr.drive, victim.addr.zone,
                 static_cast<unsigned long long>(victim.start + victim.footer_at), why.c_str());
    return Index();
  };
  auto h = DecodeRecordHeader(bytes.data());
  if (!h.ok()) return unusable(h.status().ToString());
  if (h->type != RecordType::kZoneFooter || RecordBytes(h->payload_len) != bytes.size()) {
    return unusable("not a footer record ending at the zone's committed end");
  }
  if (Status v = VerifyPayload(*h, bytes.data() + kBlock); !v.ok()) {
    core_.CountCrcError();
    return unusable(v.ToString());
  }
  auto entries = DecodeZoneFooter(std::string_view(bytes.data() + kBlock, h->payload_len));
  if (!entries.ok()) return unusable(entries.status().ToString());
  // Only a footer whose records tile the zone up to it exactly is used.
  uint64_t at = 0;
  for (const ZoneFooterEntry& e : *entries) {
    if (uint64_t{e.block} * kBlock != at) return unusable("its records leave a gap");
    at += RecordBytes(e.payload_len);
  }
  if (at != victim.footer_at) return unusable("its records do not reach it");
  return Index(std::make_shared<const std::vector<ZoneFooterEntry>>(std::move(*entries)));
}

Result<GcSlicePlan> GcWorker::GcPlanSlice(std::optional<GcCursor>* cursor, uint64_t max_live,
                                          MetaStore::Batch* batch, GroupWrites* group,
                                          Deadline deadline,
                                          std::optional<StreamId> to_stream,
                                          bool split_records, bool stop_on_arrival) {
  core_.group_mu.AssertHeld();
  const ZoneStatus victim = (*cursor)->victim;
  ZonedDevice* dev = core_.devices[victim.addr.drive].get();

  GcPlanState s{victim, dev, &**cursor, batch, group, max_live, to_stream, split_records,
                /*gc_seq=*/0, /*report=*/{}, /*touched=*/{}};
  GcReport& report = s.report;
  GroupWrites& writes = *group;
  const uint64_t gc_bytes_before = writes.gc_bytes;
  s.gc_seq = ++core_.seq;
  if (!(*cursor)->footer_tried) {
    (*cursor)->footer_tried = true;
    SMR_ASSIGN_OR_RETURN((*cursor)->footer, ReadFooterIndex(dev, victim));
  }
  const std::vector<ZoneFooterEntry>* footer = (*cursor)->footer.get();
  std::string header(kBlock, '\0');
  std::shared_ptr<const std::string> partial_payload;  // of a record left half moved
  const uint64_t end = victim.start + victim.committed_wp;
  uint64_t pos = (*cursor)->pos;
  bool at_end = false;
  for (;;) {
    // A live data record the footer lists: its payload, read with its header in one read.
    std::shared_ptr<std::string> prefetched;
    if (pos + kBlock > end) {
      at_end = true;
      break;
    }
    // The footer is the zone's last record and lists every record before it: nothing is
    // left to look at (its header is not read again: on a drive with a head, a seek).
    if (footer != nullptr && pos == victim.start + victim.footer_at) {
      at_end = true;
      break;
    }
    if (report.live_moved >= max_live) break;
    if (deadline && pos > (*cursor)->pos && std::chrono::steady_clock::now() >= *deadline) break;
    if (stop_on_arrival && pos > (*cursor)->pos && ForegroundWaiting()) break;
    if (footer != nullptr) {
      SMR_ASSIGN_OR_RETURN(const bool passed_over,
                           GcFooterPassOver(&s, *footer, end, &pos, &prefetched));
      if (passed_over) continue;
    }
    if (prefetched) {
      SMR_RETURN_IF_ERROR(GcReadVictim(dev, victim, pos,
                                       {{header.data(), kBlock},
                                        {prefetched->data(), prefetched->size()}}));
    } else {
      SMR_RETURN_IF_ERROR(GcReadVictim(dev, victim, pos, {{header.data(), kBlock}}));
    }
    auto h = DecodeRecordHeader(header.data());
    if (h.status().IsNotFound()) {  // nothing more was written
      at_end = true;
      break;
    }
    if (!h.ok()) {
      return h.status().WithContext("GC of drive " + std::to_string(victim.addr.drive) +
                                    " zone " + std::to_string(victim.addr.zone) + " at " +
                                    std::to_string(pos));
    }
    const uint64_t rec_bytes = h->record_bytes();
    std::shared_ptr<const std::string> kept;  // the record's payload, once read
    SMR_ASSIGN_OR_RETURN(const bool partial,
                         GcMoveRecord(&s, *h, pos, std::move(prefetched), &kept));
    if (partial) {
      partial_payload = std::move(kept);
      break;  // the cursor stays on this record
    }
    pos += rec_bytes;
  }
  for (const auto& [nid, t] : s.touched) batch->PutOnode(t.cid, t.oid, t.onode);
  report.bytes_written = writes.gc_bytes - gc_bytes_before;
  GcSlicePlan plan;
  plan.report = report;
  plan.pos = pos;
  plan.at_end = at_end;
  plan.partial_payload = std::move(partial_payload);
  plan.any = !s.touched.empty() || report.bytes_written > 0;
  return plan;
}

Result<GcWorker::GcPlanState::Touched*> GcWorker::GcLookup(GcPlanState* s, uint64_t nid) {
  auto it = s->touched.find(nid);
  if (it != s->touched.end()) return &it->second;
  SMR_ASSIGN_OR_RETURN(auto where, core_.meta->GetNid(s->batch, nid));
  if (!where) return nullptr;
  SMR_ASSIGN_OR_RETURN(auto onode, core_.meta->GetOnode(s->batch, where->first, where->second));
  if (!onode || onode->nid != nid) return nullptr;
  return &s->touched
              .emplace(nid, GcPlanState::Touched{where->first, where->second, *onode})
              .first->second;
}

Status GcWorker::GcCrcFailure(const ZoneStatus& victim, const RecordHeader& rh,
                              uint64_t at) {
  core_.CountCrcError();
  return Status::Corruption("GC: " + std::string(RecordTypeName(rh.type)) +
                            " record at drive " + std::to_string(victim.addr.drive) +
                            " offset " + std::to_string(at) +
                            " fails its checksum; not relocating (run fsck)");
}

Result<bool> GcWorker::GcFooterPassOver(GcPlanState* s,
                                        const std::vector<ZoneFooterEntry>& footer_entries,
                                        uint64_t end, uint64_t* pos_io,
                                        std::shared_ptr<std::string>* prefetched) {
  const ZoneStatus& victim = s->victim;
  const std::vector<ZoneFooterEntry>* footer = &footer_entries;
  uint64_t& pos = *pos_io;
  // The footer lists the record here: one that is not data, or a data record no object
  // references here any more, is passed over without reading its header.
  const auto block = static_cast<uint32_t>((pos - victim.start) / kBlock);
  auto f = std::lower_bound(
      footer->begin(), footer->end(), block,
      [](const ZoneFooterEntry& x, uint32_t b) { return x.block < b; });
  if (f != footer->end() && f->block == block && f->type != RecordType::kPack) {
    bool live = false;
    if (f->type == RecordType::kData && f->nid != 0) {
      SMR_ASSIGN_OR_RETURN(GcPlanState::Touched * t, GcLookup(s, f->nid));
      if (t != nullptr) {
        for (const auto& [off, e] : t->onode.extents) {
          live = live || (e.drive == victim.addr.drive && e.payload_offset == pos + kBlock &&
                          !e.in_pack);
        }
      }
    }
    if (!live) {
      pos += RecordBytes(f->payload_len);
      return true;
    }
    // (A record a slice left half moved keeps its payload in the cursor.)
    if (!(pos == s->cursor->pos && s->cursor->payload) &&
        pos + RecordBytes(f->payload_len) <= end) {
      *prefetched = std::make_shared<std::string>(RecordBytes(f->payload_len) - kBlock, '\0');
    }
  }
  return false;
}

Result<bool> GcWorker::GcMoveRecord(GcPlanState* s, const RecordHeader& rh, uint64_t pos,
                                    std::shared_ptr<std::string> prefetched,
                                    std::shared_ptr<const std::string>* kept_out) {
  const ZoneStatus& victim = s->victim;
  const RecordHeader* h = &rh;
  const uint64_t max_live = s->max_live;
  const bool split_records = s->split_records;
  GcReport& report = s->report;
  std::shared_ptr<const std::string>& kept = *kept_out;  // the record's payload, once read
  const uint64_t payload_at = pos + kBlock;
  // The record's units: a data record is one; a pack record has one per entry.
  struct Unit {
    uint64_t nid;
    uint64_t at;      // device byte of its first payload byte
    uint32_t skip;    // its offset in the record's payload
    uint32_t len;
  };
  std::vector<Unit> units;
  const bool is_pack = h->type == RecordType::kPack;
  if (h->type == RecordType::kData && h->nid != 0) {
    units.push_back(Unit{h->nid, payload_at, 0, h->payload_len});
  } else if (is_pack) {
    for (const PackEntry& pe : h->pack) {
      units.push_back(Unit{pe.nid, payload_at + pe.offset, pe.offset, pe.payload_len});
    }
  }
  bool partial = false;  // this record keeps live bytes the next slice moves
  if (!units.empty() && pos == s->cursor->pos) kept = std::move(s->cursor->payload);
  // The bytes read with the header are the payload the header describes only when the
  // header agrees with the footer's entry (else they are read again by the header's length).
  if (prefetched && !kept && h->type == RecordType::kData &&
      RecordBytes(h->payload_len) == kBlock + prefetched->size()) {
    kept = std::move(prefetched);
    if (!VerifyPayload(*h, kept->data()).ok()) return GcCrcFailure(victim, *h, pos);
  }
  for (const Unit& u : units) {
    SMR_ASSIGN_OR_RETURN(GcPlanState::Touched * t, GcLookup(s, u.nid));
    std::vector<Extent*> live;
    if (t != nullptr) {
      for (auto& [off, e] : t->onode.extents) {
        if (e.drive == victim.addr.drive && e.payload_offset == u.at && e.in_pack == is_pack) {
          live.push_back(&e);
        }
      }
    }
    if (live.empty()) continue;
    if (!kept) {
      const uint64_t padded = (uint64_t{h->payload_len} + kBlock - 1) / kBlock * kBlock;
      auto fresh = std::make_shared<std::string>(padded, '\0');
      SMR_RETURN_IF_ERROR(GcReadVictim(s->dev, victim, payload_at, {{fresh->data(), padded}}));
      if (!VerifyPayload(*h, fresh->data()).ok()) return GcCrcFailure(victim, *h, pos);
      kept = std::move(fresh);
    }
    const std::string& payload = *kept;
    for (Extent* e : live) {
      // A pack is moved whole in one slice (at most kMaxPackPayload bytes).
      if (!is_pack && split_records && report.live_moved >= max_live) {
        partial = true;
        break;
      }
      // A quantum smaller than the extent moves its first part: the rest stays an
      // extent of the same record (payload_skip advanced), moved by the next slices.
      const uint64_t room = max_live > report.live_moved ? max_live - report.live_moved : 0;
      if (!is_pack && split_records && e->length > room) {
        const uint64_t n = std::max<uint64_t>(room / kBlock * kBlock, kMinSplitPiece);
        if (n < e->length) {
          Extent rest = *e;
          rest.logical_offset += n;
          rest.length = static_cast<uint32_t>(e->length - n);
          rest.payload_skip = static_cast<uint32_t>(e->payload_skip + n);
          e->length = static_cast<uint32_t>(n);
          t->onode.extents.emplace(rest.logical_offset, rest);
          partial = true;
        }
      }
      SMR_RETURN_IF_ERROR(GcMoveExtent(s, t, u.nid, payload.substr(u.skip + e->payload_skip,
                                                                   e->length), e));
      if (partial) break;
    }
    if (partial) break;
  }
  return partial;
}

Status GcWorker::GcMoveExtent(GcPlanState* s, GcPlanState::Touched* t, uint64_t nid,
                              std::string bytes, Extent* e) {
  const ZoneStatus& victim = s->victim;
  const std::optional<StreamId>& to_stream = s->to_stream;
  const uint64_t gc_seq = s->gc_seq;
  GroupWrites& writes = *s->writes;
  auto piece = std::make_shared<const std::string>(std::move(bytes));
  const uint32_t crc = PayloadCrc(piece->data(), piece->size());
  // Older than the mean lifetime: expected to live long -> the cold GC stream.
  const uint64_t now_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  const double age = t->onode.mtime_ns && now_ns > t->onode.mtime_ns
                         ? static_cast<double>(now_ns - t->onode.mtime_ns)
                         : 0.0;
  const StreamId to = to_stream ? *to_stream
                      : core_.mean_lifetime_ns > 0 && age > core_.mean_lifetime_ns
                          ? StreamId::kGcCold
                          : StreamId::kGc;
  uint16_t to_drive = 0;
  if (e->length <= core_.options.pack_max) {
    PackEntry pe;
    pe.payload_len = e->length;
    pe.payload_crc = crc;
    pe.seq = gc_seq;
    pe.collection_id = t->cid;
    pe.nid = nid;
    pe.logical_offset = e->logical_offset;
    PackedAt at;
    SMR_RETURN_IF_ERROR(
        PlacePacked(core_.zones.get(), gc_seq, to, pe, *piece, piece, &writes, &at));
    to_drive = at.drive;
    e->payload_offset = at.payload_offset;
    e->in_pack = true;
    e->pack_offset = at.pack_offset;
    writes.gc_bytes += at.allocated;
  } else {
    RecordHeader nh;
    nh.type = RecordType::kData;
    nh.seq = gc_seq;
    nh.collection_id = t->cid;
    nh.nid = nid;
    nh.logical_offset = e->logical_offset;
    EncodeObjectKey(t->oid, &nh.object_key);
    nh.payload_len = e->length;
    nh.payload_crc = crc;
    Allocation at;
    SMR_RETURN_IF_ERROR(
        PlaceRecord(core_.zones.get(), gc_seq, to, nh, *piece, piece, &writes, &at));
    to_drive = at.drive;
    e->payload_offset = at.offset + kBlock;
    e->in_pack = false;
    e->pack_offset = 0;
    writes.gc_bytes += RecordBytes(e->length);
  }
  const ZoneAddress to_zone{to_drive,
                            static_cast<uint32_t>(e->payload_offset / core_.ZoneSize(to_drive))};
  writes.live_delta[victim.addr] -= e->length;
  writes.live_delta[to_zone] += e->length;
  writes.gc_live_delta[victim.addr] -= e->length;
  writes.gc_live_delta[to_zone] += e->length;
  s->report.live_moved += e->length;
  e->drive = to_drive;
  e->payload_len = static_cast<uint32_t>(piece->size());
  e->payload_crc = crc;
  e->payload_skip = 0;
  return Status::OK();
}

Result<GcReport> GcWorker::GcFinishSlice(std::optional<GcCursor>* cursor, GcSlicePlan plan,
                                         bool* zone_done) {
  core_.group_mu.AssertHeld();
  *zone_done = false;
  const ZoneStatus victim = (*cursor)->victim;
  GcReport report = plan.report;
  (*cursor)->pos = plan.pos;
  (*cursor)->payload = std::move(plan.partial_payload);
  const bool ahead_is_victims = gc_ahead_.owned_by(ReadAheadKey(victim));
  if (ahead_is_victims) gc_ahead_.DropBefore(plan.pos);  // what the slices have passed
  if (!plan.at_end) return report;
  cursor->reset();
  *zone_done = true;
  if (ahead_is_victims) gc_ahead_.Clear();

  // Safety: reset only a zone nothing references any more.
  for (const ZoneStatus& z : core_.zones->Snapshot()) {
    if (z.addr == victim.addr && z.live_bytes != 0) {
      Log(LogLevel::kError, "GC left %llu live bytes in drive %u zone %u (accounting differs "
                   "from the extents; run fsck --repair); zone kept",
                   static_cast<unsigned long long>(z.live_bytes), victim.addr.drive,
                   victim.addr.zone);
      return Status::Corruption("GC: live bytes remain in the victim zone; run fsck");
    }
  }
  report.zones_cleaned = 1;
  report.bytes_freed = victim.capacity;
  // The reset waits for reads that may still use the old extents (read_fence.h). The GC's
  // own victims do not hold the commit thread for them: reads of any zone, queued on a
  // busy drive, can take seconds. Their reset is deferred (ReapResets) until those reads
  // have ended; a hybrid drain's victims are reset now, as its conversion needs them.
  pending_resets_.push_back(PendingReset{victim, core_.read_fence.Advance()});
  SMR_RETURN_IF_ERROR(ReapResets(/*wait=*/cursor != &gc_cursor_));
  return report;
}

bool GcWorker::IsPendingReset(const ZoneAddress& zone) const {
  return std::any_of(pending_resets_.begin(), pending_resets_.end(),
                     [&](const PendingReset& p) { return p.victim.addr == zone; });
}

Status GcWorker::ReapResets(bool wait) {
  core_.group_mu.AssertHeld();
  if (pending_resets_.empty()) return Status::OK();
  Status first;
  std::vector<ZoneStatus> snap;
  for (auto it = pending_resets_.begin(); it != pending_resets_.end();) {
    if (core_.read_fence.ReadersBefore(it->epoch)) {
      if (!it->waited) {
        it->waited = true;
        MutexLock lock(&core_.counters_mu);
        core_.counters.gc_fence_waits++;
      }
      if (!wait) {
        ++it;
        continue;
      }
      core_.read_fence.WaitForReadersBefore(it->epoch);
    }
    const ZoneStatus victim = it->victim;
    it = pending_resets_.erase(it);
    // Still the zone GC emptied: not reset meanwhile (a hybrid drain may have taken it).
    if (snap.empty()) snap = core_.zones->Snapshot();
    const auto now = std::find_if(snap.begin(), snap.end(),
                                  [&](const ZoneStatus& z) { return z.addr == victim.addr; });
    if (now == snap.end() || now->state != ZoneState::kSealed ||
        now->opened_seq != victim.opened_seq || now->live_bytes != 0) {
      continue;
    }
    Status st = ResetVictim(victim);
    if (!st.ok() && first.ok()) first = st;
    snap.clear();  // the zones changed
  }
  return first;
}

Status GcWorker::ResetVictim(const ZoneStatus& victim) {
  SMR_RETURN_IF_ERROR(core_.zones->ResetZone(victim.addr.drive, victim.addr.zone));
  core_.zones->ReleaseZone(victim.addr.drive, victim.addr.zone);
  if (quarantine_.erase(victim.addr)) {
    MutexLock lock(&core_.counters_mu);
    core_.counters.gc_quarantined_zones = quarantine_.size();
  }
  auto done = core_.meta->NewBatch();
  for (const auto& [addr, zm] : core_.zones->TakeDirtyZones()) {
    done->PutZone(addr.drive, addr.zone, zm);
  }
  SMR_RETURN_IF_ERROR(core_.meta->Commit(done.get(), /*sync=*/true));
  MutexLock lock(&core_.counters_mu);
  core_.counters.gc_runs++;
  core_.counters.gc_zones_reset++;
  if (!victim.cmr) core_.counters.gc_smr_zones_reset++;
  return Status::OK();
}

void GcWorker::ReapResetsBetweenGroups(bool wait) {
  if (pending_resets_.empty()) return;
  MutexLock glock(&core_.group_mu);
  Status st = ReapResets(wait);
  if (!st.ok()) Log(LogLevel::kError, "GC zone reset: %s", st.ToString().c_str());
}

std::string GcWorker::RoundTrace::ToString() const {
  char buf[384];
  std::snprintf(buf, sizeof buf,
                "%u slices, %u victims done, %.1f MiB moved; pick %.0f ms (checkpoint %.0f ms), "
                "read-ahead %.0f ms (%u yields), slices %.0f ms (plan %.0f, write and commit "
                "%.0f, finish %.0f)%s",
                slices, victims_done, static_cast<double>(live_moved) / (1 << 20), pick_ms,
                checkpoint_ms, read_ahead_ms, read_ahead_yields, slice_ms, plan_ms, commit_ms,
                finish_ms,
                arrival ? "; ended for a waiting transaction or the unmount" : "");
  return buf;
}

void GcWorker::MaybeGc(bool queued, uint64_t group_bytes) {
  round_ = RoundTrace{};
  ReapResetsBetweenGroups(/*wait=*/false);
  if (!gc_auto_) {
    if (queued) zone_bytes_written_ = 0;  // what is written while GC is off earns no credit
    return;
  }
  {
    MutexLock lock(&core_.mu);
    if (!core_.fatal.ok()) return;
  }
  if (queued && core_.options.gc_slice_ms != 0) {
    // Byte pacing, slices sized by time (gc_slice_ms): one slice of what the group's bytes
    // earned, committed alone before the group (gc_in_groups = false).
    const uint64_t live = PacedSliceBytes(group_bytes);
    if (live == 0) return;
    MutexLock glock(&core_.group_mu);
    const uint64_t t0 = NowNs();
    bool zone_done = false;
    auto r = GcStep(live, &zone_done);
    if (r.ok()) {
      NoteRiddenSlice(r->live_moved, MsSince(t0));
    } else {
      gc_cursor_.reset();
      if (!r.status().IsNotFound()) {
        Log(LogLevel::kError, "background GC: %s", r.status().ToString().c_str());
      }
    }
    MutexLock lock(&core_.counters_mu);
    core_.counters.gc_throttle_ns += NowNs() - t0;
    return;
  }
  // When and how much: gc/pacer.h (slices spaced by the debt below the start watermark
  // under load; idle, on to the stop watermark, yielding to foreground work).
  if (!gc_pacer_.StartRound(GcFree(), gc_cursor_.has_value(), queued)) return;
  MutexLock glock(&core_.group_mu);
  const uint64_t t0 = NowNs();
  for (;;) {
    bool zone_done = false;
    // Queued: a paced slice of fixed size; idle: the idle slice (fixed, or by how far
    // ahead cleaning is), so an arrival waits behind at most one of those.
    // With gc_idle_yield an idle slice also ends at the record an arrival finds it on.
    const uint64_t slice = queued ? kGcSliceBytes : IdleSliceBytes();
    const bool idle_yield = !queued && core_.options.gc_idle_yield;
    // peer: gc_read_ahead
    auto r = GcStep(slice, &zone_done, idle_yield, idle_yield && core_.gc_read_ahead);
    if (r.ok() && !queued) gc_pacer_.Paid(r->live_moved);
    if (r.ok() && !queued && core_.options.gc_slice_ms != 0) {
      // The slice's own time (its read-ahead, which yields to arrivals, is not in it).
      idle_sizer_.Note(r->live_moved, last_slice_ms_, core_.options.gc_slice_ms);
    }
    if (!r.ok()) {
      gc_cursor_.reset();
      if (!r.status().IsNotFound()) {
        Log(LogLevel::kError, "background GC: %s", r.status().ToString().c_str());
      }
      break;
    }
    const bool arrived = !queued && ForegroundWaiting();
    round_.arrival = arrived;
    if (!gc_pacer_.NextSlice(GcFree(), gc_cursor_.has_value(), arrived)) break;
  }
  if (queued) {
    MutexLock lock(&core_.counters_mu);
    core_.counters.gc_throttle_ns += NowNs() - t0;
  }
}

uint64_t GcWorker::RideGcSlice(uint64_t group_bytes) {
  round_ = RoundTrace{};
  ReapResetsBetweenGroups(/*wait=*/false);
  if (!gc_auto_) {
    zone_bytes_written_ = 0;  // what is written while GC is off earns no credit
    return 0;
  }
  {
    MutexLock lock(&core_.mu);
    if (!core_.fatal.ok()) return 0;
  }
  uint64_t live = 0;
  if (core_.options.gc_slice_ms != 0) {
    live = PacedSliceBytes(group_bytes);  // by bytes written, sized by time
  } else {
    const double free = GcFree();
    if (!gc_pacer_.StartRound(free, gc_cursor_.has_value(), /*queued=*/true)) return 0;
    // Under the urgent watermark a paced round is two slices; here it is one of twice the
    // size.
    live = gc_pacer_.Urgent(free) ? 2 * kGcSliceBytes : kGcSliceBytes;
    (void)gc_pacer_.NextSlice(free, true, false);
  }
  if (live == 0) return 0;
  if (!gc_cursor_) {
    MutexLock glock(&core_.group_mu);
    const uint64_t pick_start = NowNs();
    auto victim = PickVictim();
    round_.pick_ms += MsSince(pick_start);
    if (!victim.ok()) return 0;  // nothing to clean
    gc_cursor_ = GcCursor{*victim, victim->start, nullptr, nullptr, false};
  }
  return live;
}

Status GcWorker::GcReadVictim(ZonedDevice* dev, const ZoneStatus& victim, uint64_t offset,
                              const std::vector<ZonedDevice::ReadPiece>& pieces) {
  const GcReadAhead::Key key = ReadAheadKey(victim);
  uint64_t len = 0;
  for (const auto& p : pieces) len += p.len;
  if (!gc_ahead_.owned_by(key) || !gc_ahead_.Holds(offset, len)) return dev->ReadV(offset, pieces);
  uint64_t at = offset;
  for (const auto& p : pieces) {
    if (p.len != 0 && !gc_ahead_.Copy(key, at, p.buf, p.len)) return dev->ReadV(offset, pieces);
    at += p.len;
  }
  return Status::OK();
}

Result<bool> GcWorker::GcReadAheadFor(GcCursor* cursor, uint64_t need, uint64_t target) {
  const ZoneStatus& victim = cursor->victim;
  ZonedDevice* dev = core_.devices[victim.addr.drive].get();
  gc_ahead_.Begin(ReadAheadKey(victim));
  gc_ahead_.DropBefore(cursor->pos);
  if (!cursor->footer_tried) {
    cursor->footer_tried = true;
    SMR_ASSIGN_OR_RETURN(cursor->footer, ReadFooterIndex(dev, victim));
  }
  const uint64_t end = victim.start + victim.committed_wp;
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;  // [from, to), in zone order
  // The bytes the slices read from the cursor on until `max_live` live bytes.
  auto plan = [&](uint64_t max_live) -> Result<Ranges> {
    Ranges want;
    if (!cursor->footer) {
      if (cursor->pos < end) {
        want.emplace_back(cursor->pos, std::min(end, cursor->pos + max_live + max_live / 4));
      }
      return want;
    }
    const auto first = static_cast<uint32_t>((cursor->pos - victim.start) / kBlock);
    const std::vector<ZoneFooterEntry>& footer = *cursor->footer;
    auto f = std::lower_bound(footer.begin(), footer.end(), first,
                              [](const ZoneFooterEntry& x, uint32_t b) { return x.block < b; });
    uint64_t live = 0;
    for (; f != footer.end() && live < max_live; ++f) {
      const uint64_t at = victim.start + uint64_t{f->block} * kBlock;
      const uint64_t to = at + RecordBytes(f->payload_len);
      if (to > end) break;
      bool wanted = f->type == RecordType::kPack;  // its entries are judged by the slice
      if (f->type == RecordType::kData && f->nid != 0) {
        SMR_ASSIGN_OR_RETURN(auto where, core_.meta->GetNid(nullptr, f->nid));
        if (where) {
          SMR_ASSIGN_OR_RETURN(auto onode,
                               core_.meta->GetOnode(nullptr, where->first, where->second));
          if (onode && onode->nid == f->nid) {
            for (const auto& [off, e] : onode->extents) {
              wanted = wanted || (e.drive == victim.addr.drive &&
                                  e.payload_offset == at + kBlock && !e.in_pack);
            }
          }
        }
      }
      if (!wanted) continue;
      live += f->payload_len;
      if (!want.empty() && want.back().second == at) {
        want.back().second = to;
      } else {
        want.emplace_back(at, to);
      }
    }
    return want;
  };
  // Nothing is read while what the next slice needs is held: slices shorter than the
  // target write what one trip of the head to the victim brought in.
  SMR_ASSIGN_OR_RETURN(Ranges needed, plan(need));
  bool held = true;
  for (const auto& [from, to] : needed) held = held && gc_ahead_.Holds(from, to - from);
  if (held) return true;
  SMR_ASSIGN_OR_RETURN(Ranges want, plan(target));
  for (auto [from, to] : want) {
    from = std::max(from, std::min(to, gc_ahead_.end()));  // an earlier read-ahead's part
    while (from < to) {
      if (ForegroundWaiting()) return false;
      const uint64_t n = std::min(to - from, GcReadAhead::kPiece);
      std::string piece(n, '\0');
      SMR_RETURN_IF_ERROR(dev->Read(from, piece.data(), n));
      if (!gc_ahead_.Add(from, std::move(piece))) {
        return Status::Corruption("GC read-ahead: bytes out of order at " + std::to_string(from));
      }
      {
        MutexLock lock(&core_.counters_mu);
        core_.counters.gc_read_ahead_bytes += n;
      }
      from += n;
    }
  }
  return true;
}

bool GcWorker::ForegroundWaiting() {
  MutexLock lock(&core_.mu);
  return core_.peers.pipeline->Queued() || core_.stopping;
}

uint64_t GcWorker::IdleSliceBytes() {
  const uint64_t size = core_.options.gc_idle_slice != 0 ? core_.options.gc_idle_slice
                                                         : gc_pacer_.IdleSlice(GcFree());
  if (core_.options.gc_slice_ms == 0) return size;
  return std::min(size, idle_sizer_.Next(core_.options.gc_slice_ms));
}

uint64_t GcWorker::SliceBudget(uint64_t group_bytes) {
  double ms = core_.options.gc_slice_ms;
  if (ride_sizer_.fitted()) {
    const double own = static_cast<double>(group_bytes) / (1 << 20) * ride_sizer_.ms_per_mib() / 2;
    ms = std::max(ms, own);
  }
  last_ride_bound_ms_ = ms;
  return ride_sizer_.Next(ms);
}

uint64_t GcWorker::PacedSliceBytes(uint64_t group_bytes) {
  const double free = GcFree();
  const bool cleaning = gc_cursor_.has_value();
  // The budget (which advances the sizer's probes) only when a slice may run.
  const bool may = cleaning || free < core_.options.gc_start_free;
  // Credit is earned by what user groups wrote to the zones (NoteGroupZoneBytes): the
  // groups since the last pacing decision, so that metadata-only and inline groups, whose
  // estimate (group_bytes) still counts a header per op, earn nothing.
  const uint64_t earned = std::exchange(zone_bytes_written_, 0);
  return gc_pacer_.PacedBytes(free, cleaning, earned, VictimLive(),
                              may ? SliceBudget(group_bytes) : 0);
}

double GcWorker::VictimLive() const {
  if (!gc_cursor_ || gc_cursor_->victim.written == 0) return last_victim_live_;
  return static_cast<double>(gc_cursor_->victim.live_bytes) /
         static_cast<double>(gc_cursor_->victim.written);
}

void GcWorker::NoteRiddenSlice(uint64_t moved, double ms) {
  if (core_.options.gc_slice_ms == 0) return;
  ride_sizer_.Note(moved, ms, last_ride_bound_ms_);
}

double GcWorker::GcFree() const {
  const ZoneManager::FreeZones z = core_.zones->free_zones();
  // Victims whose reset waits for reads (ReapResets) are as good as free.
  return GcPacedFree(z.free + pending_resets_.size(), z.total, core_.options.gc_stop_free,
                     static_cast<uint64_t>(core_.options.gc_free_zones_max) * core_.devices.size());
}

void StoreCore::NoteDeath(uint64_t age_ns) {
  const double a = static_cast<double>(age_ns);
  mean_lifetime_ns = NextMeanLifetime(mean_lifetime_ns, a);
}

void StoreCore::UpdateDeathRates(const GroupWrites& w) {
  for (uint64_t age : w.death_ages_ns) NoteDeath(age);
  for (const auto& [name, age] : w.name_deaths) lifetime_history.Note(name, age);
  // Bytes that died by user action, per stream of the zone they died in (GC moves are
  // not deaths: a group's GC relocations, gc_live_delta, are left out).
  for (const auto& [addr, delta] : w.live_delta) {
    auto gc = w.gc_live_delta.find(addr);
    const int64_t user = delta - (gc == w.gc_live_delta.end() ? 0 : gc->second);
    if (user == 0) continue;
    if (user < 0) user_deaths += static_cast<uint64_t>(-user);
    const std::optional<StreamId> stream = zones->StreamOf(addr);
    if (stream) death_rates.NoteLiveDelta(static_cast<size_t>(*stream), user);
  }
  // Live bytes per stream integrated over time (txn seqs since the last update).
  const auto live = zones->LiveBytesByStream();
  death_rates.Advance(seq, std::vector<uint64_t>(live.begin(), live.end()));
}

void GcWorker::EnsureSpace(uint64_t bytes) {
  round_ = RoundTrace{};
  if (core_.zones->user_free_bytes(core_.MaxRecordBytes()) >= bytes) return;
  // Emptied victims waiting for reads give room without more cleaning.
  ReapResetsBetweenGroups(/*wait=*/true);
  if (core_.zones->user_free_bytes(core_.MaxRecordBytes()) >= bytes) return;
  // Hybrid drives grow first (store/hybrid_manager.h): converting a CMR realm gains capacity for
  // good, cleaning only gives dead space back.
  core_.peers.hybrid->GrowForSpace(bytes);
  if (!gc_auto_ || core_.zones->user_free_bytes(core_.MaxRecordBytes()) >= bytes) return;
  if (gc_barren_at_ == core_.user_deaths) return;  // nothing died since cleaning stopped paying
  MutexLock glock(&core_.group_mu);
  const uint64_t t0 = NowNs();
  int failures = 0;
  // Cleaning may stop paying: victims nearly all live, whose relocation (and the journal
  // records it makes) takes what their reset gives back. After kGcTriesForSpace whole
  // victims in a row that left neither more free zones nor more room, the group gets
  // NoSpace where it does not fit (found by the option-space run: a commit thread cleaning
  // a full small drive without end).
  uint64_t best_free = core_.zones->free_zones().free,
           best_room = core_.zones->user_free_bytes(core_.MaxRecordBytes());
  int barren = 0;
  while (core_.zones->user_free_bytes(core_.MaxRecordBytes()) < bytes) {
    bool zone_done = false;
    auto r = GcStep(kGcSliceBytes, &zone_done);
    if (r.ok()) gc_pacer_.Paid(r->live_moved);
    if (r.ok() && zone_done) {
      if (Status st = ReapResets(/*wait=*/true); !st.ok()) {
        Log(LogLevel::kError, "GC for space: %s", st.ToString().c_str());
      }
      const uint64_t free_now = core_.zones->free_zones().free;
      const uint64_t room_now = core_.zones->user_free_bytes(core_.MaxRecordBytes());
      if (free_now > best_free || room_now > best_room) {
        best_free = std::max(best_free, free_now);
        best_room = std::max(best_room, room_now);
        barren = 0;
      } else if (++barren >= kGcTriesForSpace) {
        gc_barren_at_ = core_.user_deaths;
        break;
      }
    }
    if (r.ok()) continue;
    gc_cursor_.reset();
    // Nothing left to clean: the commit group gets NoSpace where it does not fit.
    if (r.status().IsNotFound()) break;
    Log(LogLevel::kError, "GC for space: %s", r.status().ToString().c_str());
    // The failed victim is quarantined (GcStep): another zone may still give the room,
    // rather than failing this group with NoSpace. A few tries, not every zone.
    if (++failures >= kGcTriesForSpace) break;
  }
  MutexLock lock(&core_.counters_mu);
  core_.counters.gc_throttle_ns += NowNs() - t0;
}

void GcWorker::CleanForSpace() {
  round_ = RoundTrace{};
  // A conversion gains room for good; otherwise one whole victim (a few tries past victims
  // whose cleaning fails), which frees a zone to the user streams.
  if (core_.peers.hybrid->GrowForSpace(UINT64_MAX)) return;
  if (!gc_auto_ || gc_barren_at_ == core_.user_deaths) return;
  MutexLock glock(&core_.group_mu);
  const uint64_t t0 = NowNs();
  for (int failures = 0; failures < kGcTriesForSpace;) {
    auto r = GcOne();
    if (r.ok()) break;
    gc_cursor_.reset();
    if (r.status().IsNotFound()) break;  // nothing to clean: the transaction gets NoSpace
    Log(LogLevel::kError, "GC for space: %s", r.status().ToString().c_str());
    ++failures;
  }
  MutexLock lock(&core_.counters_mu);
  core_.counters.gc_throttle_ns += NowNs() - t0;
}

// ---------------------------------------------------------------------------------------
// Public API

Result<GcReport> Store::RunGc(uint32_t max_zones) {
  if (impl_->read_only) return Status::ReadOnly("store is mounted read-only");
  std::promise<Result<GcReport>> done;
  auto f = done.get_future();
  CommitPipeline::Pending p;
  p.gc_zones = max_zones;
  p.gc_done = [&done](const Result<GcReport>& r) { done.set_value(r); };
  SMR_RETURN_IF_ERROR(impl_->pipeline->Enqueue(&p));  // kBusy when unmounting
  return f.get();
}

void Store::SetGcAuto(bool on) { impl_->gc_worker.SetGcAuto(on); }

}  // namespace smr
