// The metadata journal: everything RocksDB holds, also in the zones (format/journal.h)
// (store/metadata_journal.h: MetadataJournal, its contract and locks).
//
// Every commit that changes journaled metadata (collections, onodes, xattrs, omap, the nid
// index, store values) places one journal record — its metadata writes as raw key-value
// ops — in the same commit group, so it is written and flushed with the group's data
// records, before RocksDB commits the batch. With StoreOptions::journal_with_data (by
// default on rotational drives) the record follows the group's data in the zone the group
// writes last (LastDataZone; a group without data: the zone the last group wrote), so it
// costs no seek on a drive with a head; that zone is then pinned (ZoneManager::PinJournal, persisted as
// kValueJournalPins in the same commit): GC and mount never reset it until the next
// checkpoint makes its journal records obsolete. Otherwise, and when that zone has no
// room, the record goes to the journal stream's own zones. A checkpoint writes the
// whole journaled keyspace as chunk records, then a journal record marking it complete;
// after that commit, the journal zones sealed before the checkpoint began hold nothing a
// rebuild needs and are reset. A read-write mount adds a mount marker (mount count,
// committed sequence number) to its first journal record, which voids records an earlier
// mount wrote but never committed. store/rebuild.cc reads all of it back.
// Runs on the commit thread (or in Open before it starts), holding group_mu when the
// commit thread runs. Calls marked `// peer:` go to parts still in Store::Impl.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string_view>
#include <unordered_map>

#include "format/journal.h"
#include "format/record_format.h"
#include "store/commit_pipeline.h"
#include "store/metadata_journal.h"
#include "store/store_internal.h"
#include "common/engine_log.h"

namespace smr {

namespace {


// Pinned zones that make a checkpoint due when StoreOptions::journal_pinned_zones_max is 0.
uint64_t DefaultPinLimit(uint64_t data_zones) { return std::max<uint64_t>(4, data_zones / 16); }

std::string EncodeJournalState(uint64_t id, uint64_t seq, uint64_t bytes) {
  return "checkpoint_id=" + std::to_string(id) + "\ncheckpoint_seq=" + std::to_string(seq) +
         "\ncheckpoint_bytes=" + std::to_string(bytes) + "\n";
}

}  // namespace

MetadataJournal::MetadataJournal(StoreCore& core) : core_(core), group_mu_(core.group_mu) {}

void MetadataJournal::SetWithData(bool on) {
  MutexLock lock(&group_mu_);  // no commit thread yet: the lock is for the analysis
  journal_with_data_ = on;
}

void MetadataJournal::QueueMarker(const JournalOp& op) {
  group_mu_.AssertHeld();
  journal_markers_.push_back(op);
}

void MetadataJournal::WriteMarkersAlone() {
  group_mu_.AssertHeld();
  journal_markers_now_ = true;
}

bool MetadataJournal::has_checkpoint() const {
  group_mu_.AssertHeld();
  return has_checkpoint_;
}

void MetadataJournal::SetLastGroupZone(const ZoneAddress& z) {
  group_mu_.AssertHeld();
  last_group_zone_ = z;
}

std::vector<size_t> LastWriteOfEachKey(const std::vector<JournalOp>& ops) {
  std::unordered_map<std::string_view, size_t> last;
  last.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == journalfmt::kOpPut || ops[i].kind == journalfmt::kOpDelete) {
      last[ops[i].key] = i;
    }
  }
  std::vector<size_t> keep;
  keep.reserve(last.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const bool kv = ops[i].kind == journalfmt::kOpPut || ops[i].kind == journalfmt::kOpDelete;
    if (!kv || last[ops[i].key] == i) keep.push_back(i);
  }
  return keep;
}

