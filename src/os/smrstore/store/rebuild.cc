// Store::RebuildMeta: the metadata database rebuilt from the drives alone.
//
// 1. Every drive's superblock log names the store and the drive's place in it.
// 2. Every written data zone is walked record by record (headers only; journal and
//    checkpoint payloads are read and crc-checked); a zone's walk ends at its first
//    undecodable or torn record. That end is the zone's committed write pointer. A hybrid
//    drive's CMR zones (no write pointer on the drive) are walked up to their capacity and
//    end also where the sequence numbers go back (the first record of an earlier use).
// 3. Mount markers void the records a mount wrote but never committed: a record of mount m
//    with sequence number s is void when a later mount began with committed sequence < s.
// 4. The newest complete checkpoint is loaded, then every journal record from its
//    completion on is replayed in (mount, sequence) order.
// 5. The last records no later mount confirmed may reference data a power cut lost (the
//    drives flush independently) or a kill tore: the extents they put are checked against
//    the records on the drives (header and payload crc), and replay stops before the first
//    record that fails. The records left out are voided by the next mount's marker, which
//    carries the last replayed sequence number (kCounterRebuiltCommitted), not the seq
//    counter (the highest on the drives, so that new records sort after every old one). The
//    newest journal record is in doubt unless its mount ended cleanly (its RocksDB commit
//    leaves no trace on the drives): replayed, and reported (doc/format.md).
// 6. Zone accounting (stream, committed write pointer, live bytes, sealed) and counters are
//    derived from the walk, the journal's zone-open notes and the rebuilt onodes. A zone is
//    the journal's exactly when its records are journal records; the notes only tell the
//    data streams apart (a note can be about an earlier life of a reused zone).
// The result is what the store had committed; a normal mount then reconciles it with the
// drives as after any crash.
#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <chrono>
#include <cstring>
#include <set>
#include <tuple>

#include "device/device_spec.h"
#include "format/journal.h"
#include "format/record_format.h"
#include "meta/key_schema.h"
#include "store/store_internal.h"
#include "store/superblock_log.h"

