#include "store/store.h"
#include "common/engine_log.h"
#include "format/record_format.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <sstream>

#include "common/crc32c.h"
#include "common/json.h"
#include "device/device_spec.h"
#include "store/commit_pipeline.h"
#include "store/hybrid_manager.h"
#include "store/options_table.h"
#include "store/store_internal.h"
#include "store/superblock_log.h"

namespace smr {

namespace {

// The options the store was made with, kept in RocksDB as text (store/options_table.h).
std::string EncodeOptions(const StoreOptions& o) { return EncodeStoreOptions(o); }
Result<StoreOptions> DecodeOptions(const std::string& text) { return DecodeStoreOptions(text); }
Status CheckOptions(const StoreOptions& o) { return ValidateStoreOptions(o); }

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

uint64_t NowSec() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}


bool DirExists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Empties every data zone and the reserved zones (a forced mkfs must not find the old
// superblock afterwards).
Status FormatDrives(ZoneManager* zones, const std::vector<ZonedDevice*>& raw) {
  SMR_RETURN_IF_ERROR(zones->Format());
  for (uint16_t d = 0; d < raw.size(); ++d) {
    for (uint32_t z : zones->ReservedZones(d)) {
      SMR_ASSIGN_OR_RETURN(auto zi, raw[d]->ReportZones(z, 1));
      if (zi[0].is_conventional()) {
        const std::string zeros(kSuperblockSlot, '\0');
        for (uint64_t off = 0; off < 16 * kSuperblockSlot && off < zi[0].length;
             off += kSuperblockSlot) {
          SMR_RETURN_IF_ERROR(raw[d]->Write(zi[0].start + off, zeros.data(), zeros.size()));
        }
      } else {
        SMR_RETURN_IF_ERROR(raw[d]->ResetZones(z, 1));
      }
    }
  }
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// mkfs / mount / umount

Status Store::Mkfs(const std::string& dir, const std::vector<std::string>& device_specs,
                   const StoreOptions& options, bool force) {
  SMR_RETURN_IF_ERROR(CheckOptions(options));
  if (device_specs.empty()) return Status::InvalidArgument("mkfs needs at least one device");
  if (device_specs.size() > 64) return Status::InvalidArgument("at most 64 devices");
  if (DirExists(dir + "/meta")) {
    return Status::AlreadyExists(dir + " already holds a store (" + dir + "/meta exists)");
  }
  // Open (or create, for emulated drives that do not exist yet) every device first, so a
  // bad spec changes nothing.
  std::vector<std::unique_ptr<ZonedDevice>> devices;
  std::vector<std::string> created;
  auto cleanup = [&](Status s) {
    devices.clear();
    for (const std::string& path : created) ::unlink(path.c_str());
    return s;
  };
  for (const std::string& spec : device_specs) {
    auto parsed = DeviceSpec::Parse(spec);
    if (!parsed.ok()) return cleanup(parsed.status());
    struct stat st;
    const bool create =
        parsed->kind == DeviceSpec::Kind::kEmulated && ::stat(parsed->path.c_str(), &st) != 0;
    auto dev = create ? CreateDevice(spec) : OpenDevice(spec);
    if (!dev.ok()) return cleanup(dev.status().WithContext(spec));
    if (create) created.push_back(parsed->path);
    devices.push_back(std::move(*dev));
  }
  std::vector<ZonedDevice*> raw;
  for (auto& d : devices) raw.push_back(d.get());
  ZoneManager zones(raw);
  Status attached = zones.Attach();
  if (!attached.ok()) return cleanup(attached);
  // A record of max_record_payload (and a pack of pack_max) must fit in every zone beside
  // the zone's footer: else every larger write fails (found by the option-space run's
  // crash sweep: 256 KiB zones with the default 1 MiB records took puts of 4 KiB at most).
  for (ZonedDevice* dev : raw) {
    const uint64_t cap = dev->info().zone_capacity;
    const uint64_t need = RecordBytes(std::max<uint64_t>(options.max_record_payload,
                                                         options.pack_max)) +
                          ZoneFooterRecordBytes(1);
    if (need > cap) {
      return cleanup(Status::InvalidArgument(
          dev->info().path + ": zone capacity " + std::to_string(cap) +
          " bytes cannot hold a record of max_record_payload " +
          std::to_string(options.max_record_payload) + " / pack_max " +
          std::to_string(options.pack_max) + " bytes and its zone footer (" +
          std::to_string(need) + " bytes): give smaller ones (smrstore-tool mkfs "
          "--max-record / --pack-max)"));
    }
  }
  // Refuse drives that hold another store's superblock unless forced.
  for (uint16_t d = 0; d < raw.size(); ++d) {
    auto existing = ReadSuperblock(raw[d], zones.ReservedZones(d));
    if (!existing.ok()) return cleanup(existing.status());
    if (existing->has_value() && !force) {
      return cleanup(Status::AlreadyExists(
          raw[d]->info().path + " holds smrstore " + UuidToString((*existing)->store_uuid) +
          " (use --force to overwrite it)"));
    }
  }
  // The metadata database next (the step most likely to fail on a bad directory), before
  // any drive is changed; from here on a failure removes what mkfs made.
  bool made_dir = false;
  if (!DirExists(dir)) {
    if (::mkdir(dir.c_str(), 0755) != 0) return cleanup(Status::FromErrno(errno, dir));
    made_dir = true;
  }
  auto meta_or = MetaStore::Create(dir + "/meta");
  if (!meta_or.ok()) {
    if (made_dir) ::rmdir(dir.c_str());
    return cleanup(meta_or.status());
  }
  std::unique_ptr<MetaStore> meta = std::move(*meta_or);
  auto fail = [&](Status s) {
    meta.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir + "/meta", ec);
    if (made_dir) ::rmdir(dir.c_str());
    return cleanup(s);
  };
  Status formatted = FormatDrives(&zones, raw);
  if (!formatted.ok()) return fail(formatted);
  StoreSuperblock sb;
  sb.store_uuid = NewRandomUuid();
  sb.nr_drives = static_cast<uint32_t>(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) sb.drive_uuids.push_back(NewRandomUuid());
  sb.sequence = 1;
  sb.created_unix_sec = NowSec();
  sb.clean_umount = true;
  sb.meta_path_hint = dir + "/meta";
  sb.max_record_payload = options.max_record_payload;
  sb.inline_max = options.inline_max;
  auto batch = meta->NewBatch();
  batch->PutValue(kValueSuperblock, EncodeStoreSuperblock(sb));
  std::string specs;
  for (const std::string& s : device_specs) specs += s + "\n";
  batch->PutValue(kValueDevices, specs);
  batch->PutValue(kValueOptions, EncodeOptions(options));
  batch->PutCounter(kCounterSeq, 0);
  batch->PutCounter(kCounterNid, 0);
  batch->PutCounter(kCounterCid, 0);
  for (uint16_t d = 0; d < raw.size(); ++d) {
    StoreSuperblock copy = sb;
    copy.drive_index = d;
    Status w = WriteSuperblock(raw[d], zones.ReservedZones(d), copy);
    if (!w.ok()) return fail(w);
  }
  Status c = meta->Commit(batch.get(), /*sync=*/true);
  if (!c.ok()) return fail(c);
  if (!options.journal) return Status::OK();
  // The first mount writes the first metadata checkpoint into the zones: from then on the
  // drives alone can rebuild the metadata database.
  meta.reset();
  devices.clear();
  auto first = Open(dir);
  if (!first.ok()) return first.status().WithContext("mkfs: first mount");
  return (*first)->Close().WithContext("mkfs: first unmount");
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Store::Impl::Impl() : pipeline(std::make_unique<CommitPipeline>(*this)) {
  peers.pipeline = pipeline.get();
  peers.gc = &gc_worker;
  peers.journal = &journal;
  peers.read_extent = [this](const Extent& e, uint64_t from, uint64_t len, char* dst,
                             const GroupWrites* pending) {
    return ReadExtent(e, from, len, dst, pending);
  };
}

Store::Impl::~Impl() = default;

Store::~Store() { (void)Close(); }

StoreLock::~StoreLock() {
  if (fd >= 0) ::close(fd);  // releases the flock
}

namespace {

constexpr const char* kLockFile = "/lock";

// Takes DIR/lock: exclusive (read-write mount) or shared (read-only), never waiting.
Status LockStore(const std::string& dir, bool read_only, StoreLock* lock) {
  const std::string path = dir + kLockFile;
  // A read-only mount creates nothing: a store that has no lock file yet has never been
  // mounted read-write by this version, so there is no writer to exclude.
  const int fd = read_only ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC)
                           : ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (read_only && errno == ENOENT) return Status::OK();
    return Status::IOError(path + ": " + std::strerror(errno));
  }
  if (::flock(fd, (read_only ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK) {
      return Status::Busy("store in " + dir + " is in use (" + path + " is locked" +
                          (read_only ? " by a read-write mount)" : ")"));
    }
    return Status::IOError(path + ": flock: " + std::strerror(e));
  }
  lock->fd = fd;
  return Status::OK();
}

}  // namespace

Result<bool> Store::InUse(const std::string& dir) {
  if (!DirExists(dir + "/meta")) return Status::NotFound(dir + " holds no smrstore");
  StoreLock probe;
  const Status s = LockStore(dir, /*read_only=*/true, &probe);
  if (s.IsBusy()) return true;
  SMR_RETURN_IF_ERROR(s);
  return false;
}

const std::string& Store::dir() const { return impl_->dir; }

const StoreOptions& Store::options() const { return impl_->options; }

Result<std::unique_ptr<Store>> Store::Open(const std::string& dir, DeviceOpener opener,
                                           bool read_only) {
  const std::string fix = "; the drives hold everything needed to rebuild it: move " + dir +
                          "/meta aside (if it is there) and run `smrstore-tool rebuild-meta " +
                          dir + " SPEC...` with the store's drives";
  if (!DirExists(dir + "/meta")) {
    // A store directory that was mounted before (its lock file is there) lost its database.
    if (::access((dir + kLockFile).c_str(), F_OK) == 0) {
      return Status::NotFound(dir + "/meta is missing: the metadata database is gone" + fix);
    }
    return Status::NotFound(dir + " holds no smrstore");
  }
  auto impl = std::make_unique<Impl>();
  impl->hybrid_manager = std::make_unique<HybridManager>(*impl);
  impl->peers.hybrid = impl->hybrid_manager.get();
  impl->dir = dir;
  impl->read_only = read_only;
  SMR_RETURN_IF_ERROR(LockStore(dir, read_only, &impl->lock));
  SMR_ASSIGN_OR_RETURN(const std::vector<std::string> specs, impl->OpenMetaStore(fix));
  SMR_RETURN_IF_ERROR(impl->OpenDrives(specs, opener));
  // Every drive must carry this store's superblock, at its own index — checked before
  // mount reconciliation, which may finish or reset zones: a drive of another store (or
  // this store's drives in the wrong order) must be refused before anything is written.
  SMR_RETURN_IF_ERROR(impl->zones->Attach());  // reads geometry, changes nothing
  // Whether the mount before this one ended without a clean unmount (a crash), on the
  // database's word or any drive's: its journal may end in records no commit confirmed.
  SMR_ASSIGN_OR_RETURN(bool after_crash, impl->CheckDriveSuperblocks(specs));
  SMR_RETURN_IF_ERROR(impl->journal.RefusePreJournalStore());  // before anything is written
  SMR_RETURN_IF_ERROR(impl->LoadZonesAndCounters());
  impl->crc_pool = std::make_unique<boost::asio::thread_pool>(1);
  if (read_only) {
    // Sizes the journal's reserve as a read-write mount does, so Statfs (`df`) says what
    // a put on a read-write mount can take.
    SMR_RETURN_IF_ERROR(impl->journal.LoadJournalState());
    return std::unique_ptr<Store>(new Store(std::move(impl)));
  }
  impl->superblock.mount_count++;
  SMR_RETURN_IF_ERROR(impl->UpdateSuperblocks(/*clean=*/false));
  // Zone states changed by reconciliation (zones finished or reset at mount).
  {
    auto batch = impl->meta->NewBatch();
    for (const auto& [addr, zm] : impl->zones->TakeDirtyZones()) {
      batch->PutZone(addr.drive, addr.zone, zm);
    }
    SMR_RETURN_IF_ERROR(impl->meta->Commit(batch.get(), true));
  }
  impl->pipeline->StartIo();
  SMR_RETURN_IF_ERROR(impl->journal.LoadJournalState());
  if (impl->options.journal) SMR_RETURN_IF_ERROR(impl->JournalAtMount(after_crash));
  impl->pipeline->Start();
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

Result<std::vector<std::string>> Store::Impl::OpenMetaStore(const std::string& fix) {
  auto damaged = [&](const Status& s) {
    if (s.IsBusy() || s.IsNotSupported() || s.IsReadOnly()) return s;
    if (s.IsCorruption() || s.IsNotFound()) {
      return Status::Corruption("metadata database " + dir + "/meta is damaged (" +
                                s.ToString() + ")" + fix);
    }
    // An I/O error (a missing table file, or the kv plugin failing to load): say both.
    return Status::IOError("metadata database " + dir + "/meta cannot be used (" +
                           s.ToString() + "); if it is damaged" + fix);
  };
  auto meta_store = MetaStore::Open(dir + "/meta", read_only);
  if (!meta_store.ok()) return damaged(meta_store.status());
  meta = std::move(*meta_store);
  auto sb_value = meta->GetValue(nullptr, kValueSuperblock);
  auto devices_value = meta->GetValue(nullptr, kValueDevices);
  auto options_value = meta->GetValue(nullptr, kValueOptions);
  for (const Status& st : {sb_value.status(), devices_value.status(), options_value.status()}) {
    if (!st.ok()) return damaged(st);
  }
  if (!*sb_value || !*devices_value || !*options_value) {
    return damaged(Status::Corruption("it lacks the store superblock"));
  }
  SMR_ASSIGN_OR_RETURN(superblock, DecodeStoreSuperblock(**sb_value));
  if (superblock.format_version != recfmt::kStoreFormatVersion) {
    return Status::InvalidArgument(dir + ": store format version " +
                                   std::to_string(superblock.format_version) +
                                   " is not supported by this build (version " +
                                   std::to_string(recfmt::kStoreFormatVersion) + ")");
  }
  SMR_ASSIGN_OR_RETURN(options, DecodeOptions(**options_value));
  const std::vector<std::string> specs = SplitLines(**devices_value);
  if (specs.size() != superblock.nr_drives) {
    return Status::Corruption(dir + ": device list does not match the superblock");
  }
  return specs;
}

Status Store::Impl::OpenDrives(const std::vector<std::string>& specs, DeviceOpener opener) {
  for (const std::string& spec : specs) {
    auto dev = opener ? opener(spec) : OpenDevice(spec);
    if (!dev.ok()) return dev.status().WithContext(spec);
    devices.push_back(std::move(*dev));
  }
  std::vector<ZonedDevice*> raw;
  for (auto& d : devices) raw.push_back(d.get());
  zones = std::make_unique<ZoneManager>(raw);
  // Free zones kept for the journal alone, per drive: a full store still commits (removes
  // are the way out), checkpoints and mounts (its mount marker is a journal record).
  // Sized to the last checkpoint once it is known (SizeJournalReserve).
  zones->Configure(/*shared=*/!options.separate_streams,
                   options.gc_reserve_zones,
                   /*journal_reserve=*/options.journal ? 1 : 0);
  zones->SetDomainPlacement(options.hybrid_hbuffer);
  gc_worker.SetGcAuto(options.gc_auto);
  {
    bool rotational = false;
    for (const auto& d : devices) rotational |= d->info().rotational;
    journal.SetWithData(options.journal_with_data.value_or(rotational));
    gc_read_ahead = options.gc_read_ahead.value_or(rotational);
  }
  gc_worker.SetPacer(GcPaceOptions{options.gc_start_free, options.gc_urgent_free,
                                   options.gc_stop_free});
  return Status::OK();
}

Result<bool> Store::Impl::CheckDriveSuperblocks(const std::vector<std::string>& specs) {
  bool after_crash = !superblock.clean_umount;
  const uint64_t db_mounts = superblock.mount_count;
  for (uint16_t d = 0; d < devices.size(); ++d) {
    SMR_ASSIGN_OR_RETURN(auto on_drive, ReadSuperblock(devices[d].get(), zones->ReservedZones(d)));
    if (!on_drive) {
      return Status::Corruption(specs[d] + ": no smrstore superblock on this drive");
    }
    if (on_drive->store_uuid != superblock.store_uuid || on_drive->drive_index != d) {
      return Status::Corruption(specs[d] + ": drive belongs to store " +
                                UuidToString(on_drive->store_uuid) + " (index " +
                                std::to_string(on_drive->drive_index) + "), expected " +
                                UuidToString(superblock.store_uuid) + " index " +
                                std::to_string(d));
    }
    superblock.sequence = std::max(superblock.sequence, on_drive->sequence);
    // Mount counts order the metadata journal's records (store/metadata_journal.cc): a
    // mount must count past every mount the drives saw, even one the database does not
    // remember.
    superblock.mount_count = std::max(superblock.mount_count, on_drive->mount_count);
    if (!on_drive->clean_umount || on_drive->mount_count > db_mounts) after_crash = true;
  }
  return after_crash;
}

Status Store::Impl::LoadZonesAndCounters() {
  SMR_ASSIGN_OR_RETURN(auto persisted, meta->LoadZones(nullptr));
  {
    // Data zones holding journal records a rebuild needs: Load must not free them.
    SMR_ASSIGN_OR_RETURN(auto pins_value, meta->GetDerivedValue(nullptr, kValueJournalPins));
    if (pins_value) {
      SMR_ASSIGN_OR_RETURN(auto pins, MetadataJournal::DecodeJournalPins(*pins_value));
      zones->SetJournalPins(pins);
    }
  }
  SMR_RETURN_IF_ERROR(zones->Load(persisted, /*modify=*/!read_only));
  SMR_ASSIGN_OR_RETURN(seq, meta->GetCounter(nullptr, kCounterSeq));
  SMR_ASSIGN_OR_RETURN(nid_max, meta->GetCounter(nullptr, kCounterNid));
  SMR_ASSIGN_OR_RETURN(cid_max, meta->GetCounter(nullptr, kCounterCid));
  meta_nid_max = nid_max;
  meta_cid_max = cid_max;
  death_rates.Advance(seq, {});  // death rates count from this mount on
  SMR_ASSIGN_OR_RETURN(const uint64_t lifetime_gc_bytes,
                       meta->GetCounter(nullptr, kCounterGcBytes));
  gc_worker.set_lifetime_gc_bytes(lifetime_gc_bytes);
  {
    // No other thread runs yet; the lock is for the analysis (counters are guarded).
    MutexLock lock(&counters_mu);
    counters.lifetime_gc_bytes = lifetime_gc_bytes;
    SMR_ASSIGN_OR_RETURN(counters.lifetime_user_bytes,
                         meta->GetCounter(nullptr, kCounterUserBytes));
    SMR_ASSIGN_OR_RETURN(counters.lifetime_device_bytes,
                         meta->GetCounter(nullptr, kCounterDeviceBytes));
    SMR_ASSIGN_OR_RETURN(counters.lifetime_txns,
                         meta->GetCounter(nullptr, kCounterTxns));
    SMR_ASSIGN_OR_RETURN(inline_stored,
                         meta->GetCounter(nullptr, kCounterInlineStored));
    counters.dead_on_mount_bytes = zones->dead_on_mount_bytes();
  }
  return Status::OK();
}

Status Store::Impl::JournalAtMount(bool after_crash) {
  // No commit thread runs yet; the mount's own commits take group_mu as every commit does.
  MutexLock group_lock(&group_mu);
  // Records of earlier mounts with a higher sequence number never committed.
  JournalOp mount;
  mount.kind = journalfmt::kOpMount;
  mount.a = superblock.mount_count;
  mount.b = seq;
  // A rebuilt database that left journal records out commits below its seq counter.
  SMR_ASSIGN_OR_RETURN(const uint64_t rebuilt,
                       meta->GetCounter(nullptr, kCounterRebuiltCommitted));
  if (rebuilt != 0) {
    mount.b = std::min(mount.b, rebuilt);
    after_crash = true;  // the marker goes to the drives now
  }
  journal.QueueMarker(mount);
  // After a crash it is written now, in a record of its own, not with this mount's
  // first commit: a mount that commits nothing (a GC with nothing to move, a command
  // killed before its first commit) must still void, on the drives, the records its
  // database lacks, or rebuild-meta would take such a record for the newest commit (the
  // commit in doubt) and replay it (crash sweep point 901). After a clean unmount there
  // is nothing to void, and a mount that commits nothing writes nothing (a refused
  // `put` leaves the store as it was: qa/smoke/0007).
  if (after_crash) {
    journal.WriteMarkersAlone();
    ++seq;
    GroupWrites writes;
    auto batch = meta->NewBatch();
    if (rebuilt != 0) batch->PutCounter(kCounterRebuiltCommitted, 0);  // absent = 0
    SMR_RETURN_IF_ERROR(
        pipeline->WriteAndCommit(&writes, batch.get(), 0).WithContext("mount marker"));
  }
  // No checkpoint yet: the first mount (mkfs's) stopped before it completed, as nothing
  // else was committed (RefusePreJournalStore): write it now.
  if (!journal.has_checkpoint()) {
    SMR_RETURN_IF_ERROR(journal.Checkpoint().WithContext("first metadata checkpoint"));
  }
  return Status::OK();
}

Status Store::Impl::UpdateSuperblocks(bool clean) {
  superblock.sequence++;
  superblock.clean_umount = clean;
  for (uint16_t d = 0; d < devices.size(); ++d) {
    StoreSuperblock copy = superblock;
    copy.drive_index = d;
    SMR_RETURN_IF_ERROR(WriteSuperblock(devices[d].get(), zones->ReservedZones(d), copy));
  }
  auto batch = meta->NewBatch();
  StoreSuperblock copy = superblock;
  copy.drive_index = 0;
  batch->PutValue(kValueSuperblock, EncodeStoreSuperblock(copy));
  return meta->Commit(batch.get(), true);
}

Status Store::Close() {
  if (!impl_) return Status::OK();
  {
    MutexUniqueLock lock(&impl_->mu);
    if (impl_->closed) return Status::OK();
    impl_->stopping = true;
    if (impl_->read_only) {
      impl_->closed = true;
      return Status::OK();
    }
  }
  impl_->pipeline->Stop();
  Status s;
  {
    MutexUniqueLock lock(&impl_->mu);
    impl_->closed = true;
    s = impl_->fatal;
  }
  if (s.ok()) s = impl_->UpdateSuperblocks(/*clean=*/true);
  return s;
}

// ---------------------------------------------------------------------------------------
// Submitting transactions (the commit pipeline queues them: store/commit_pipeline.cc)

void Store::Submit(Transaction txn, Callback on_commit) {
  // Names beyond Ceph's limits (store/transaction.h) never reach the commit pipeline.
  if (Status bad = txn.Validate(); !bad.ok()) {
    if (on_commit) on_commit(bad);
    return;
  }
  CommitPipeline::Pending pending;
  {
    MutexUniqueLock lock(&impl_->mu);
    if (impl_->stopping || impl_->closed || impl_->read_only) {
      lock.Unlock();
      if (on_commit) {
        on_commit(impl_->read_only ? Status::ReadOnly("store is mounted read-only")
                                   : Status::Busy("store is unmounting"));
      }
      return;
    }
    CommitPipeline::Pending p;
    p.txn = std::move(txn);
    p.done = std::move(on_commit);
    pending = std::move(p);
  }
  // The records' crcs on this thread, outside the lock (the commit thread then only writes).
  pending.crcs = ComputeWriteCrcs(pending.txn, impl_->options.max_record_payload);
  if (Status busy = impl_->pipeline->Enqueue(&pending); !busy.ok()) {
    if (pending.done) pending.done(busy);
  }
}

Status Store::Apply(Transaction txn) {
  std::promise<Status> done;
  auto f = done.get_future();
  Submit(std::move(txn), [&done](const Status& s) { done.set_value(s); });
  return f.get();
}


}  // namespace smr