uint64_t JournalOpsBytes(const std::vector<JournalOp>& ops, bool last_write_only) {
  auto bytes = [](const JournalOp& op) -> uint64_t {
    // AppendJournalOp: tag, then u32-prefixed key and value, or up to four u64s.
    if (op.kind == journalfmt::kOpPut) return 9 + op.key.size() + op.value.size();
    if (op.kind == journalfmt::kOpDelete) return 5 + op.key.size();
    return 33;
  };
  uint64_t n = 0;
  if (last_write_only) {
    for (size_t i : LastWriteOfEachKey(ops)) n += bytes(ops[i]);
  } else {
    for (const JournalOp& op : ops) n += bytes(op);
  }
  return n;
}

// The smallest checkpoint chunk (a key-value pair larger than a chunk gets one of its own).
constexpr uint64_t kMinChunk = 64u << 10;

uint64_t MetadataJournal::JournalOpsLimit() const {
  uint64_t cap = UINT64_MAX;
  for (const auto& d : core_.devices) cap = std::min<uint64_t>(cap, d->info().zone_capacity);
  // The record's header block, the zone's footer, and 16 KiB for the markers (mount, ids,
  // counters, zones opened by the group) and the payload's own header.
  const uint64_t reserved = recfmt::kBlockSize + ZoneFooterRecordBytes(1) + (16u << 10);
  return cap > reserved ? cap - reserved : 0;
}

std::optional<ZoneAddress> LastDataZone(const GroupWrites& writes, const ZoneManager& zones) {
  std::optional<ZoneAddress> out;
  uint32_t latest = 0;
  for (const auto& [addr, buf] : writes.zones) {
    if (buf.length > 0 && (!out || buf.order > latest) &&
        zones.StreamOf(addr) != StreamId::kJournal) {
      latest = buf.order;
      out = addr;
    }
  }
  return out;
}

std::string MetadataJournal::EncodeJournalPins(const std::vector<ZoneAddress>& pins) {
  std::string out;
  for (const ZoneAddress& z : pins) {
    out += std::to_string(z.drive) + " " + std::to_string(z.zone) + "\n";
  }
  return out;
}

Result<std::vector<ZoneAddress>> MetadataJournal::DecodeJournalPins(const std::string& v) {
  std::vector<ZoneAddress> out;
  size_t at = 0;
  while (at < v.size()) {
    const size_t nl = v.find('\n', at);
    if (nl == std::string::npos) {
      return Status::Corruption("metadata value 'journal_pins' does not end in a newline");
    }
    unsigned drive = 0, zone = 0;
    char extra = 0;
    const std::string line = v.substr(at, nl - at);
    if (std::sscanf(line.c_str(), "%u %u%c", &drive, &zone, &extra) != 2 || drive > 0xffff) {
      return Status::Corruption("metadata value 'journal_pins': line '" + line +
                                "' is not DRIVE ZONE");
    }
    out.push_back(ZoneAddress{static_cast<uint16_t>(drive), zone});
    at = nl + 1;
  }
  return out;
}

Status MetadataJournal::RefusePreJournalStore() const {
  if (!core_.options.journal) return Status::OK();
  SMR_ASSIGN_OR_RETURN(auto v, core_.meta->GetValue(nullptr, kValueJournal));
  if (v) return Status::OK();
  // No checkpoint yet is a store whose first mount (mkfs mounts it once to write the
  // checkpoint, before any transaction) stopped before it completed: Open writes it. A
  // store that committed collections or objects without one was made before the journal
  // existed (a pre-release layout of store format 1): its drives alone could never
  // rebuild its metadata, and this build does not mount it.
  SMR_ASSIGN_OR_RETURN(const uint64_t cids, core_.meta->GetCounter(nullptr, kCounterCid));
  SMR_ASSIGN_OR_RETURN(const uint64_t nids, core_.meta->GetCounter(nullptr, kCounterNid));
  if (cids == 0 && nids == 0) return Status::OK();
  return Status::NotSupported(
      "store " + core_.dir + ": metadata journal: no checkpoint, yet collections (highest id " +
      std::to_string(cids) + ") and objects (highest id " + std::to_string(nids) +
      ") were committed: a store made before the metadata journal (a pre-release layout of "
      "store format 1) is not supported (this build reads store format 1 with its metadata "
      "journal, journal payload version " + std::to_string(journalfmt::kVersion) +
      "); copy its objects to a new store");
}