namespace smr {

namespace {

constexpr uint64_t kBlock = recfmt::kBlockSize;

// A journal or checkpoint record found on a drive.
struct Found {
  RecordType type;
  uint64_t mount = 0;  // header collection_id
  uint64_t seq = 0;
  uint64_t nid = 0;             // checkpoint id
  uint64_t logical_offset = 0;  // chunk index
  std::string payload;
  ZoneAddress zone;
  uint64_t offset = 0;
  bool operator<(const Found& o) const {
    return std::tie(mount, seq, zone.drive, zone.zone, offset) <
           std::tie(o.mount, o.seq, o.zone.drive, o.zone.zone, o.offset);
  }
};

struct WalkedZone {
  ZoneAddress addr;
  uint64_t end = 0;  // bytes of valid records from the zone start
  bool journal = false;  // holds journal or checkpoint records
  bool data = false;     // holds data or pack records: a data zone, whatever else it holds
  bool footer = false;
  uint64_t footer_at = 0;     // where the footer record starts (ZoneMeta::footer_at)
  uint64_t footer_bytes = 0;  // the footer record's (not counted live: the store does not)
  bool full = false;
  uint64_t first_seq = 0;
};

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool DirExistsAt(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

Result<RebuildReport> Store::RebuildMeta(const std::string& dir,
                                         const std::vector<std::string>& specs,
                                         const std::function<void(const RebuildProgress&)>& progress,
                                         DeviceOpener opener) {
  const auto t0 = std::chrono::steady_clock::now();
  RebuildReport report;
  if (specs.empty()) return Status::InvalidArgument("rebuild-meta needs the store's drives");
  if (DirExistsAt(dir + "/meta")) {
    return Status::AlreadyExists(dir + "/meta exists: move it aside first (rebuild-meta "
                                 "writes a new metadata database there)");
  }
  if (!opener) opener = [](const std::string& spec) { return OpenDevice(spec); };

  // 1. The drives, in the store's order.
  std::vector<std::unique_ptr<ZonedDevice>> opened;
  for (const std::string& spec : specs) {
    auto dev = opener(spec);
    if (!dev.ok()) return dev.status().WithContext(spec);
    opened.push_back(std::move(*dev));
  }
  std::vector<ZonedDevice*> raw;
  for (auto& d : opened) raw.push_back(d.get());
  ZoneManager probe(raw);
  SMR_RETURN_IF_ERROR(probe.Attach());
  std::vector<std::optional<StoreSuperblock>> sbs(raw.size());
  std::optional<StoreSuperblock> newest;
  for (uint16_t d = 0; d < raw.size(); ++d) {
    SMR_ASSIGN_OR_RETURN(sbs[d], ReadSuperblock(raw[d], probe.ReservedZones(d)));
    if (!sbs[d]) return Status::Corruption(specs[d] + ": no smrstore superblock on this drive");
    if (newest && sbs[d]->store_uuid != newest->store_uuid) {
      return Status::InvalidArgument(specs[d] + ": drive belongs to store " +
                                     UuidToString(sbs[d]->store_uuid) + ", not " +
                                     UuidToString(newest->store_uuid));
    }
    if (!newest || sbs[d]->sequence > newest->sequence) newest = sbs[d];
  }
  if (newest->nr_drives != raw.size()) {
    return Status::InvalidArgument("store " + UuidToString(newest->store_uuid) + " has " +
                                   std::to_string(newest->nr_drives) + " drives, " +
                                   std::to_string(raw.size()) + " given");
  }
  std::vector<std::string> ordered(raw.size());
  std::vector<ZonedDevice*> devs(raw.size(), nullptr);
  for (uint16_t d = 0; d < raw.size(); ++d) {
    const uint32_t at = sbs[d]->drive_index;
    if (at >= raw.size() || devs[at] != nullptr) {
      return Status::Corruption(specs[d] + ": drive index " + std::to_string(at) +
                                " is out of range or given twice");
    }
    ordered[at] = specs[d];
    devs[at] = raw[d];
  }
  ZoneManager zones(devs);
  SMR_RETURN_IF_ERROR(zones.Attach());

  // 2. Walk every written data zone. A hybrid drive's CMR zones have no write pointer: the
  //    walk goes up to the zone's capacity and a CMR zone's records end where a header does
  //    not decode or its sequence number goes back (a zone is reused from its start, and a
  //    free CMR zone's first block is zeroed: zone/zone_manager.h), so the records of an
  //    earlier use of the zone past the current ones are never taken for its own.
  struct Todo {
    uint16_t drive;
    ZoneInfo zi;
    bool cmr;
  };
  std::vector<Todo> todo;
  RebuildProgress prog;
  for (uint16_t d = 0; d < devs.size(); ++d) {
    SMR_ASSIGN_OR_RETURN(auto report_zones, devs[d]->ReportZones(0, 0));
    const auto reserved = zones.ReservedZones(d);
    for (uint32_t z = 0; z < report_zones.size(); ++z) {
      const ZoneInfo& zi = report_zones[z];
      if (zi.cond == ZoneCondition::kInactive ||
          std::find(reserved.begin(), reserved.end(), z) != reserved.end()) {
        continue;
      }
      const bool cmr = zi.is_conventional() && RealmOfZone(devs[d]->info(), z).has_value();
      if (zi.is_conventional() && !cmr) continue;  // permanent conventional: not data
      const uint64_t written = cmr ? zi.capacity : zi.written_bytes();
      if (written == 0) continue;
      todo.push_back(Todo{d, zi, cmr});
      prog.bytes_total += written;
    }
  }
  prog.zones_total = todo.size();
  std::vector<Found> found;
  std::vector<WalkedZone> walked;
  uint64_t max_seq = 0, max_nid = 0;
  std::string header(kBlock, '\0');
  auto last_report = std::chrono::steady_clock::now();
  for (const Todo& t : todo) {
    const uint16_t d = t.drive;
    const ZoneInfo& zi = t.zi;
    const bool cmr = t.cmr;  // (a plain local: lambdas cannot capture structured bindings)
    ZonedDevice* dev = devs[d];
    const uint64_t written = cmr ? zi.capacity : zi.written_bytes();
    WalkedZone w;
    w.addr = {d, static_cast<uint32_t>(zi.start / dev->info().zone_size)};
    w.full = zi.cond == ZoneCondition::kFull;
    if (cmr) ++report.cmr_zones;
    uint64_t pos = 0;
    uint64_t last_seq = 0;
    std::optional<uint64_t> last_record;  // where the last record walked starts
    // In a CMR zone the end of its records is found, not known: what follows them (zeros,
    // an earlier use's records or the middle of one) is not a torn zone.
    auto torn = [&] { report.torn_zones += cmr ? 0 : 1; };
    while (pos + kBlock <= written) {
      Status rs = dev->Read(zi.start + pos, header.data(), kBlock);
      report.bytes_read += kBlock;
      if (!rs.ok()) {
        ++report.unreadable_zones;
        break;
      }
      auto h = DecodeRecordHeader(header.data());
      if (!h.ok()) {
        if (!h.status().IsNotFound()) torn();
        break;
      }
      const uint64_t bytes = RecordBytes(h->payload_len);
      if (pos + bytes > written) {
        torn();
        break;
      }
      if (cmr && h->type != RecordType::kZoneFooter && h->seq < last_seq) {
        ++report.cmr_stale_records;  // the first record of an earlier use of the zone
        break;
      }
      if (h->type == RecordType::kZoneFooter) {
        // A footer carries no sequence number of its own: it is this zone's (this use's,
        // in a CMR zone) only if its payload checks and its last entry is the record just
        // walked. An earlier use's footer can follow a CMR zone's records exactly, when
        // the two uses placed them alike (found by the option-space run, seed 5); a footer
        // torn by a power cut ends an SMR zone's walk (seed 8).
        std::string fp(bytes - kBlock, '\0');
        rs = dev->Read(zi.start + pos + kBlock, fp.data(), fp.size());
        report.bytes_read += fp.size();
        auto entries = rs.ok() && VerifyPayload(*h, fp.data()).ok()
                           ? DecodeZoneFooter(std::string_view(fp.data(), h->payload_len))
                           : Result<std::vector<ZoneFooterEntry>>(Status::Corruption("footer"));
        if (!entries.ok() || entries->empty() || !last_record ||
            uint64_t{entries->back().block} * kBlock != *last_record ||
            entries->back().seq != last_seq) {
          if (cmr) {
            ++report.cmr_stale_records;
          } else {
            torn();
          }
          break;
        }
      }
      if (h->type != RecordType::kZoneFooter) {
        last_seq = h->seq;
        last_record = pos;
      }
      ++report.records;
      if (w.first_seq == 0) w.first_seq = h->seq;
      if (h->type == RecordType::kJournal || h->type == RecordType::kCheckpoint) {
        std::string payload(bytes - kBlock, '\0');
        rs = dev->Read(zi.start + pos + kBlock, payload.data(), payload.size());
        report.bytes_read += payload.size();
        if (!rs.ok() || !VerifyPayload(*h, payload.data()).ok()) {
          torn();
          break;
        }
        payload.resize(h->payload_len);
        Found f;
        f.type = h->type;
        f.mount = h->collection_id;
        f.seq = h->seq;
        f.nid = h->nid;
        f.logical_offset = h->logical_offset;
        f.payload = std::move(payload);
        f.zone = w.addr;
        f.offset = pos;
        found.push_back(std::move(f));
        w.journal = true;
        report.journal_bytes += bytes;
      } else if (h->type == RecordType::kZoneFooter) {
        w.footer = true;
        w.footer_at = pos;
        w.footer_bytes = bytes;
      }
      if (cmr && w.footer) {  // a sealed CMR zone: whatever follows is an earlier use's
        pos += bytes;
        break;
      }
      if (h->type == RecordType::kData || h->type == RecordType::kPack) w.data = true;
      if (h->type == RecordType::kData) max_nid = std::max(max_nid, h->nid);
      for (const PackEntry& pe : h->pack) max_nid = std::max(max_nid, pe.nid);
      max_seq = std::max(max_seq, h->seq);
      pos += bytes;
    }
    w.end = pos;
    walked.push_back(w);
    prog.zones_done++;
    prog.bytes_done += written;
    if (progress && std::chrono::steady_clock::now() - last_report > std::chrono::milliseconds(200)) {
      prog.seconds = Seconds(t0);
      progress(prog);
      last_report = std::chrono::steady_clock::now();
    }
  }
  report.zones_scanned = prog.zones_done;
  report.bytes_scanned = prog.bytes_done;
  report.scan_seconds = Seconds(t0);
  prog.seconds = report.scan_seconds;
  if (progress) progress(prog);

  // 3. Void what was never committed.
  std::sort(found.begin(), found.end());
  std::vector<std::pair<uint64_t, uint64_t>> mounts;  // (mount, committed seq)
  std::vector<std::vector<JournalOp>> decoded(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i].type != RecordType::kJournal) continue;
    auto ops = DecodeJournalOps(found[i].payload);
    if (!ops.ok()) {
      return ops.status().WithContext("journal record of drive " +
                                      std::to_string(found[i].zone.drive) + " zone " +
                                      std::to_string(found[i].zone.zone));
    }
    decoded[i] = std::move(*ops);
    for (const JournalOp& op : decoded[i]) {
      if (op.kind == journalfmt::kOpMount) mounts.emplace_back(op.a, op.b);
    }
  }
  auto is_void = [&](const Found& f) {
    for (const auto& [m, committed] : mounts) {
      if (m > f.mount && f.seq > committed) return true;
    }
    return false;
  };
  std::vector<bool> live(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    live[i] = !is_void(found[i]);
    if (!live[i]) ++report.voided_records;
  }

