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

// A written zone step 2 walks: its drive, as the drive reports it, and whether it is a
// hybrid drive's CMR zone.
struct Todo {
  uint16_t drive;
  ZoneInfo zi;
  bool cmr;
  // The bytes the walk covers: a CMR zone's capacity, else up to the write pointer.
  uint64_t written() const { return cmr ? zi.capacity : zi.written_bytes(); }
};

// The newest complete checkpoint: the live journal record completing it (an index into
// Rebuild::found), its id, the sequence number its chunks carry and their number.
struct Done {
  size_t index;
  uint64_t id, seq, chunks;
};

// What RebuildMeta's steps share. Members are declared in the order the steps fill them
// (and are destroyed in reverse: the metadata database first, the drives last).
struct Rebuild {
  RebuildReport report;
  // Step 1.
  std::vector<std::unique_ptr<ZonedDevice>> opened;  // the drives, as given
  std::unique_ptr<ZoneManager> probe;                // on them, to find the superblocks
  std::optional<StoreSuperblock> newest;             // the newest drive's superblock
  std::vector<std::string> ordered;                  // the specs, in the store's order
  std::vector<ZonedDevice*> devs;                    // the drives, in the store's order
  std::unique_ptr<ZoneManager> zones;                // on devs
  // Step 2.
  std::vector<Found> found;  // journal and checkpoint records (step 3 sorts them)
  std::vector<WalkedZone> walked;
  uint64_t max_seq = 0, max_nid = 0;
  // Step 3.
  std::vector<std::pair<uint64_t, uint64_t>> mounts;  // (mount, committed seq)
  std::vector<std::vector<JournalOp>> decoded;        // found[i]'s ops (journal records)
  std::vector<bool> live;                             // found[i] is not void
  // Step 4.
  std::optional<Done> base;
  std::vector<size_t> replay;  // indexes into found, in order
  uint64_t replayed_seq = 0;   // of the last record replayed (the checkpoint's if none)
  // Step 5.
  std::unique_ptr<MetaStore> meta;
  std::map<ZoneAddress, std::pair<StreamId, uint64_t>> streams;  // from zone-open notes
  JournalOp counters_op, ids_op;  // the last replayed of each kind
};