Status MetadataJournal::LoadJournalState() {
  MutexLock lock(&group_mu_);  // Open, no commit thread yet: the lock is for the analysis
  SMR_ASSIGN_OR_RETURN(auto v, core_.meta->GetValue(nullptr, kValueJournal));
  has_checkpoint_ = v.has_value();
  if (!v) return Status::OK();
  unsigned long long id = 0, seq_at = 0, bytes = 0;
  if (std::sscanf(v->c_str(), "checkpoint_id=%llu\ncheckpoint_seq=%llu\ncheckpoint_bytes=%llu",
                  &id, &seq_at, &bytes) != 3) {
    return Status::Corruption("metadata value 'journal' is malformed: " + *v);
  }
  checkpoint_id_ = id;
  checkpoint_seq_ = seq_at;
  last_checkpoint_bytes_ = bytes;
  SizeJournalReserve();
  // Journal bytes written since that checkpoint: all journal zone bytes but its own.
  uint64_t total = 0;
  for (const ZoneStatus& z : core_.zones->Snapshot()) {
    if ((z.state == ZoneState::kOpen || z.state == ZoneState::kSealed) &&
        z.stream == StreamId::kJournal) {
      total += z.written;
    }
  }
  journal_bytes_ = total > last_checkpoint_bytes_ ? total - last_checkpoint_bytes_ : 0;
  return Status::OK();
}

Status MetadataJournal::JournalBatch(MetaStore::Batch* batch, GroupWrites* writes) {
  group_mu_.AssertHeld();
  if (!core_.options.journal) return Status::OK();
  const std::vector<JournalOp>& ops = batch->journal();
  // Markers alone wait for the next metadata change (a failed transaction, or a commit of
  // counters only, writes nothing to the zones).
  if (ops.empty() && !journal_markers_now_) return Status::OK();
  std::string body;
  uint32_t count = 0;
  auto add = [&](const JournalOp& op) {
    AppendJournalOp(op, &body);
    ++count;
  };
  for (const JournalOp& op : journal_markers_) add(op);
  for (const OpenedZone& z : core_.zones->TakeOpenedZones()) {
    JournalOp op;
    op.kind = journalfmt::kOpZoneOpen;
    op.a = z.drive;
    op.b = z.zone;
    op.c = static_cast<uint64_t>(z.stream);
    op.d = z.opened_seq;
    add(op);
  }
  {
    JournalOp op;
    op.kind = journalfmt::kOpCounters;
    MutexLock lock(&core_.counters_mu);
    op.a = core_.counters.lifetime_user_bytes;
    op.b = core_.counters.lifetime_device_bytes;
    op.c = core_.counters.lifetime_txns;
    op.d = core_.peers.gc->lifetime_gc_bytes();
    add(op);
  }
  {
    JournalOp op;
    op.kind = journalfmt::kOpIds;
    op.a = core_.nid_max;
    op.b = core_.cid_max;
    add(op);
  }
  // Only the last write of each key: replaying a record applies its ops in order, so the
  // earlier writes of a key (a group that rewrites one onode per small write) change
  // nothing a rebuild ends with.
  for (size_t i : LastWriteOfEachKey(ops)) add(ops[i]);
  auto payload = std::make_shared<const std::string>(FinishJournalPayload(count, body));
  RecordHeader h;
  h.type = RecordType::kJournal;
  h.seq = core_.seq;
  h.collection_id = core_.superblock.mount_count;
  h.payload_len = static_cast<uint32_t>(payload->size());
  h.payload_crc = PayloadCrc(payload->data(), payload->size());
  const uint64_t bytes = RecordBytes(payload->size());
  std::optional<Allocation> with_data;
  if (journal_with_data_ && !journal_own_zones_now_) {
    // The zone the group writes last: its one device write carries the record too, and
    // the head is there when the next group starts.
    std::optional<ZoneAddress> target = LastDataZone(*writes, *core_.zones);
    if (!target && writes->zones.empty()) target = last_group_zone_;
    if (target) {
      // A pack still open in the zone is closed first: the record follows it.
      writes->ClosePacksIn(target->drive, target->zone);
      with_data = core_.zones->AllocateIn(*target, bytes, FooterEntryFor(0, h));
    }
  }
  if (with_data) {
    SMR_ASSIGN_OR_RETURN(GroupWrites::ZoneBuffer * buf, ZoneBufferAt(writes, *with_data));
    GroupWrites::AppendRecordPieces(h, *payload, buf);
    writes->keep_alive.push_back(payload);
    // Not live (GC skips journal records); the pin keeps the zone until a checkpoint. It
    // is persisted in this commit; one taken by a group that then fails stays (harmless:
    // the next checkpoint clears it).
    // A checkpoint under way (stepped) must keep this pin when it completes: the record
    // is newer than where its walk began.
    if (stepping_) stepping_->repinned.insert({with_data->drive, with_data->zone});
    if (core_.zones->PinJournal({with_data->drive, with_data->zone})) {
      batch->PutDerivedValue(kValueJournalPins, EncodeJournalPins(core_.zones->JournalPins()));
    }
  } else {
    Allocation at;
    SMR_RETURN_IF_ERROR(PlaceRecord(core_.zones.get(), core_.seq, StreamId::kJournal, h,
                                    *payload, payload, writes, &at));
    // Journal zones count their records as live: they are not GC's to reclaim.
    writes->live_delta[{at.drive,
                        static_cast<uint32_t>(at.offset / core_.ZoneSize(at.drive))}] +=
        static_cast<int64_t>(bytes);
  }
  journal_bytes_pending_ += bytes;
  return Status::OK();
}