  // 4. The newest complete checkpoint.
  struct Done {
    size_t index;
    uint64_t id, seq, chunks;
  };
  std::optional<Done> base;
  for (size_t i = 0; i < found.size(); ++i) {
    if (!live[i] || found[i].type != RecordType::kJournal) continue;
    for (const JournalOp& op : decoded[i]) {
      if (op.kind != journalfmt::kOpCheckpointDone) continue;
      std::set<uint64_t> have;
      for (size_t j = 0; j < found.size(); ++j) {
        if (live[j] && found[j].type == RecordType::kCheckpoint && found[j].nid == op.a &&
            found[j].seq == op.b) {
          have.insert(found[j].logical_offset);
        }
      }
      const bool complete = have.size() == op.c && (op.c == 0 || *have.rbegin() == op.c - 1);
      if (complete && (!base || op.a > base->id)) base = Done{i, op.a, op.b, op.c};
    }
  }
  if (!base) {
    return Status::Corruption("no complete metadata checkpoint on the drives (" +
                              std::to_string(found.size()) +
                              " journal/checkpoint records found): nothing to rebuild from");
  }
  report.checkpoint_id = base->id;
  report.checkpoint_chunks = base->chunks;

  if (!DirExistsAt(dir) && ::mkdir(dir.c_str(), 0755) != 0) {
    return Status::FromErrno(errno, dir);
  }
  // The replay plan: journal records from the checkpoint's completion on, in order. The
  // tail no later mount confirmed is checked against the drives (step 5).
  std::vector<size_t> replay;
  for (size_t i = base->index; i < found.size(); ++i) {
    if (live[i] && found[i].type == RecordType::kJournal) replay.push_back(i);
  }
  const uint64_t last_mount =
      mounts.empty() ? 0 : std::max_element(mounts.begin(), mounts.end())->first;
  size_t first_tail = replay.size();
  for (size_t r = 0; r < replay.size(); ++r) {
    if (found[replay[r]].mount >= last_mount) {
      first_tail = r;
      break;
    }
  }
  // The objects the tail leaves behind (key -> value and the record that put it), checked
  // against the drives; a failure cuts the tail before that record, and the check repeats
  // on the shorter tail (an extent GC moved later in the tail is checked where it went).
  // A record's header alone does not say its payload reached the drive (a kill or a power
  // cut in the middle of a group's write leaves a header with a torn or missing payload):
  // the payload is read and its crc checked too.
  // A pack entry is checked the same way: the pack's header names the object and the
  // entry's crc, and the entry's bytes are read and checked.
  auto extent_ok = [&](const Onode& o, const Extent& e) {
    if (e.drive >= devs.size() ||
        e.payload_offset < kBlock + (e.in_pack ? uint64_t{e.pack_offset} : 0)) {
      return false;
    }
    std::string hb(kBlock, '\0');
    if (!devs[e.drive]->Read(e.record_offset(), hb.data(), kBlock).ok()) return false;
    auto h = DecodeRecordHeader(hb.data());
    if (!h.ok()) return false;
    RecordHeader unit = *h;  // the record, or its entry as a record of its own
    if (e.in_pack) {
      if (h->type != RecordType::kPack) return false;
      auto pe = std::find_if(h->pack.begin(), h->pack.end(),
                             [&](const PackEntry& p) { return p.offset == e.pack_offset; });
      if (pe == h->pack.end()) return false;
      unit.type = RecordType::kData;
      unit.nid = pe->nid;
      unit.payload_len = pe->payload_len;
      unit.payload_crc = pe->payload_crc;
    }
    if (unit.type != RecordType::kData || unit.nid != o.nid ||
        unit.payload_crc != e.payload_crc || unit.payload_len != e.payload_len) {
      return false;
    }
    const uint64_t lead = e.payload_offset % kBlock;
    const uint64_t padded = (lead + uint64_t{unit.payload_len} + kBlock - 1) / kBlock * kBlock;
    std::string payload(padded, '\0');
    return devs[e.drive]->Read(e.payload_offset - lead, payload.data(), padded).ok() &&
           VerifyPayload(unit, payload.data() + lead).ok();
  };
  size_t cut = replay.size();
  for (bool changed = true; changed;) {
    changed = false;
    std::map<std::string, std::pair<const std::string*, size_t>> last;  // key -> (value, r)
    for (size_t r = first_tail; r < cut; ++r) {
      for (const JournalOp& op : decoded[replay[r]]) {
        if (op.key.empty() || op.key[0] != keys::kObjectPrefix) continue;
        if (op.kind == journalfmt::kOpPut) last[op.key] = {&op.value, r};
        if (op.kind == journalfmt::kOpDelete) last.erase(op.key);
      }
    }
    for (const auto& [key, vr] : last) {
      auto onode = DecodeOnode(*vr.first);
      bool ok = onode.ok();
      if (ok) {
        for (const auto& [off, e] : onode->extents) {
          if (!extent_ok(*onode, e)) {
            ok = false;
            break;
          }
        }
      }
      if (!ok && vr.second < cut) {
        cut = vr.second;
        changed = true;
      }
    }
  }
  report.dropped_tail_records = replay.size() - cut;
  // The records left out must stay out: the next mount's marker voids what lies above the
  // last record replayed (kCounterRebuiltCommitted; the checkpoint's when none is).
  const uint64_t replayed_seq = cut > 0 ? found[replay[cut - 1]].seq : base->seq;
  replay.resize(cut);
  // The newest journal record, if replayed, is in doubt unless its mount ended cleanly. A
  // mount commits one group at a time and writes a group's journal record only after the
  // previous group's RocksDB commit returned: every earlier record of its mount is
  // confirmed by the one after it. The newest was flushed before its RocksDB commit, and
  // the drives are the same whether that commit (and its acknowledgement) happened or the
  // crash came first: it is replayed, as an acknowledged commit must never be dropped. Only
  // a drive write after every RocksDB commit, before its acknowledgement, could tell.
  if (!replay.empty()) {
    size_t last = found.size();
    for (size_t i = found.size(); i-- > 0;) {
      if (found[i].type == RecordType::kJournal) {
        last = i;
        break;
      }
    }
    const bool clean_end = last < found.size() && newest->clean_umount &&
                           newest->mount_count == found[last].mount;
    if (last < found.size() && live[last] && replay.back() == last && !clean_end) {
      report.in_doubt_records = 1;
    }
  }