// Step 1: opens `specs`, reads each drive's superblock log and puts the drives in the
// store's order (r.opened, r.newest, r.ordered, r.devs, r.zones attached). Errors: a drive
// that does not open or has no superblock (kCorruption), drives of different stores, the
// wrong number of drives (kInvalidArgument), a drive index out of range or given twice.
Status OpenDrives(Rebuild& r, const std::vector<std::string>& specs,
                  const Store::DeviceOpener& opener) {
  for (const std::string& spec : specs) {
    auto dev = opener(spec);
    if (!dev.ok()) return dev.status().WithContext(spec);
    r.opened.push_back(std::move(*dev));
  }
  std::vector<ZonedDevice*> raw;
  for (auto& d : r.opened) raw.push_back(d.get());
  r.probe = std::make_unique<ZoneManager>(raw);
  SMR_RETURN_IF_ERROR(r.probe->Attach());
  std::vector<std::optional<StoreSuperblock>> sbs(raw.size());
  std::optional<StoreSuperblock>& newest = r.newest;
  for (uint16_t d = 0; d < raw.size(); ++d) {
    SMR_ASSIGN_OR_RETURN(sbs[d], ReadSuperblock(raw[d], r.probe->ReservedZones(d)));
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
  r.ordered.assign(raw.size(), std::string());
  r.devs.assign(raw.size(), nullptr);
  for (uint16_t d = 0; d < raw.size(); ++d) {
    const uint32_t at = sbs[d]->drive_index;
    if (at >= raw.size() || r.devs[at] != nullptr) {
      return Status::Corruption(specs[d] + ": drive index " + std::to_string(at) +
                                " is out of range or given twice");
    }
    r.ordered[at] = specs[d];
    r.devs[at] = raw[d];
  }
  r.zones = std::make_unique<ZoneManager>(r.devs);
  return r.zones->Attach();
}

// Step 2, the plan: every written data zone of every drive (not reserved, not inactive,
// not a permanent conventional zone), in drive and zone order; sets prog's totals.
// Errors: a drive's zone report.
Result<std::vector<Todo>> ListWrittenZones(const Rebuild& r, RebuildProgress* prog) {
  std::vector<Todo> todo;
  for (uint16_t d = 0; d < r.devs.size(); ++d) {
    SMR_ASSIGN_OR_RETURN(auto report_zones, r.devs[d]->ReportZones(0, 0));
    const auto reserved = r.zones->ReservedZones(d);
    for (uint32_t z = 0; z < report_zones.size(); ++z) {
      const ZoneInfo& zi = report_zones[z];
      if (zi.cond == ZoneCondition::kInactive ||
          std::find(reserved.begin(), reserved.end(), z) != reserved.end()) {
        continue;
      }
      const bool cmr = zi.is_conventional() && RealmOfZone(r.devs[d]->info(), z).has_value();
      if (zi.is_conventional() && !cmr) continue;  // permanent conventional: not data
      const uint64_t written = cmr ? zi.capacity : zi.written_bytes();
      if (written == 0) continue;
      todo.push_back(Todo{d, zi, cmr});
      prog->bytes_total += written;
    }
  }
  prog->zones_total = todo.size();
  return todo;
}

// Whether the zone-footer record `h` (`bytes` long) at `pos` of zone `zi` belongs to this
// zone (in a CMR zone: to this use of it): its payload reads and checks, and its last entry
// is the record walked last (at `last_record`, sequence number `last_seq`). Counts what it
// reads in report.bytes_read.
bool FooterIsThisZones(ZonedDevice* dev, const ZoneInfo& zi, uint64_t pos,
                       const RecordHeader& h, uint64_t bytes,
                       const std::optional<uint64_t>& last_record, uint64_t last_seq,
                       RebuildReport& report) {
  std::string fp(bytes - kBlock, '\0');
  Status rs = dev->Read(zi.start + pos + kBlock, fp.data(), fp.size());
  report.bytes_read += fp.size();
  auto entries = rs.ok() && VerifyPayload(h, fp.data()).ok()
                     ? DecodeZoneFooter(std::string_view(fp.data(), h.payload_len))
                     : Result<std::vector<ZoneFooterEntry>>(Status::Corruption("footer"));
  return !(!entries.ok() || entries->empty() || !last_record ||
           uint64_t{entries->back().block} * kBlock != *last_record ||
           entries->back().seq != last_seq);
}

// Reads and crc-checks the payload of the journal or checkpoint record `h` (`bytes` long)
// at `pos` of zone `zi` and adds it to r.found, marking `w` a journal zone. False (nothing
// added) if the payload does not read or check. Counts what it reads in report.bytes_read.
bool TakeJournalRecord(Rebuild& r, ZonedDevice* dev, const ZoneInfo& zi, uint64_t pos,
                       const RecordHeader& h, uint64_t bytes, WalkedZone& w) {
  std::string payload(bytes - kBlock, '\0');
  Status rs = dev->Read(zi.start + pos + kBlock, payload.data(), payload.size());
  r.report.bytes_read += payload.size();
  if (!rs.ok() || !VerifyPayload(h, payload.data()).ok()) return false;
  payload.resize(h.payload_len);
  Found f;
  f.type = h.type;
  f.mount = h.collection_id;
  f.seq = h.seq;
  f.nid = h.nid;
  f.logical_offset = h.logical_offset;
  f.payload = std::move(payload);
  f.zone = w.addr;
  f.offset = pos;
  r.found.push_back(std::move(f));
  w.journal = true;
  r.report.journal_bytes += bytes;
  return true;
}

// Step 2, one zone: walks `t` record by record from its start until the first record that
// does not read, decode or fit (torn, unreadable), or in a CMR zone an earlier use's record
// or what follows the footer; appends the zone to r.walked and its journal and checkpoint
// records to r.found; raises r.max_seq and r.max_nid. `header` is a block-sized buffer.
void WalkZone(Rebuild& r, const Todo& t, std::string& header) {
  RebuildReport& report = r.report;
  const uint16_t d = t.drive;
  const ZoneInfo& zi = t.zi;
  const bool cmr = t.cmr;  // (a plain local: lambdas cannot capture structured bindings)
  ZonedDevice* dev = r.devs[d];
  const uint64_t written = t.written();
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
    // A footer carries no sequence number of its own: it is this zone's (this use's, in a
    // CMR zone) only if its payload checks and its last entry is the record just walked.
    // An earlier use's footer can follow a CMR zone's records exactly, when the two uses
    // placed them alike (found by the option-space run, seed 5); a footer torn by a power
    // cut ends an SMR zone's walk (seed 8).
    if (h->type == RecordType::kZoneFooter &&
        !FooterIsThisZones(dev, zi, pos, *h, bytes, last_record, last_seq, report)) {
      if (cmr) {
        ++report.cmr_stale_records;
      } else {
        torn();
      }
      break;
    }
    if (h->type != RecordType::kZoneFooter) {
      last_seq = h->seq;
      last_record = pos;
    }
    ++report.records;
    if (w.first_seq == 0) w.first_seq = h->seq;
    if (h->type == RecordType::kJournal || h->type == RecordType::kCheckpoint) {
      if (!TakeJournalRecord(r, dev, zi, pos, *h, bytes, w)) {
        torn();
        break;
      }
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
    if (h->type == RecordType::kData) r.max_nid = std::max(r.max_nid, h->nid);
    for (const PackEntry& pe : h->pack) r.max_nid = std::max(r.max_nid, pe.nid);
    r.max_seq = std::max(r.max_seq, h->seq);
    pos += bytes;
  }
  w.end = pos;
  r.walked.push_back(w);
}

// Step 2: walks every zone of `todo` in order, calling `progress` about 5 times a second
// and once at the end; fills the report's scan figures.
void WalkZones(Rebuild& r, const std::vector<Todo>& todo, RebuildProgress& prog,
               const std::function<void(const RebuildProgress&)>& progress,
               std::chrono::steady_clock::time_point t0) {
  std::string header(kBlock, '\0');
  auto last_report = std::chrono::steady_clock::now();
  for (const Todo& t : todo) {
    WalkZone(r, t, header);
    prog.zones_done++;
    prog.bytes_done += t.written();
    if (progress && std::chrono::steady_clock::now() - last_report > std::chrono::milliseconds(200)) {
      prog.seconds = Seconds(t0);
      progress(prog);
      last_report = std::chrono::steady_clock::now();
    }
  }
  r.report.zones_scanned = prog.zones_done;
  r.report.bytes_scanned = prog.bytes_done;
  r.report.scan_seconds = Seconds(t0);
  prog.seconds = r.report.scan_seconds;
  if (progress) progress(prog);
}

// Step 3: sorts r.found in (mount, sequence) order, decodes the journal records' ops
// (r.decoded), collects the mount markers (r.mounts) and marks each record live or void
// (r.live, report.voided_records). Errors: a journal record that does not decode.
Status VoidUncommitted(Rebuild& r) {
  std::vector<Found>& found = r.found;
  std::sort(found.begin(), found.end());
  r.decoded.resize(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i].type != RecordType::kJournal) continue;
    auto ops = DecodeJournalOps(found[i].payload);
    if (!ops.ok()) {
      return ops.status().WithContext("journal record of drive " +
                                      std::to_string(found[i].zone.drive) + " zone " +
                                      std::to_string(found[i].zone.zone));
    }
    r.decoded[i] = std::move(*ops);
    for (const JournalOp& op : r.decoded[i]) {
      if (op.kind == journalfmt::kOpMount) r.mounts.emplace_back(op.a, op.b);
    }
  }
  auto is_void = [&](const Found& f) {
    for (const auto& [m, committed] : r.mounts) {
      if (m > f.mount && f.seq > committed) return true;
    }
    return false;
  };
  r.live.assign(found.size(), false);
  for (size_t i = 0; i < found.size(); ++i) {
    r.live[i] = !is_void(found[i]);
    if (!r.live[i]) ++r.report.voided_records;
  }
  return Status::OK();
}