void MetadataJournal::JournalCommitted(bool ok) {
  group_mu_.AssertHeld();
  if (ok) {
    journal_markers_.clear();
    journal_markers_now_ = false;
    journal_bytes_ += journal_bytes_pending_;
    if (stepping_) stepping_->journal_bytes_since += journal_bytes_pending_;
    MutexLock lock(&core_.counters_mu);
    core_.counters.journal_bytes_written += journal_bytes_pending_;
  }
  journal_bytes_pending_ = 0;
}

Status MetadataJournal::Checkpoint() {
  group_mu_.AssertHeld();
  if (!core_.options.journal) return Status::OK();
  // A stepped checkpoint under way is dropped: its chunks are never completed (a rebuild
  // ignores them), and this one's obsolete zones include every journal zone sealed now.
  stepping_.reset();
  std::unique_ptr<CheckpointState> c = BeginCheckpoint();
  SMR_ASSIGN_OR_RETURN(bool ended, CheckpointStep(c.get(), UINT64_MAX));
  if (!ended) return Status::Corruption("metadata walk for a checkpoint stopped early");
  return FinishCheckpoint(c.get());
}

Status MetadataJournal::CheckpointForPins() {
  group_mu_.AssertHeld();
  if (!core_.options.journal) return Status::OK();
  if (!stepping_) return Checkpoint();
  // The stepped checkpoint under way, finished now: it unpins what was pinned when it began.
  std::unique_ptr<CheckpointState> c = std::move(stepping_);
  SMR_ASSIGN_OR_RETURN(bool ended, CheckpointStep(c.get(), UINT64_MAX));
  if (!ended) return Status::Corruption("metadata walk for a checkpoint stopped early");
  return FinishCheckpoint(c.get());
}

std::unique_ptr<MetadataJournal::CheckpointState> MetadataJournal::BeginCheckpoint() {
  auto c = std::make_unique<CheckpointState>();
  c->id = checkpoint_id_ + 1;
  c->at_seq = ++core_.seq;
  // Journal zones sealed before this checkpoint: obsolete once it is complete.
  for (const ZoneStatus& z : core_.zones->Snapshot()) {
    if (z.state == ZoneState::kSealed && z.stream == StreamId::kJournal) {
      c->obsolete.push_back(z.addr);
    }
  }
  const std::vector<ZoneAddress> pins = core_.zones->JournalPins();
  c->pins_at_begin.insert(pins.begin(), pins.end());
  c->group = std::make_unique<GroupWrites>();
  return c;
}