  // 5. Load the checkpoint, replay the journal.
  SMR_ASSIGN_OR_RETURN(auto meta, MetaStore::Create(dir + "/meta"));
  auto batch = meta->NewBatch();
  auto maybe_commit = [&]() -> Status {
    if (batch->ApproximateBytes() < (64u << 20)) return Status::OK();
    return meta->Commit(batch.get(), /*sync=*/false);
  };
  for (size_t j = 0; j < found.size(); ++j) {
    if (!live[j] || found[j].type != RecordType::kCheckpoint || found[j].nid != base->id ||
        found[j].seq != base->seq) {
      continue;
    }
    SMR_ASSIGN_OR_RETURN(auto kvs, DecodeCheckpointChunk(found[j].payload));
    for (auto& [k, v] : kvs) batch->ApplyJournalOp(JournalOp::Put(std::move(k), std::move(v)));
    SMR_RETURN_IF_ERROR(maybe_commit());
  }
  // A data zone's stream from the journal's zone-open notes. A note may be about an
  // earlier life of the zone: a journal zone a checkpoint freed and the allocator reused,
  // whose later note sat in a journal zone a checkpoint freed too. So a note only counts
  // for a zone whose records it can describe: never the journal stream for a zone without
  // journal records (whether a zone is the journal's is read from its records alone: the
  // journal's zones hold nothing else), and only if the zone was opened at or before its
  // first record; of those, the latest opening (the checkpoint's completing record restates
  // the zones then in use: those count though opened before it). Zones without one default to the user
  // stream, opened at their first record (placement only: GC's choices, not correctness).
  std::map<ZoneAddress, uint64_t> first_seq;
  for (const WalkedZone& w : walked) first_seq[w.addr] = w.first_seq;
  std::map<ZoneAddress, std::pair<StreamId, uint64_t>> streams;  // from zone-open notes
  JournalOp counters_op, ids_op;
  for (size_t i = 0; i < found.size(); ++i) {  // zone-open notes of every live record
    if (!live[i] || found[i].type != RecordType::kJournal) continue;
    for (const JournalOp& op : decoded[i]) {
      if (op.kind != journalfmt::kOpZoneOpen || op.c < 1 || op.c > kNumStreams ||
          op.c == static_cast<uint64_t>(StreamId::kJournal)) {
        continue;
      }
      const ZoneAddress addr{static_cast<uint16_t>(op.a), static_cast<uint32_t>(op.b)};
      auto f = first_seq.find(addr);
      // The record completing the checkpoint restates the streams of the zones then in use.
      if (f == first_seq.end() || op.d > f->second || (op.d < base->seq && i != base->index)) {
        continue;
      }
      auto s = streams.find(addr);
      if (s == streams.end() || op.d >= s->second.second) {
        streams[addr] = {static_cast<StreamId>(op.c), op.d};
      }
    }
  }
  for (size_t i : replay) {
    for (const JournalOp& op : decoded[i]) {
      if (op.kind == journalfmt::kOpCounters) counters_op = op;
      if (op.kind == journalfmt::kOpIds) ids_op = op;
      batch->ApplyJournalOp(op);
    }
    ++report.replayed_records;
    SMR_RETURN_IF_ERROR(maybe_commit());
  }
  SMR_RETURN_IF_ERROR(meta->Commit(batch.get(), /*sync=*/true));

