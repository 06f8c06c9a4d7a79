// Store::Fsck: cross-checks metadata, zone accounting and records.
//
// Shallow: every onode's extents are ordered, inside the object, inside one zone of an
// existing drive, inside their record, and below the zone's committed write pointer, in a
// zone the zone manager considers data (open or sealed); inline objects have no extents;
// every zone's live-byte counter equals the sum of the extents in it.
// Deep: additionally reads every record an extent references: its header must be a data
// record of the same object (nid) and length, and its payload must match its crc.
// Both: the object-id (nid) index has exactly one entry per object, naming it; no two
// objects share a nid. Zones a drive now reports offline or read-only are retired first;
// an extent in an offline zone is an error and its object is listed as lost (deep: so is
// an object whose record cannot be read, or fails its header or crc check).
// Repair: rewrites zone live-byte counters from the extents and the object-id index from
// the onodes (nothing else is changed; a record that fails its crc is reported, never
// "fixed").
// Runs with the commit pipeline paused (it holds the group lock).
#include <optional>
#include <set>
#include "format/record_format.h"

#include "store/store_internal.h"

namespace smr {

namespace {

// Records are aligned to the record format's block (format/record_format.h).
constexpr uint64_t kBlock = recfmt::kBlockSize;


// An extent that references a record: its object's nid, the extent, and who it belongs to
// ("collection/object").
struct Owner {
  uint64_t nid;
  Extent extent;
  std::string who;
};

// What Fsck's steps share: the store, the report, what the onode scan found and the
// repairs it calls for.
struct FsckState {
  Store::Impl* s = nullptr;
  FsckReport report;
  std::map<ZoneAddress, ZoneStatus> zones;
  std::set<std::string> lost;  // objects with data that cannot be read back
  std::map<ZoneAddress, uint64_t> live;
  std::set<std::pair<uint16_t, uint64_t>> records;  // (drive, payload offset) to verify
  // Every extent that references a record, first owner first (deep: the header is checked
  // against each, the payload read once).
  std::map<std::pair<uint16_t, uint64_t>, std::vector<Owner>> record_owner;
  std::map<uint64_t, std::pair<uint64_t, ObjectId>> by_nid;  // onode nid -> (cid, object)
  // Repairs: nid index entries to set (or remove), zone live-byte deltas.
  std::vector<std::pair<uint64_t, std::optional<std::pair<uint64_t, ObjectId>>>> nid_fixes;
  std::vector<std::pair<ZoneAddress, int64_t>> fixes;