Result<bool> MetadataJournal::CheckpointStep(CheckpointState* c, uint64_t budget) {
  // Chunks of at most one record payload each, committed (zone accounting) every ~64 MiB
  // so a large keyspace does not sit in memory whole, and at the end of every step.
  // A chunk is one record, which must fit in a zone beside its footer: at most
  // max_record_payload, and at most what one journal record may hold (JournalOpsLimit; the
  // default max_record_payload of 1 MiB passes zones of 1 MiB or less).
  const uint64_t chunk_max = std::max<uint64_t>(
      kMinChunk, std::min<uint64_t>(core_.options.max_record_payload, JournalOpsLimit()));
  uint64_t walked = 0;
  auto ended = core_.meta->ForEachJournaledKeyFrom(
      c->next_key,
      [&](std::string_view k, std::string_view v, bool* stop) SMR_REQUIRES(group_mu_) {
    const uint64_t need = 8 + k.size() + v.size();
    if (!c->kvs.empty() && c->kv_bytes + need + 5 > chunk_max) {
      SMR_RETURN_IF_ERROR(CheckpointEmitChunk(c));
    }
    c->kvs.emplace_back(std::string(k), std::string(v));
    c->kv_bytes += need;
    walked += need;
    // The smallest key after this one: where the next step resumes.
    c->next_key.assign(k.data(), k.size());
    c->next_key.push_back('\0');
    if (walked >= budget) *stop = true;
    return Status::OK();
  });
  SMR_RETURN_IF_ERROR(ended.status());
  SMR_RETURN_IF_ERROR(CheckpointEmitChunk(c));
  SMR_RETURN_IF_ERROR(CheckpointFlushGroup(c));
  return *ended;
}

Status MetadataJournal::FinishCheckpoint(CheckpointState* c) {
  SMR_RETURN_IF_ERROR(CheckpointComplete(c));
  // The journal before it is obsolete: free its sealed zones. They are committed free
  // first and reset after: a crash in between leaves zones the metadata calls free that
  // still hold bytes, which mount resets (ZoneManager::Load); the other order left the
  // metadata naming committed journal data a reset drive no longer had, and no mount
  // (qa/crash/repro_journal_release.sh). No allocation can take them meanwhile: they were
  // sealed when the checkpoint began and only a reset reopens a zone; this is the commit
  // thread, with group_mu held.
  if (c->obsolete.empty()) return Status::OK();
  return ReleaseJournalZones(c->obsolete);
}

Status MetadataJournal::CheckpointFlushGroup(CheckpointState* c) {
  if (c->group->zones.empty()) return Status::OK();
  auto batch = core_.meta->NewBatch();
  SMR_RETURN_IF_ERROR(core_.peers.pipeline->WriteAndCommit(c->group.get(), batch.get(), 0));
  c->group = std::make_unique<GroupWrites>();
  c->group_bytes = 0;
  return Status::OK();
}

Status MetadataJournal::CheckpointEmitChunk(CheckpointState* c) {
  if (c->kvs.empty()) return Status::OK();
  auto payload = std::make_shared<const std::string>(EncodeCheckpointChunk(c->kvs));
  c->kvs.clear();
  c->kv_bytes = 0;
  RecordHeader h;
  h.type = RecordType::kCheckpoint;
  h.seq = c->at_seq;
  h.collection_id = core_.superblock.mount_count;
  h.nid = c->id;
  h.logical_offset = c->chunks;
  h.payload_len = static_cast<uint32_t>(payload->size());
  h.payload_crc = PayloadCrc(payload->data(), payload->size());
  Allocation at;
  SMR_RETURN_IF_ERROR(PlaceRecord(core_.zones.get(), c->at_seq, StreamId::kJournal, h,
                                  *payload, payload, c->group.get(), &at));
  const uint64_t rb = RecordBytes(payload->size());
  c->group->live_delta[{at.drive,
                        static_cast<uint32_t>(at.offset / core_.ZoneSize(at.drive))}] +=
      static_cast<int64_t>(rb);
  ++c->chunks;
  c->bytes += rb;
  c->group_bytes += rb;
  if (c->group_bytes >= (64ull << 20)) return CheckpointFlushGroup(c);
  return Status::OK();
}