  // 6. Derived state: zone accounting and counters.
  std::map<ZoneAddress, uint64_t> zone_live;
  uint64_t inline_stored = 0, max_cid = 0;
  SMR_ASSIGN_OR_RETURN(auto colls, meta->ListCollections(nullptr));
  for (const auto& [name, cm] : colls) {
    ++report.collections;
    max_cid = std::max(max_cid, cm.cid);
    ObjectId start = ObjectId::Min(), end = ObjectId::Max(), next;
    for (;;) {
      std::vector<std::pair<ObjectId, Onode>> chunk;
      SMR_RETURN_IF_ERROR(meta->ListOnodes(nullptr, cm.cid, start, end, 1024, &chunk, &next));
      for (const auto& [oid, o] : chunk) {
        ++report.objects;
        max_nid = std::max(max_nid, o.nid);
        if (o.data_inline) inline_stored += o.inline_data.size();
        for (const auto& [off, e] : o.extents) {
          if (e.drive >= devs.size()) continue;
          const uint64_t zs = devs[e.drive]->info().zone_size;
          zone_live[{e.drive, static_cast<uint32_t>(e.payload_offset / zs)}] += e.length;
        }
      }
      if (next.max || chunk.empty()) break;
      start = next;
    }
  }
  auto out = meta->NewBatch();
  // A journal zone holds journal and checkpoint records only. A data zone may hold journal
  // records too (StoreOptions::journal_with_data): those the replay used keep it pinned.
  std::set<ZoneAddress> data_zones;
  for (const WalkedZone& w : walked) {
    if (w.data) data_zones.insert(w.addr);
  }
  std::vector<ZoneAddress> pins;
  for (size_t i : replay) {
    if (data_zones.count(found[i].zone)) pins.push_back(found[i].zone);
  }
  std::sort(pins.begin(), pins.end());
  pins.erase(std::unique(pins.begin(), pins.end()), pins.end());
  out->PutDerivedValue(kValueJournalPins, Store::Impl::EncodeJournalPins(pins));
  for (const WalkedZone& w : walked) {
    if (w.end == 0) continue;  // only undecodable bytes: mount resets the zone
    ZoneMeta zm;
    const bool journal_zone = w.journal && !w.data;
    auto s = journal_zone ? streams.end() : streams.find(w.addr);
    const StreamId stream = journal_zone ? StreamId::kJournal
                            : s != streams.end() ? s->second.first
                                                 : StreamId::kUser;
    zm.stream = static_cast<uint8_t>(stream);
    zm.committed_wp = w.end;
    zm.opened_seq = s != streams.end() ? s->second.second : w.first_seq;
    zm.sealed = w.full || w.footer;
    zm.footer_at = w.footer ? w.footer_at : 0;
    zm.live_bytes = journal_zone ? w.end - w.footer_bytes
                              : (zone_live.count(w.addr) ? zone_live[w.addr] : 0);
    out->PutZone(w.addr.drive, w.addr.zone, zm);
  }
  out->PutCounter(kCounterSeq, max_seq);
  if (report.dropped_tail_records > 0) out->PutCounter(kCounterRebuiltCommitted, replayed_seq);
  out->PutCounter(kCounterNid, std::max(max_nid, ids_op.a));
  out->PutCounter(kCounterCid, std::max(max_cid, ids_op.b));
  out->PutCounter(kCounterUserBytes, counters_op.a);
  out->PutCounter(kCounterDeviceBytes, counters_op.b);
  out->PutCounter(kCounterTxns, counters_op.c);
  out->PutCounter(kCounterGcBytes, counters_op.d);
  out->PutCounter(kCounterInlineStored, inline_stored);
  // The superblock as the drives have it, and the drives as given: last, in the commit
  // that completes the database, so a rebuild killed before it leaves a directory that
  // does not mount (no superblock) rather than one without its zones and counters.
  StoreSuperblock sb = *newest;
  sb.drive_index = 0;
  out->PutValue(kValueSuperblock, EncodeStoreSuperblock(sb));
  std::string devices_value;
  for (const std::string& s : ordered) devices_value += s + "\n";
  out->PutValue(kValueDevices, devices_value);
  SMR_RETURN_IF_ERROR(meta->Commit(out.get(), /*sync=*/true));
  report.seconds = Seconds(t0);
  return report;
}

}  // namespace smr