// Step 4: the newest checkpoint whose completing record is live and all of whose chunks
// are found live (r.base; report.checkpoint_id and _chunks). kCorruption if there is none.
Status FindCheckpoint(Rebuild& r) {
  const std::vector<Found>& found = r.found;
  std::optional<Done>& base = r.base;
  for (size_t i = 0; i < found.size(); ++i) {
    if (!r.live[i] || found[i].type != RecordType::kJournal) continue;
    for (const JournalOp& op : r.decoded[i]) {
      if (op.kind != journalfmt::kOpCheckpointDone) continue;
      std::set<uint64_t> have;
      for (size_t j = 0; j < found.size(); ++j) {
        if (r.live[j] && found[j].type == RecordType::kCheckpoint && found[j].nid == op.a &&
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
  r.report.checkpoint_id = base->id;
  r.report.checkpoint_chunks = base->chunks;
  return Status::OK();
}

// Whether extent `e` of onode `o` is on the drives: its record's (pack entry's) header
// names the object, the payload's length and crc, and the payload reads and checks.
// A record's header alone does not say its payload reached the drive (a kill or a power
// cut in the middle of a group's write leaves a header with a torn or missing payload):
// the payload is read and its crc checked too. A pack entry is checked the same way: the
// pack's header names the object and the entry's crc, and the entry's bytes are read and
// checked.
bool ExtentOnDrives(const std::vector<ZonedDevice*>& devs, const Onode& o, const Extent& e) {
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
}

// Step 4, the tail no later mount confirmed (r.replay[first_tail..]): where it must be cut
// (an index into r.replay; its size if nothing is cut). The objects the tail leaves behind
// (key -> value and the record that put it) are checked against the drives; a failure
// cuts the tail before that record, and the check repeats on the shorter tail (an extent
// GC moved later in the tail is checked where it went).
size_t CutUnconfirmedTail(const Rebuild& r, size_t first_tail) {
  const std::vector<size_t>& replay = r.replay;
  size_t cut = replay.size();
  for (bool changed = true; changed;) {
    changed = false;
    std::map<std::string, std::pair<const std::string*, size_t>> last;  // key -> (value, r)
    for (size_t i = first_tail; i < cut; ++i) {
      for (const JournalOp& op : r.decoded[replay[i]]) {
        if (op.key.empty() || op.key[0] != keys::kObjectPrefix) continue;
        if (op.kind == journalfmt::kOpPut) last[op.key] = {&op.value, i};
        if (op.kind == journalfmt::kOpDelete) last.erase(op.key);
      }
    }
    for (const auto& [key, vr] : last) {
      auto onode = DecodeOnode(*vr.first);
      bool ok = onode.ok();
      if (ok) {
        for (const auto& [off, e] : onode->extents) {
          if (!ExtentOnDrives(r.devs, *onode, e)) {
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
  return cut;
}

// Step 4, the replay plan: the live journal records from the checkpoint's beginning on
// (its mount and sequence number: a checkpoint taken in steps, StoreOptions::checkpoint_step,
// walked the keyspace while commit groups went on, and the records they wrote make its
// fuzzy image exact: puts and deletes of whole values, replayed in order; one taken at
// once has only its chunks' commits there), in order (r.replay), less the unconfirmed tail
// whose data the drives lack (r.replayed_seq, report.dropped_tail_records);
// report.in_doubt_records says whether the newest is in doubt.
void PlanReplay(Rebuild& r) {
  const std::vector<Found>& found = r.found;
  std::vector<size_t>& replay = r.replay;
  const uint64_t base_mount = found[r.base->index].mount;
  for (size_t i = 0; i < found.size(); ++i) {
    const bool after_begin = std::tie(found[i].mount, found[i].seq) >=
                             std::tie(base_mount, r.base->seq);
    if (after_begin && r.live[i] && found[i].type == RecordType::kJournal) replay.push_back(i);
  }
  const uint64_t last_mount =
      r.mounts.empty() ? 0 : std::max_element(r.mounts.begin(), r.mounts.end())->first;
  size_t first_tail = replay.size();
  for (size_t i = 0; i < replay.size(); ++i) {
    if (found[replay[i]].mount >= last_mount) {
      first_tail = i;
      break;
    }
  }
  const size_t cut = CutUnconfirmedTail(r, first_tail);
  r.report.dropped_tail_records = replay.size() - cut;
  // The records left out must stay out: the next mount's marker voids what lies above the
  // last record replayed (kCounterRebuiltCommitted; the checkpoint's when none is).
  r.replayed_seq = cut > 0 ? found[replay[cut - 1]].seq : r.base->seq;
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
    const bool clean_end = last < found.size() && r.newest->clean_umount &&
                           r.newest->mount_count == found[last].mount;
    if (last < found.size() && r.live[last] && replay.back() == last && !clean_end) {
      r.report.in_doubt_records = 1;
    }
  }
}

// Step 5, placement: a data zone's stream from the journal's zone-open notes, with the
// sequence number it was opened at. A note may be about an earlier life of the zone: a
// journal zone a checkpoint freed and the allocator reused, whose later note sat in a
// journal zone a checkpoint freed too. So a note only counts for a zone whose records it
// can describe: never the journal stream for a zone without journal records (whether a
// zone is the journal's is read from its records alone: the journal's zones hold nothing
// else), and only if the zone was opened at or before its first record; of those, the
// latest opening (the checkpoint's completing record restates the zones then in use: those
// count though opened before it). Zones without one default to the user stream, opened at
// their first record (placement only: GC's choices, not correctness).
std::map<ZoneAddress, std::pair<StreamId, uint64_t>> ZoneStreams(const Rebuild& r) {
  const std::vector<Found>& found = r.found;
  std::map<ZoneAddress, uint64_t> first_seq;
  for (const WalkedZone& w : r.walked) first_seq[w.addr] = w.first_seq;
  std::map<ZoneAddress, std::pair<StreamId, uint64_t>> streams;
  for (size_t i = 0; i < found.size(); ++i) {  // zone-open notes of every live record
    if (!r.live[i] || found[i].type != RecordType::kJournal) continue;
    for (const JournalOp& op : r.decoded[i]) {
      if (op.kind != journalfmt::kOpZoneOpen || op.c < 1 || op.c > kNumStreams ||
          op.c == static_cast<uint64_t>(StreamId::kJournal)) {
        continue;
      }
      const ZoneAddress addr{static_cast<uint16_t>(op.a), static_cast<uint32_t>(op.b)};
      auto f = first_seq.find(addr);
      // The record completing the checkpoint restates the streams of the zones then in use.
      if (f == first_seq.end() || op.d > f->second ||
          (op.d < r.base->seq && i != r.base->index)) {
        continue;
      }
      auto s = streams.find(addr);
      if (s == streams.end() || op.d >= s->second.second) {
        streams[addr] = {static_cast<StreamId>(op.c), op.d};
      }
    }
  }
  return streams;
}

// Step 5: creates the metadata database in DIR/meta (r.meta), loads the base checkpoint's
// chunks, finds the zones' streams (r.streams), replays r.replay (r.counters_op, r.ids_op,
// report.replayed_records) and commits (synced; in 64 MiB batches unsynced before).
Status LoadAndReplay(Rebuild& r, const std::string& dir) {
  const std::vector<Found>& found = r.found;
  SMR_ASSIGN_OR_RETURN(r.meta, MetaStore::Create(dir + "/meta"));
  MetaStore* meta = r.meta.get();
  auto batch = meta->NewBatch();
  auto maybe_commit = [&]() -> Status {
    if (batch->ApproximateBytes() < (64u << 20)) return Status::OK();
    return meta->Commit(batch.get(), /*sync=*/false);
  };
  for (size_t j = 0; j < found.size(); ++j) {
    if (!r.live[j] || found[j].type != RecordType::kCheckpoint || found[j].nid != r.base->id ||
        found[j].seq != r.base->seq) {
      continue;
    }
    SMR_ASSIGN_OR_RETURN(auto kvs, DecodeCheckpointChunk(found[j].payload));
    for (auto& [k, v] : kvs) batch->ApplyJournalOp(JournalOp::Put(std::move(k), std::move(v)));
    SMR_RETURN_IF_ERROR(maybe_commit());
  }
  r.streams = ZoneStreams(r);
  for (size_t i : r.replay) {
    for (const JournalOp& op : r.decoded[i]) {
      if (op.kind == journalfmt::kOpCounters) r.counters_op = op;
      if (op.kind == journalfmt::kOpIds) r.ids_op = op;
      batch->ApplyJournalOp(op);
    }
    ++r.report.replayed_records;
    SMR_RETURN_IF_ERROR(maybe_commit());
  }
  return meta->Commit(batch.get(), /*sync=*/true);
}

// Step 6, from the rebuilt onodes: the live bytes of each zone (`zone_live`), the inline
// bytes stored, the highest collection id; counts collections and objects in the report
// and raises r.max_nid. Errors: the metadata database's.
Status CountObjects(Rebuild& r, std::map<ZoneAddress, uint64_t>* zone_live,
                    uint64_t* inline_stored, uint64_t* max_cid) {
  SMR_ASSIGN_OR_RETURN(auto colls, r.meta->ListCollections(nullptr));
  for (const auto& [name, cm] : colls) {
    ++r.report.collections;
    *max_cid = std::max(*max_cid, cm.cid);
    ObjectId start = ObjectId::Min(), end = ObjectId::Max(), next;
    for (;;) {
      std::vector<std::pair<ObjectId, Onode>> chunk;
      SMR_RETURN_IF_ERROR(r.meta->ListOnodes(nullptr, cm.cid, start, end, 1024, &chunk, &next));
      for (const auto& [oid, o] : chunk) {
        ++r.report.objects;
        r.max_nid = std::max(r.max_nid, o.nid);
        if (o.data_inline) *inline_stored += o.inline_data.size();
        for (const auto& [off, e] : o.extents) {
          if (e.drive >= r.devs.size()) continue;
          const uint64_t zs = r.devs[e.drive]->info().zone_size;
          (*zone_live)[{e.drive, static_cast<uint32_t>(e.payload_offset / zs)}] += e.length;
        }
      }
      if (next.max || chunk.empty()) break;
      start = next;
    }
  }
  return Status::OK();
}

// Step 6: writes the derived state in one synced commit: the journal pins, every walked
// zone's accounting, the counters, then the superblock and the drive list (last, so a
// rebuild killed before it leaves a directory that does not mount).
Status WriteDerivedState(Rebuild& r) {
  std::map<ZoneAddress, uint64_t> zone_live;
  uint64_t inline_stored = 0, max_cid = 0;
  SMR_RETURN_IF_ERROR(CountObjects(r, &zone_live, &inline_stored, &max_cid));
  auto out = r.meta->NewBatch();
  // A journal zone holds journal and checkpoint records only. A data zone may hold journal
  // records too (StoreOptions::journal_with_data): those the replay used keep it pinned.
  std::set<ZoneAddress> data_zones;
  for (const WalkedZone& w : r.walked) {
    if (w.data) data_zones.insert(w.addr);
  }
  std::vector<ZoneAddress> pins;
  for (size_t i : r.replay) {
    if (data_zones.count(r.found[i].zone)) pins.push_back(r.found[i].zone);
  }
  std::sort(pins.begin(), pins.end());
  pins.erase(std::unique(pins.begin(), pins.end()), pins.end());
  out->PutDerivedValue(kValueJournalPins, MetadataJournal::EncodeJournalPins(pins));
  const auto& streams = r.streams;
  for (const WalkedZone& w : r.walked) {
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
  out->PutCounter(kCounterSeq, r.max_seq);
  if (r.report.dropped_tail_records > 0) out->PutCounter(kCounterRebuiltCommitted, r.replayed_seq);
  out->PutCounter(kCounterNid, std::max(r.max_nid, r.ids_op.a));
  out->PutCounter(kCounterCid, std::max(max_cid, r.ids_op.b));
  out->PutCounter(kCounterUserBytes, r.counters_op.a);
  out->PutCounter(kCounterDeviceBytes, r.counters_op.b);
  out->PutCounter(kCounterTxns, r.counters_op.c);
  out->PutCounter(kCounterGcBytes, r.counters_op.d);
  out->PutCounter(kCounterInlineStored, inline_stored);
  // The superblock as the drives have it, and the drives as given: last, in the commit
  // that completes the database, so a rebuild killed before it leaves a directory that
  // does not mount (no superblock) rather than one without its zones and counters.
  StoreSuperblock sb = *r.newest;
  sb.drive_index = 0;
  out->PutValue(kValueSuperblock, EncodeStoreSuperblock(sb));
  std::string devices_value;
  for (const std::string& s : r.ordered) devices_value += s + "\n";
  out->PutValue(kValueDevices, devices_value);
  return r.meta->Commit(out.get(), /*sync=*/true);
}

}  // namespace

Result<RebuildReport> Store::RebuildMeta(const std::string& dir,
                                         const std::vector<std::string>& specs,
                                         const std::function<void(const RebuildProgress&)>& progress,
                                         DeviceOpener opener) {
  const auto t0 = std::chrono::steady_clock::now();
  Rebuild r;
  if (specs.empty()) return Status::InvalidArgument("rebuild-meta needs the store's drives");
  if (DirExistsAt(dir + "/meta")) {
    return Status::AlreadyExists(dir + "/meta exists: move it aside first (rebuild-meta "
                                 "writes a new metadata database there)");
  }
  if (!opener) opener = [](const std::string& spec) { return OpenDevice(spec); };

  // 1. The drives, in the store's order.
  SMR_RETURN_IF_ERROR(OpenDrives(r, specs, opener));

  // 2. Walk every written data zone. A hybrid drive's CMR zones have no write pointer: the
  //    walk goes up to the zone's capacity and a CMR zone's records end where a header does
  //    not decode or its sequence number goes back (a zone is reused from its start, and a
  //    free CMR zone's first block is zeroed: zone/zone_manager.h), so the records of an
  //    earlier use of the zone past the current ones are never taken for its own.
  RebuildProgress prog;
  SMR_ASSIGN_OR_RETURN(const std::vector<Todo> todo, ListWrittenZones(r, &prog));
  WalkZones(r, todo, prog, progress, t0);

  // 3. Void what was never committed.
  SMR_RETURN_IF_ERROR(VoidUncommitted(r));

  // 4. The newest complete checkpoint.
  SMR_RETURN_IF_ERROR(FindCheckpoint(r));
  if (!DirExistsAt(dir) && ::mkdir(dir.c_str(), 0755) != 0) {
    return Status::FromErrno(errno, dir);
  }
  // The replay plan: journal records from the checkpoint's completion on, in order. The
  // tail no later mount confirmed is checked against the drives (step 5).
  PlanReplay(r);

  // 5. Load the checkpoint, replay the journal.
  SMR_RETURN_IF_ERROR(LoadAndReplay(r, dir));

  // 6. Derived state: zone accounting and counters.
  SMR_RETURN_IF_ERROR(WriteDerivedState(r));
  r.report.seconds = Seconds(t0);
  return r.report;
}

}  // namespace smr