Status MetadataJournal::CheckpointComplete(CheckpointState* c) {
  const uint64_t id = c->id;
  const uint64_t at_seq = c->at_seq;
  const uint64_t chunks = c->chunks;
  const uint64_t bytes = c->bytes;
  // Complete: the marker, and the state a mount reads, in one commit. The marker goes to
  // a journal zone (a rebuild starts from it; pinned data zones are unpinned now), and the
  // pins are cleared in the same commit: every journal record before it is obsolete.
  JournalOp done;
  done.kind = journalfmt::kOpCheckpointDone;
  done.a = id;
  done.b = at_seq;
  done.c = chunks;
  journal_markers_.push_back(done);
  // The stream of every data zone in use, again: a rebuild from this checkpoint on no
  // longer sees the notes written when they opened (store/rebuild.cc reads these from the
  // record that completes the checkpoint).
  for (const ZoneStatus& z : core_.zones->Snapshot()) {
    if ((z.state != ZoneState::kOpen && z.state != ZoneState::kSealed) ||
        z.stream == StreamId::kJournal) {
      continue;
    }
    JournalOp note;
    note.kind = journalfmt::kOpZoneOpen;
    note.a = z.addr.drive;
    note.b = z.addr.zone;
    note.c = static_cast<uint64_t>(z.stream);
    note.d = z.opened_seq;
    journal_markers_.push_back(note);
  }
  auto batch = core_.meta->NewBatch();
  batch->PutValue(kValueJournal, EncodeJournalState(id, at_seq, bytes));
  // The pins of records older than the checkpoint go; a zone that took a journal record
  // after it began (a stepped checkpoint: groups committed between its steps) stays pinned,
  // as a rebuild from this checkpoint replays that record.
  const std::vector<ZoneAddress> pins = core_.zones->JournalPins();
  std::vector<ZoneAddress> keep;
  for (const ZoneAddress& z : pins) {
    if (c->pins_at_begin.count(z) == 0 || c->repinned.count(z) != 0) keep.push_back(z);
  }
  const bool pins_change = keep.size() != pins.size();
  if (pins_change) {
    batch->PutDerivedValue(kValueJournalPins, keep.empty() ? "" : EncodeJournalPins(keep));
  }
  journal_own_zones_now_ = true;
  Status done_commit = core_.peers.pipeline->WriteAndCommit(c->group.get(), batch.get(), 0);
  journal_own_zones_now_ = false;
  SMR_RETURN_IF_ERROR(done_commit);
  if (pins_change) core_.zones->SetJournalPins(keep);
  checkpoint_id_ = id;
  checkpoint_seq_ = at_seq;
  last_checkpoint_bytes_ = bytes;
  SizeJournalReserve();
  has_checkpoint_ = true;
  // What was journaled since the checkpoint began is still needed (a rebuild replays it).
  journal_bytes_ = c->journal_bytes_since;
  {
    MutexLock lock(&core_.counters_mu);
    core_.counters.checkpoints++;
    core_.counters.checkpoint_bytes_written += bytes;
  }
  return Status::OK();
}