  void error(std::string msg) { report.errors.push_back(std::move(msg)); }
};

// Checks extent `e` (keyed at `off`) of object `o` (`who`), which follows the extent ending
// at *prev_end (updated): its place in the object, drive, zone and record; adds its length
// to its zone's live bytes and, unless its zone is offline (its object then lost), its
// record to those deep verifies.
void CheckExtent(FsckState& f, const std::string& who, const Onode& o, uint64_t off,
                 const Extent& e, uint64_t* prev_end) {
  Store::Impl* s = f.s;
  ++f.report.extents;
  const std::string where = who + " extent @" + std::to_string(off);
  if (off != e.logical_offset) f.error(where + ": keyed at the wrong offset");
  if (e.length == 0) f.error(where + ": empty extent");
  if (e.logical_offset < *prev_end) f.error(where + ": overlaps the previous extent");
  *prev_end = e.end();
  if (e.end() > o.size) f.error(where + ": ends past the object size");
  if (e.drive >= s->devices.size()) {
    f.error(where + ": on drive " + std::to_string(e.drive) + " which does not exist");
    ++f.report.extents_not_read;
    return;
  }
  if (uint64_t{e.payload_skip} + e.length > e.payload_len) {
    f.error(where + ": outside its record's payload");
  }
  const uint64_t zone_size = s->ZoneSize(e.drive);
  const ZoneAddress za{e.drive, static_cast<uint32_t>(e.payload_offset / zone_size)};
  auto zit = f.zones.find(za);
  if (zit == f.zones.end()) {
    f.error(where + ": zone does not exist");
    ++f.report.extents_not_read;
    return;
  }
  const ZoneStatus& z = zit->second;
  if (z.state != ZoneState::kOpen && z.state != ZoneState::kSealed) {
    f.error(where + ": in zone " + std::to_string(za.zone) + " which is " +
            ZoneStateName(z.state));
  }
  // The record (for a pack entry: the pack) starts in the zone; the payload (the entry's
  // bytes), to the next block boundary, ends within the committed bytes.
  const uint64_t rec_end =
      (e.payload_offset + e.payload_len + kBlock - 1) / kBlock * kBlock - z.start;
  if (e.payload_offset < z.start + kBlock + (e.in_pack ? e.pack_offset : 0) ||
      rec_end > z.committed_wp) {
    f.error(where + ": record ends at " + std::to_string(rec_end) + " past zone " +
            std::to_string(za.zone) + "'s committed write pointer " +
            std::to_string(z.committed_wp));
  }
  f.live[za] += e.length;
  if (z.device_cond == ZoneCondition::kOffline) {
    f.error(where + ": in zone " + std::to_string(za.zone) + " of drive " +
            std::to_string(za.drive) + ", which the drive reports offline: data lost");
    f.lost.insert(who);
    ++f.report.extents_not_read;
    return;
  }
  f.records.insert({e.drive, e.payload_offset});
  f.record_owner[{e.drive, e.payload_offset}].push_back({o.nid, e, who});
}

// Checks object `oid` of collection `cid` (named `name`): its nid is no other object's
// (f.by_nid), an inline object has no extents and its size of data, and each extent.
void CheckOnode(FsckState& f, const std::string& name, uint64_t cid, const ObjectId& oid,
                const Onode& o) {
  ++f.report.objects;
  const std::string who = name + "/" + oid.ToString();
  if (!f.by_nid.emplace(o.nid, std::make_pair(cid, oid)).second) {
    f.error(who + ": nid " + std::to_string(o.nid) + " is also the nid of " +
            std::to_string(f.by_nid[o.nid].first) + "/" + f.by_nid[o.nid].second.ToString());
  }
  if (o.data_inline) {
    if (!o.extents.empty()) f.error(who + ": inline object also has extents");
    if (o.inline_data.size() != o.size) {
      f.error(who + ": inline data of " + std::to_string(o.inline_data.size()) +
              " bytes for size " + std::to_string(o.size));
    }
    return;
  }
  uint64_t prev_end = 0;
  for (const auto& [off, e] : o.extents) CheckExtent(f, who, o, off, e, &prev_end);
}

// Checks every onode of every collection, in order. Errors: the metadata database's.
Status CheckOnodes(FsckState& f) {
  SMR_ASSIGN_OR_RETURN(auto colls, f.s->meta->ListCollections(nullptr));
  for (const auto& [name, cm] : colls) {
    ++f.report.collections;
    ObjectId start = ObjectId::Min(), end = ObjectId::Max(), next;
    for (;;) {
      std::vector<std::pair<ObjectId, Onode>> batch;
      SMR_RETURN_IF_ERROR(f.s->meta->ListOnodes(nullptr, cm.cid, start, end, 1024, &batch, &next));
      for (const auto& [oid, o] : batch) CheckOnode(f, name, cm.cid, oid, o);
      if (next.max || batch.empty()) break;
      start = next;
    }
  }
  return Status::OK();
}

// The object-id (nid) index: one entry per object, naming where it lives; GC finds the
// owner of a record through it. Each wrong, stray or missing entry is an error and a fix
// in f.nid_fixes. Errors: the metadata database's.
Status CheckNidIndex(FsckState& f) {
  std::set<uint64_t> indexed;
  SMR_RETURN_IF_ERROR(f.s->meta->ForEachNid([&](uint64_t nid, uint64_t cid, const ObjectId& oid) {
    indexed.insert(nid);
    auto it = f.by_nid.find(nid);
    if (it == f.by_nid.end()) {
      f.error("object-id index: nid " + std::to_string(nid) + " names " + std::to_string(cid) +
              "/" + oid.ToString() + ", which has no object with that nid");
      f.nid_fixes.emplace_back(nid, std::nullopt);
    } else if (it->second.first != cid || !(it->second.second == oid)) {
      f.error("object-id index: nid " + std::to_string(nid) + " names " + std::to_string(cid) +
              "/" + oid.ToString() + ", but the object with that nid is " +
              std::to_string(it->second.first) + "/" + it->second.second.ToString());
      f.nid_fixes.emplace_back(nid, it->second);
    }
    return Status::OK();
  }));
  for (const auto& [nid, where] : f.by_nid) {
    if (indexed.count(nid)) continue;
    f.error("object-id index: object " + std::to_string(where.first) + "/" +
            where.second.ToString() + " (nid " + std::to_string(nid) + ") has no entry");
    f.nid_fixes.emplace_back(nid, where);
  }
  return Status::OK();
}

// Zone live counters: each zone's (but reserved and in-use journal zones') equals the sum
// of its extents; each that does not is an error and a fix in f.fixes.
void CheckZoneLive(FsckState& f) {
  for (const auto& [addr, z] : f.zones) {
    if (z.state == ZoneState::kReserved) continue;
    // Journal zones count their journal records as live (store/metadata_journal.cc).
    if (z.stream == StreamId::kJournal && z.state != ZoneState::kFree) continue;
    const uint64_t want = f.live.count(addr) ? f.live[addr] : 0;
    if (z.live_bytes != want) {
      f.error("drive " + std::to_string(addr.drive) + " zone " + std::to_string(addr.zone) +
              ": live bytes " + std::to_string(z.live_bytes) + " but extents reference " +
              std::to_string(want));
      f.fixes.emplace_back(addr, static_cast<int64_t>(want) - static_cast<int64_t>(z.live_bytes));
    }
  }
}

// Deep: zone `addr`'s footer position (ZoneMeta::footer_at) names a zone-footer record
// ending at the zone's committed end, whose payload checks and each of whose entries
// describes the record at its block as that record's header does; else an error. GC
// checks the footer before it uses it, so a wrong position loses nothing, but it means the
// metadata and the zone disagree. `header` is a block-sized buffer.
void CheckFooter(FsckState& f, const ZoneAddress& addr, const ZoneStatus& z,
                 std::string& header) {
  Store::Impl* s = f.s;
  const std::string where = "drive " + std::to_string(addr.drive) + " zone " +
                            std::to_string(addr.zone) + ": footer at " +
                            std::to_string(z.footer_at);
  Status st = s->devices[addr.drive]->Read(z.start + z.footer_at, header.data(), kBlock);
  if (!st.ok()) {
    f.error(where + ": " + st.ToString());
    return;
  }
  auto h = DecodeRecordHeader(header.data());
  if (!h.ok() || h->type != RecordType::kZoneFooter ||
      z.footer_at + RecordBytes(h->payload_len) != z.committed_wp) {
    f.error(where + ": " +
            (h.ok() ? std::string("not a zone-footer record ending at the committed end ") +
                          std::to_string(z.committed_wp)
                    : h.status().ToString()));
    return;
  }
  // Each entry describes the record at its block as that record's header does (GC
  // passes over dead records by the footer alone, rebuild trusts it): read each header
  // and compare.
  std::string payload((h->payload_len + kBlock - 1) / kBlock * kBlock, '\0');
  st = s->devices[addr.drive]->Read(z.start + z.footer_at + kBlock, payload.data(),
                                    payload.size());
  if (st.ok()) st = VerifyPayload(*h, payload.data());
  auto entries = st.ok() ? DecodeZoneFooter(std::string_view(payload.data(), h->payload_len))
                         : Result<std::vector<ZoneFooterEntry>>(st);
  if (!entries.ok()) {
    f.error(where + ": " + entries.status().ToString());
    return;
  }
  std::string rec(kBlock, '\0');
  for (const ZoneFooterEntry& fe : *entries) {
    const uint64_t at = uint64_t{fe.block} * kBlock;
    Status rs = at < z.footer_at ? s->devices[addr.drive]->Read(z.start + at, rec.data(), kBlock)
                                 : Status::Corruption("entry past the footer");
    auto rh = rs.ok() ? DecodeRecordHeader(rec.data()) : Result<RecordHeader>(rs);
    if (!rh.ok() || FooterEntryFor(at, *rh) != fe) {
      f.error(where + ": entry for block " + std::to_string(fe.block) +
              " does not describe the record there (" +
              (rh.ok() ? std::string(RecordTypeName(rh->type)) + " of " +
                             std::to_string(rh->payload_len) + " payload bytes, seq " +
                             std::to_string(rh->seq) + ", " +
                             std::to_string(rh->logical_offset) + " entries or offset" +
                             "; the entry: " + RecordTypeName(fe.type) + " of " +
                             std::to_string(fe.payload_len) + ", seq " +
                             std::to_string(fe.seq) + ", " +
                             std::to_string(fe.logical_offset)
                       : rh.status().ToString()) +
              ")");
      break;
    }
  }
}

// Deep: reads the record at `key` (drive, payload offset) that f.record_owner's extents
// reference: its header must match the first owner's extent (the record's, or its pack
// entry's, type, nid, length and crc), every other owner's extent must name the same
// payload, and the whole record must read and check. Counts it verified or failed (its
// owners then lost). `header` is a block-sized buffer.
void VerifyRecord(FsckState& f, const std::pair<uint16_t, uint64_t>& key, std::string& header) {
  Store::Impl* s = f.s;
  FsckReport& report = f.report;
  const std::vector<Owner>& owners = f.record_owner[key];
  report.extents_sharing_record += owners.size() - 1;
  const Owner& owner = owners.front();
  const uint64_t nid = owner.nid;
  const Extent& e = owner.extent;
  const std::string where = owner.who + ": drive " + std::to_string(key.first) +
                            (e.in_pack ? " pack @" : " record @") +
                            std::to_string(e.record_offset()) +
                            (e.in_pack ? " entry @+" + std::to_string(e.pack_offset) : "");
  // A failed check: an error, the owner lost, the record failed.
  auto fail = [&](const std::string& why) {
    f.error(where + ": " + why);
    f.lost.insert(owner.who);
    ++report.records_failed;
  };
  Status st = s->devices[key.first]->Read(e.record_offset(), header.data(), kBlock);
  if (!st.ok()) return fail(st.ToString());
  auto h = DecodeRecordHeader(header.data());
  if (!h.ok()) return fail(h.status().ToString());
  // What the header says about the extent's bytes: the record's fields, or its pack
  // entry's.
  RecordType want_type = RecordType::kData;
  uint64_t h_nid = h->nid;
  uint32_t h_len = h->payload_len, h_crc = h->payload_crc;
  if (e.in_pack) {
    want_type = RecordType::kPack;
    h_nid = 0;
    for (const PackEntry& pe : h->pack) {
      if (pe.offset == e.pack_offset) {
        h_nid = pe.nid;
        h_len = pe.payload_len;
        h_crc = pe.payload_crc;
      }
    }
  }
  if (h->type != want_type || h_nid != nid || h_len != e.payload_len ||
      h_crc != e.payload_crc) {
    return fail("header does not match the extent that references it (nid " +
                std::to_string(h_nid) + " vs " + std::to_string(nid) + ")");
  }
  // The other extents of the record must name the same payload.
  bool others_match = true;
  for (size_t i = 1; i < owners.size(); ++i) {
    const Extent& o = owners[i].extent;
    if (owners[i].nid != nid || o.payload_len != e.payload_len ||
        o.payload_crc != e.payload_crc || o.in_pack != e.in_pack ||
        o.pack_offset != e.pack_offset) {
      f.error(owners[i].who + ": extent @" + std::to_string(o.logical_offset) +
              " shares the record at " + std::to_string(e.record_offset()) + " of drive " +
              std::to_string(key.first) + " with " + owner.who +
              " but does not match its header");
      f.lost.insert(owners[i].who);
      others_match = false;
    }
  }
  if (!others_match) {
    ++report.records_failed;
    return;
  }
  char unused;
  st = s->ReadExtent(e, 0, 0, &unused, nullptr);  // reads and crc-checks the whole record
  if (!st.ok()) return fail(st.ToString());
  ++report.records_verified;
}

// Deep: checks every zone's footer (CheckFooter), then verifies every record an extent
// references (VerifyRecord), in (drive, offset) order.
void CheckDeep(FsckState& f) {
  std::string header(kBlock, '\0');
  for (const auto& [addr, z] : f.zones) {
    if (z.footer_at == 0 || addr.drive >= f.s->devices.size()) continue;
    CheckFooter(f, addr, z, header);
  }
  for (const auto& key : f.records) VerifyRecord(f, key, header);
}

// Repair: rewrites the nid index entries of f.nid_fixes from the onodes (one synced
// commit), reports each, and drops the object-id index errors. Errors: the commit's.
Status RepairNidIndex(FsckState& f) {
  FsckReport& report = f.report;
  // The onodes are the truth: the index is rewritten from them.
  auto batch = f.s->meta->NewBatch();
  for (const auto& [nid, where] : f.nid_fixes) {
    if (where) {
      batch->PutNid(nid, where->first, where->second);
    } else {
      batch->DeleteNid(nid);
    }
  }
  SMR_RETURN_IF_ERROR(f.s->meta->Commit(batch.get(), true));
  for (const auto& [nid, where] : f.nid_fixes) {
    report.repaired.push_back("object-id index: nid " + std::to_string(nid) +
                              (where ? " set from its object" : " entry removed"));
  }
  std::vector<std::string> remaining;
  for (const std::string& e : report.errors) {
    if (e.rfind("object-id index: ", 0) != 0) remaining.push_back(e);
  }
  report.errors.swap(remaining);
  return Status::OK();
}

// Repair: applies f.fixes to the zones' live bytes, commits the dirty zones (synced),
// reports each fix, and drops the live-bytes errors. Errors: the commit's.
Status RepairZoneLive(FsckState& f) {
  Store::Impl* s = f.s;
  FsckReport& report = f.report;
  for (const auto& [addr, delta] : f.fixes) s->zones->AddLive(addr.drive, addr.zone, delta);
  auto batch = s->meta->NewBatch();
  for (const auto& [addr, zm] : s->zones->TakeDirtyZones()) {
    batch->PutZone(addr.drive, addr.zone, zm);
  }
  SMR_RETURN_IF_ERROR(s->meta->Commit(batch.get(), true));
  for (const auto& [addr, delta] : f.fixes) {
    report.repaired.push_back("drive " + std::to_string(addr.drive) + " zone " +
                              std::to_string(addr.zone) + ": live bytes corrected by " +
                              std::to_string(delta));
  }
  // Repaired errors are no longer errors.
  std::vector<std::string> remaining;
  for (const std::string& e : report.errors) {
    if (e.find(": live bytes ") == std::string::npos) remaining.push_back(e);
  }
  report.errors.swap(remaining);
  return Status::OK();
}

}  // namespace

Result<FsckReport> Store::Fsck(bool deep, bool repair) {
  Impl* s = impl_.get();
  if (repair && s->read_only) return Status::ReadOnly("fsck --repair needs a read-write mount");
  MutexLock pause(&s->group_mu);
  FsckState f;
  f.s = s;

  // Zones a drive reports offline or read-only since the last look are retired first, so
  // what fsck reports follows the drives now (ZoneManager::RefreshConditions).
  SMR_RETURN_IF_ERROR(s->zones->RefreshConditions().status());
  for (const ZoneStatus& z : s->zones->Snapshot()) f.zones[z.addr] = z;

  SMR_RETURN_IF_ERROR(CheckOnodes(f));
  SMR_RETURN_IF_ERROR(CheckNidIndex(f));
  CheckZoneLive(f);
  if (deep) CheckDeep(f);
  if (repair && !f.nid_fixes.empty()) {
    SMR_RETURN_IF_ERROR(RepairNidIndex(f));
  }
  if (repair && !f.fixes.empty()) {
    SMR_RETURN_IF_ERROR(RepairZoneLive(f));
  }
  f.report.lost.assign(f.lost.begin(), f.lost.end());
  return f.report;
}

}  // namespace smr