Status MetadataJournal::ReleaseJournalZones(const std::vector<ZoneAddress>& obsolete) {
  for (const ZoneAddress& z : obsolete) core_.zones->ReleaseZone(z.drive, z.zone);
  auto freed = core_.meta->NewBatch();
  for (const auto& [addr, zm] : core_.zones->TakeDirtyZones()) {
    freed->PutZone(addr.drive, addr.zone, zm);
  }
  SMR_RETURN_IF_ERROR(core_.meta->Commit(freed.get(), /*sync=*/true));
  for (const ZoneAddress& z : obsolete) {
    Status s = core_.zones->ResetZone(z.drive, z.zone);
    if (!s.ok()) {
      // Free in the metadata but not empty on the drive: never allocate it this mount
      // (the next mount resets it, or reports the drive).
      MutexLock lock(&core_.mu);
      core_.fatal = Status::ReadOnly(
          "store is read-only: resetting obsolete journal zone " + std::to_string(z.zone) +
          " of drive " + std::to_string(z.drive) + " failed (" + s.ToString() + "); remount");
      return core_.fatal;
    }
  }
  return Status::OK();
}

void MetadataJournal::SizeJournalReserve() {
  // Room on a full drive for the group records written until the next checkpoint
  // (MaybeCheckpoint takes one a quarter zone after the journal entered its reserve) and
  // for that checkpoint (its size is the last one's, give or take): one zone + the last
  // checkpoint's zones, per drive.
  if (!core_.options.journal) return;
  const uint64_t zone_cap = core_.devices[0]->info().zone_capacity;
  const uint64_t ckpt_zones =
      zone_cap == 0 ? 0 : (last_checkpoint_bytes_ + zone_cap - 1) / zone_cap;
  core_.zones->SetJournalReserve(static_cast<uint32_t>(1 + ckpt_zones));
}

bool MetadataJournal::CheckpointDue(bool for_pins) const {
  if (stepping_) return true;  // a stepped checkpoint under way takes its next step
  // Journal since the last checkpoint over twice that checkpoint's size (and over one
  // zone): its space is then mostly obsolete records a checkpoint frees.
  const uint64_t zone_cap = core_.devices[0]->info().zone_capacity;
  const uint64_t threshold = std::max(2 * last_checkpoint_bytes_, zone_cap);
  // Or when the data zones pinned by journal records (journal_with_data) are many: a
  // checkpoint unpins them. (GC that finds only pinned zones worth cleaning takes one
  // itself: PickVictim.)
  const size_t pins = core_.zones->JournalPins().size();
  const uint64_t pin_limit =
      core_.options.journal_pinned_zones_max != 0
          ? core_.options.journal_pinned_zones_max
          : DefaultPinLimit(zone_cap == 0 ? 0 : core_.zones->data_capacity() / zone_cap);
  const bool unpin = for_pins && pins > 0 && pins >= pin_limit;
  // Or when the journal has begun taking its reserve (a full store: users and GC left
  // it) and a quarter zone was journaled since the last checkpoint, which then frees.
  const bool tight = journal_bytes_ >= zone_cap / 4 && core_.zones->JournalInReserve();
  return !(journal_bytes_ < threshold && !unpin && !tight);
}

void MetadataJournal::MaybeCheckpoint(bool for_pins) {
  if (!core_.options.journal) return;
  if (!CheckpointDue(for_pins)) return;
  MutexLock glock(&group_mu_);
  {
    MutexLock lock(&core_.mu);
    if (!core_.fatal.ok()) return;
  }
  const uint64_t step = core_.options.checkpoint_step;
  Status s;
  if (step == 0) {
    s = Checkpoint();
  } else {
    // One step between commit groups: the walk goes on from where the last step stopped,
    // so the commit thread is held for about `step` bytes of chunks, not the keyspace.
    if (!stepping_) stepping_ = BeginCheckpoint();
    Result<bool> ended = CheckpointStep(stepping_.get(), step);
    if (!ended.ok()) {
      s = ended.status();
    } else if (*ended) {
      s = FinishCheckpoint(stepping_.get());
    }
    if (!s.ok() || (ended.ok() && *ended)) stepping_.reset();
  }
  if (!s.ok()) {
    Log(LogLevel::kError, "metadata checkpoint failed: %s", s.ToString().c_str());
  }
}

}  // namespace smr
