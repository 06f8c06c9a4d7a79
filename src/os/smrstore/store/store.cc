#include "store/store.h"
#include "common/engine_log.h"
#include "format/record_format.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <iterator>
#include <map>
#include <sstream>

#include "common/crc32c.h"
#include "common/json.h"
#include "device/device_spec.h"
#include "store/hybrid_manager.h"
#include "store/options_table.h"
#include "store/store_internal.h"
#include "store/superblock_log.h"

namespace smr {

namespace {

// Records are aligned to the record format's block (format/record_format.h).
constexpr uint64_t kBlock = recfmt::kBlockSize;

uint64_t NowNanos() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

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
  impl->hybrid_manager = std::make_unique<HybridManager>(*impl, impl.get());
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
  SMR_RETURN_IF_ERROR(impl->RefusePreJournalStore());  // before anything is written
  SMR_RETURN_IF_ERROR(impl->LoadZonesAndCounters());
  impl->crc_pool = std::make_unique<boost::asio::thread_pool>(1);
  if (read_only) {
    // Sizes the journal's reserve as a read-write mount does, so Statfs (`df`) says what
    // a put on a read-write mount can take.
    SMR_RETURN_IF_ERROR(impl->LoadJournalState());
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
  impl->io_pool = std::make_unique<boost::asio::thread_pool>(
      std::max<size_t>(2, impl->devices.size()));
  SMR_RETURN_IF_ERROR(impl->LoadJournalState());
  if (impl->options.journal) SMR_RETURN_IF_ERROR(impl->JournalAtMount(after_crash));
  Impl* p = impl.get();
  impl->committer = std::thread([p] { p->CommitLoop(); });
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
  gc_auto = options.gc_auto;
  {
    bool rotational = false;
    for (const auto& d : devices) rotational |= d->info().rotational;
    journal_with_data = options.journal_with_data.value_or(rotational);
    gc_read_ahead = options.gc_read_ahead.value_or(rotational);
  }
  gc_pacer = GcPacer(GcPaceOptions{options.gc_start_free, options.gc_urgent_free,
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
    // Mount counts order the metadata journal's records (store/journal.cc): a mount must
    // count past every mount the drives saw, even one the database does not remember.
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
      SMR_ASSIGN_OR_RETURN(auto pins, Impl::DecodeJournalPins(*pins_value));
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
  SMR_ASSIGN_OR_RETURN(lifetime_gc_bytes, meta->GetCounter(nullptr, kCounterGcBytes));
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
  journal_markers.push_back(mount);
  // After a crash it is written now, in a record of its own, not with this mount's
  // first commit: a mount that commits nothing (a GC with nothing to move, a command
  // killed before its first commit) must still void, on the drives, the records its
  // database lacks, or rebuild-meta would take such a record for the newest commit (the
  // commit in doubt) and replay it (crash sweep point 901). After a clean unmount there
  // is nothing to void, and a mount that commits nothing writes nothing (a refused
  // `put` leaves the store as it was: qa/smoke/0007).
  if (after_crash) {
    journal_markers_now = true;
    ++seq;
    GroupWrites writes;
    auto batch = meta->NewBatch();
    if (rebuilt != 0) batch->PutCounter(kCounterRebuiltCommitted, 0);  // absent = 0
    SMR_RETURN_IF_ERROR(
        WriteAndCommit(&writes, batch.get(), 0).WithContext("mount marker"));
  }
  // No checkpoint yet: the first mount (mkfs's) stopped before it completed, as nothing
  // else was committed (RefusePreJournalStore): write it now.
  if (!has_checkpoint) SMR_RETURN_IF_ERROR(Checkpoint().WithContext("first metadata checkpoint"));
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
  impl_->cv.NotifyAll();
  if (impl_->committer.joinable()) impl_->committer.join();
  if (impl_->io_pool) impl_->io_pool->join();
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
// Commit pipeline

void Store::Submit(Transaction txn, Callback on_commit) {
  // Names beyond Ceph's limits (store/transaction.h) never reach the commit pipeline.
  if (Status bad = txn.Validate(); !bad.ok()) {
    if (on_commit) on_commit(bad);
    return;
  }
  Impl::Pending pending;
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
    Impl::Pending p;
    p.txn = std::move(txn);
    p.done = std::move(on_commit);
    pending = std::move(p);
  }
  // The records' crcs on this thread, outside the lock (the commit thread then only writes).
  pending.crcs = ComputeWriteCrcs(pending.txn, impl_->options.max_record_payload);
  {
    MutexUniqueLock lock(&impl_->mu);
    if (impl_->stopping || impl_->closed) {
      lock.Unlock();
      if (pending.done) pending.done(Status::Busy("store is unmounting"));
      return;
    }
    impl_->queue.push_back(std::move(pending));
  }
  impl_->cv.NotifyOne();
}

Status Store::Apply(Transaction txn) {
  std::promise<Status> done;
  auto f = done.get_future();
  Submit(std::move(txn), [&done](const Status& s) { done.set_value(s); });
  return f.get();
}

uint64_t Store::Impl::SpaceNeeded(const Transaction& txn) const {
  // Payload plus a record header per started record (and some slack per op).
  const uint64_t b = txn.data_bytes();
  return b + (b / options.max_record_payload + txn.ops().size()) * 4096;
}

void Store::Impl::CommitLoop() {
  for (;;) {
    std::vector<Pending> group;
    bool queued_more = false;
    uint64_t ride = 0;  // live bytes of GC relocation this group carries (RideGcSlice)
    {
      MutexUniqueLock lock(&mu);
      if (hybrid_manager->converting() || hybrid_manager->RequestQueued()) {
        // A hybrid conversion goes on while idle (store/hybrid_manager.h): one quantum per
        // wakeup.
        if (!stopping && queue.empty()) {
          cv.WaitFor(&lock, std::chrono::milliseconds(hybrid_manager->converting() ? 5 : 0));
        }
        if (queue.empty() && !stopping) {
          lock.Unlock();
          hybrid_manager->MaybeConvert(/*queued=*/false);
          continue;
        }
      } else {
        while (!stopping && queue.empty() && !hybrid_manager->RequestQueued()) cv.Wait(&lock);
        if (queue.empty() && !stopping) continue;  // a conversion request: handled above
      }
      if (queue.empty() && stopping) {
        lock.Unlock();
        // An activation waited for, a drain dropped, the requests answered (kBusy).
        hybrid_manager->StopForUnmount();
        return;
      }
      // A GC request runs alone, in queue order.
      if (queue.front().gc_done) {
        Pending req = std::move(queue.front());
        queue.pop_front();
        lock.Unlock();
        GcReport total;
        Status st;
        for (uint32_t i = 0; i < req.gc_zones; ++i) {
          MutexUniqueLock glock(&group_mu);
          auto r = GcOne();
          glock.Unlock();
          if (!r.ok()) {
            if (!r.status().IsNotFound()) st = r.status();
            break;
          }
          total.zones_cleaned += r->zones_cleaned;
          total.live_moved += r->live_moved;
          total.bytes_written += r->bytes_written;
          total.bytes_freed += r->bytes_freed;
          // Relocations rewrite onodes, which the metadata journal records: a long run of
          // victims takes checkpoints as commit groups do, or the journal's zones fill the
          // drives (found by the option-space run: 107 of 154 zones journal after a
          // `RunGc` of hundreds of victims). Only for the journal's size: the zones GC
          // pins are unpinned by the commit loop's checkpoints as before.
          MaybeCheckpoint(/*for_pins=*/false);
        }
        if (st.ok()) {
          req.gc_done(total);
        } else {
          req.gc_done(st);
        }
        continue;
      }
      // When space is tight (GC on), a group takes only the transactions that fit in what
      // users can still write, so foreground commits advance in small steps between GC
      // slices instead of waiting for whole zones to be cleaned.
      const uint64_t room = gc_auto ? zones->user_free_bytes(MaxRecordBytes()) : UINT64_MAX;
      uint64_t need = 0;
      while (!queue.empty() && group.size() < options.max_group && !queue.front().gc_done) {
        const uint64_t n = SpaceNeeded(queue.front().txn);
        if (!group.empty() && need + n > room) break;
        need += n;
        group.push_back(std::move(queue.front()));
        queue.pop_front();
      }
      queued_more = !queue.empty();
      lock.Unlock();
      if (options.gc_in_groups) {
        ride = RideGcSlice();
      } else {
        MaybeGc(/*queued=*/true);
      }
      if (gc_auto || options.hybrid_auto) {
        if (space_short) CleanForSpace();
        space_short = false;
        EnsureSpace(need);
      }
    }
    CommitGroup(&group, ride);
    MaybeCheckpoint();
    hybrid_manager->MaybeConvert(queued_more);
    hybrid_manager->MaybeEvict(queued_more);
    if (!queued_more) MaybeGc(/*queued=*/false);
  }
}

void Store::Impl::CommitGroup(std::vector<Pending>* group, uint64_t ride_live) {
  MutexUniqueLock group_lock(&group_mu);
  if (FailGroupIfStopped(group)) return;
  // A write error on a zone the drive now reports offline or read-only costs that zone
  // only: nothing of the group was committed, so its allocations are rolled back, the zone
  // is retired (ZoneManager::RefreshConditions) and the group is planned again on other
  // zones. Any other write error, or no zone left to write, stops writes: the store turns
  // read-only (reads go on) and every later transaction fails with the reason.
  constexpr int kMaxFaultRetries = 4;
  std::vector<Status> results(group->size());
  std::unique_ptr<GroupWrites> writes;
  Status s;
  std::optional<GcSlicePlan> ride;  // the GC slice this group carries
  for (int attempt = 0;; ++attempt) {
    const ZoneManager::AllocationMark mark = zones->MarkAllocations();
    auto batch = meta->NewBatch();
    writes = std::make_unique<GroupWrites>();
    ride.reset();
    s = Status::OK();
    size_t ok_count = 0;
    const size_t defer_from =
        PlanGroupTxns(group, batch.get(), writes.get(), &results, &ok_count);
    if (defer_from < group->size()) {
      MutexLock lock(&mu);
      for (size_t i = group->size(); i-- > defer_from;) queue.push_front(std::move((*group)[i]));
      group->resize(defer_from);
      results.resize(defer_from);
    }
    if (group->empty()) {
      // Every transaction went back to the queue: nothing to write; what the planning
      // allocated is given back.
      s = zones->RollBack(mark);
      if (!s.ok()) {
        s = Status::ReadOnly("store is read-only: rolling back an empty group failed (" +
                             s.ToString() + ")");
        Log(LogLevel::kError, "%s", s.ToString().c_str());
        MutexLock lock(&mu);
        fatal = s;
      }
      return;
    }
    if (ride_live > 0 && gc_cursor) {
      PlanRiddenSlice(ride_live, batch.get(), writes.get(), &ride, &s);
    }
    if (s.ok()) s = WriteAndCommit(writes.get(), batch.get(), ok_count, /*recoverable_writes=*/true);
    if (s.ok()) break;
    {
      MutexUniqueLock lock(&mu);
      if (!fatal.ok()) break;  // the metadata commit failed: WriteAndCommit stopped writes
    }
    // The zones' writes failed; nothing was committed.
    if (RetryGroupElsewhere(mark, attempt < kMaxFaultRetries, &s)) continue;
    break;
  }
  if (s.ok()) UpdateDeathRates(*writes);
  if (ride && s.ok()) CountSliceMoves(*ride);
  {
    MutexLock lock(&counters_mu);
    for (const Status& r : results) {
      if (r.ok() && s.ok()) {
        counters.txns_committed++;
      } else {
        counters.txns_failed++;
      }
    }
  }
  group_lock.Unlock();
  for (size_t i = 0; i < group->size(); ++i) {
    const Status& r = !s.ok() ? s : results[i];
    if ((*group)[i].done) (*group)[i].done(r);
  }
  // The ridden slice's moves are durable: advance its cursor, and at the victim's end reset
  // it (after the read fence) — after the group's callbacks, which need not wait for it.
  if (ride && s.ok() && gc_cursor) {
    MutexLock glock(&group_mu);
    bool zone_done = false;
    auto r = GcFinishSlice(&gc_cursor, std::move(*ride), &zone_done);
    if (!r.ok()) {
      Log(LogLevel::kError, "background GC: %s", r.status().ToString().c_str());
      gc_cursor.reset();
    }
  }
}

bool Store::Impl::FailGroupIfStopped(std::vector<Pending>* group) {
  Status fatal_now;
  {
    MutexUniqueLock lock(&mu);
    fatal_now = fatal;
  }
  if (!fatal_now.ok()) {
    for (auto& p : *group) {
      if (p.done) p.done(fatal_now.WithContext("store stopped taking writes earlier"));
    }
    return true;
  }
  return false;
}

size_t Store::Impl::PlanGroupTxns(std::vector<Pending>* group, MetaStore::Batch* batch,
                                  GroupWrites* writes, std::vector<Status>* results_out,
                                  size_t* ok_count) {
  std::vector<Status>& results = *results_out;
  // The group's journal record must fit in one zone (JournalOpsLimit): a transaction
  // that would take it past ends the group (it and the ones after it go back to the
  // queue's front, for the next group); one that passes it alone fails.
  const uint64_t journal_limit = options.journal ? JournalOpsLimit() : UINT64_MAX;
  size_t defer_from = group->size();
  for (size_t i = 0; i < group->size(); ++i) {
    batch->SetSavePoint();
    const uint64_t user_before = writes->user_bytes, inline_before = writes->inline_bytes;
    const int64_t inline_delta_before = writes->inline_delta;
    const size_t journal_before = batch->journal().size();
    // What a planned transaction adds besides the batch, taken back if it is deferred.
    const auto live_before = writes->live_delta;
    const size_t deaths_before = writes->death_ages_ns.size();
    const size_t name_deaths_before = writes->name_deaths.size();
    Status r = PlanTransaction(PlanContextNow(), (*group)[i].txn, ++seq, batch, writes,
                               &(*group)[i].crcs);
    if (r.ok() && JournalOpsBytes(batch->journal(), /*last_write_only=*/false) > journal_limit) {
      const uint64_t bytes = JournalOpsBytes(batch->journal(), /*last_write_only=*/true);
      if (bytes > journal_limit) {
        if (journal_before > 0) {
          defer_from = i;
        } else {
          r = Status::InvalidArgument(
              "transaction's metadata changes take " + std::to_string(bytes) +
              " bytes in the metadata journal; one commit's may take at most " +
              std::to_string(journal_limit) + " (a journal record fits in one zone)");
        }
      }
    }
    if (r.IsNoSpace() && (gc_auto || options.hybrid_auto) &&
        (*group)[i].space_retries < kSpaceRetries) {
      // No zone for one of its records: back to the queue, after a whole zone is cleaned
      // (CommitLoop, CleanForSpace); the transactions before it commit now.
      ++(*group)[i].space_retries;
      space_short = true;
      defer_from = i;
    }
    if (!r.ok() || defer_from == i) {
      Status rb = batch->RollbackToSavePoint();
      if (!rb.ok()) r = rb;
      writes->user_bytes = user_before;
      writes->inline_bytes = inline_before;
      writes->inline_delta = inline_delta_before;  // (live deltas are added only on success)
      if (defer_from == i) {
        // Planned, then deferred: its records stay in the group's zone buffers as dead
        // bytes (as a failed transaction's), its accounting is taken back.
        writes->live_delta = live_before;
        writes->death_ages_ns.resize(deaths_before);
        writes->name_deaths.resize(name_deaths_before);
      }
    } else {
      (void)batch->PopSavePoint();
      ++*ok_count;
    }
    if (defer_from == i) break;
    results[i] = r;
  }
  return defer_from;
}

void Store::Impl::PlanRiddenSlice(uint64_t ride_live, MetaStore::Batch* batch,
                                  GroupWrites* writes, std::optional<GcSlicePlan>* ride,
                                  Status* s) {
  // The GC slice this group carries, planned after its transactions (they get their
  // space first; the slice reads their changes through the batch). A slice that fails
  // costs the group nothing: what it placed stays as dead bytes, its live-byte deltas
  // are taken back, and its victim is quarantined, as GcSlice does.
  const uint64_t t0 = NowNanos();
  const auto live_delta = writes->live_delta;
  const auto gc_live_delta = writes->gc_live_delta;
  const uint64_t gc_bytes = writes->gc_bytes;
  batch->SetSavePoint();
  auto plan = GcPlanSlice(&gc_cursor, ride_live, batch, writes, std::nullopt,
                          std::nullopt, /*split_records=*/false);
  if (plan.ok()) {
    (void)batch->PopSavePoint();
    *ride = std::move(*plan);
  } else {
    Status rb = batch->RollbackToSavePoint();
    writes->live_delta = live_delta;
    writes->gc_live_delta = gc_live_delta;
    writes->gc_bytes = gc_bytes;
    if (!rb.ok()) *s = rb;
    const ZoneAddress victim = gc_cursor->victim.addr;
    gc_cursor.reset();
    Quarantine(victim, plan.status());
  }
  MutexLock lock(&counters_mu);
  counters.gc_throttle_ns += NowNanos() - t0;
}

bool Store::Impl::RetryGroupElsewhere(const ZoneManager::AllocationMark& mark,
                                      bool may_retry, Status* s_io) {
  Status& s = *s_io;
  Status why = zones->RollBack(mark);
  std::vector<ZoneAddress> retired;
  if (why.ok()) {
    auto r = zones->RefreshConditions();
    if (r.ok()) {
      retired = std::move(*r);
    } else {
      why = r.status();
    }
  }
  if (why.ok() && !retired.empty() && may_retry) {
    std::string names;
    for (size_t i = 0; i < retired.size() && i < 8; ++i) {
      names += (i == 0 ? "" : ", ") + std::string("drive ") +
               std::to_string(retired[i].drive) + " zone " + std::to_string(retired[i].zone);
    }
    if (retired.size() > 8) names += " and " + std::to_string(retired.size() - 8) + " more";
    Log(LogLevel::kWarning, "%s reported offline or read-only; retired, the commit group "
                 "is written elsewhere (%s)",
                 names.c_str(), s.ToString().c_str());
    MutexLock lock(&counters_mu);
    counters.zones_retired += retired.size();
    return true;
  }
  s = Status::ReadOnly("store is read-only after a write error it cannot route around (" +
                       s.ToString() + (why.ok() ? "" : "; then: " + why.ToString()) +
                       "); reads still work; remount after fixing the drive");
  Log(LogLevel::kError, "%s", s.ToString().c_str());
  MutexUniqueLock lock(&mu);
  fatal = s;
  return false;
}

uint64_t Store::Impl::RideGcSlice() {
  if (!gc_auto) return 0;
  {
    MutexLock lock(&mu);
    if (!fatal.ok()) return 0;
  }
  const double free = GcFree();
  if (!gc_pacer.StartRound(free, gc_cursor.has_value(), /*queued=*/true)) return 0;
  // Under the urgent watermark a paced round is two slices; here it is one of twice the
  // size.
  const uint64_t live = gc_pacer.Urgent(free) ? 2 * kGcSliceBytes : kGcSliceBytes;
  (void)gc_pacer.NextSlice(free, true, false);
  if (!gc_cursor) {
    MutexLock glock(&group_mu);
    auto victim = PickVictim();
    if (!victim.ok()) return 0;  // nothing to clean
    gc_cursor = GcCursor{*victim, victim->start, nullptr, nullptr, false};
  }
  return live;
}

void Store::Impl::TakeDeferredSeals(std::vector<SealWrite>* seals) {
  for (SealWrite& sw : deferred_seals) {
    if (zones->StateOf(sw.drive, sw.zone) == ZoneState::kSealed) seals->push_back(std::move(sw));
  }
  deferred_seals.clear();
}

PlanContext Store::Impl::PlanContextNow() {
  PlanContext c;
  c.meta = meta.get();
  c.options = &options;
  c.zones = zones.get();
  c.nid_max = &nid_max;
  c.cid_max = &cid_max;
  c.lifetime_history = &lifetime_history;
  c.mean_lifetime_ns = mean_lifetime_ns;
  c.read_extent = [this](const Extent& e, uint64_t from, uint64_t len, char* dst,
                         const GroupWrites* pending) {
    return ReadExtent(e, from, len, dst, pending);
  };
  c.zone_size = [this](uint16_t drive) { return ZoneSize(drive); };
  return c;
}

Status Store::Impl::WriteAndCommit(GroupWrites* w, MetaStore::Batch* batch, uint64_t ok_txns,
                                   bool recoverable_writes) {
  const uint64_t nid_before = meta_nid_max, cid_before = meta_cid_max;
  // Seals a drain made between groups go with this one.
  const size_t own_seals = w->seals.size();
  TakeDeferredSeals(&w->seals);
  // The metadata journal record goes with the group's records, before the batch commits.
  Status s = JournalBatch(batch, w);
  if (s.ok()) s = WriteGroup(w);
  uint64_t device_bytes = 0;
  for (const auto& [addr, buf] : w->zones) device_bytes += buf.length;
  for (const SealWrite& sw : w->seals) device_bytes += sw.bytes.size();
  if (!s.ok() && recoverable_writes) {  // nothing committed; the caller rolls back
    // The drain's seals wait for the next group again (the caller drops `w`).
    deferred_seals.assign(std::make_move_iterator(w->seals.begin() + own_seals),
                          std::make_move_iterator(w->seals.end()));
    w->seals.resize(own_seals);
    JournalCommitted(false);
    return s;
  }
  if (s.ok()) {
    for (const auto& [addr, delta] : w->live_delta) zones->AddLive(addr.drive, addr.zone, delta);
    for (const auto& [addr, buf] : w->zones) {
      zones->MarkCommitted(addr.drive, addr.zone,
                           buf.offset + buf.length - uint64_t{addr.zone} * ZoneSize(addr.drive));
    }
    for (const SealWrite& sw : w->seals) {
      if (!sw.bytes.empty()) {
        zones->MarkCommitted(sw.drive, sw.zone,
                             sw.offset + sw.bytes.size() - uint64_t{sw.zone} * ZoneSize(sw.drive));
      }
    }
    for (const auto& [addr, zm] : zones->TakeDirtyZones()) {
      batch->PutZone(addr.drive, addr.zone, zm);
    }
    batch->PutCounter(kCounterSeq, seq);
    {
      MutexLock lock(&counters_mu);
      batch->PutCounter(kCounterUserBytes, counters.lifetime_user_bytes + w->user_bytes);
      batch->PutCounter(kCounterDeviceBytes, counters.lifetime_device_bytes + device_bytes);
      batch->PutCounter(kCounterTxns, counters.lifetime_txns + ok_txns);
      batch->PutCounter(kCounterGcBytes, lifetime_gc_bytes + w->gc_bytes);
      batch->PutCounter(kCounterInlineStored,
                        static_cast<uint64_t>(static_cast<int64_t>(inline_stored) +
                                              w->inline_delta));
    }
    if (nid_max != nid_before) batch->PutCounter(kCounterNid, nid_max);
    if (cid_max != cid_before) batch->PutCounter(kCounterCid, cid_max);
    s = meta->Commit(batch, /*sync=*/true);
  }
  if (!s.ok()) {
    Log(LogLevel::kError, "commit group failed, store stops taking writes: %s",
                 s.ToString().c_str());
    MutexUniqueLock lock(&mu);
    fatal = s;
  } else {
    meta_nid_max = nid_max;
    meta_cid_max = cid_max;
    // Where a drive's head is after this group (the zone it wrote last): the next group
    // without data puts its journal record there.
    if (auto z = LastDataZone(*w, *zones)) last_group_zone = z;
  }
  JournalCommitted(s.ok());
  MutexLock lock(&counters_mu);
  counters.device_bytes_written += device_bytes;
  if (s.ok()) {
    counters.groups_committed++;
    counters.user_bytes_written += w->user_bytes;
    counters.inline_bytes_written += w->inline_bytes;
    counters.pack_records += w->pack_records;
    counters.pack_entries += w->pack_entries;
    counters.pack_payload_bytes += w->pack_payload_bytes;
    counters.pack_record_bytes += w->pack_record_bytes;
    counters.lifetime_user_bytes += w->user_bytes;
    counters.lifetime_txns += ok_txns;
    counters.lifetime_device_bytes += device_bytes;
    counters.gc_bytes_written += w->gc_bytes;
    lifetime_gc_bytes += w->gc_bytes;
    counters.lifetime_gc_bytes = lifetime_gc_bytes;
    inline_stored =
        static_cast<uint64_t>(static_cast<int64_t>(inline_stored) + w->inline_delta);
  }
  return s;
}

void GroupWrites::AppendRecordPieces(const RecordHeader& h, std::string_view payload,
                                     ZoneBuffer* buf) {
  auto header = std::make_unique<std::string>(kBlock, '\0');
  RecordHeader hh = h;
  hh.payload_len = static_cast<uint32_t>(payload.size());
  EncodeRecordHeader(hh, header->data());
  buf->pieces.push_back(*header);
  buf->owned.push_back(std::move(header));
  const size_t whole = payload.size() / kBlock * kBlock;
  if (whole > 0) buf->pieces.push_back(payload.substr(0, whole));
  if (whole < payload.size()) {
    auto tail = std::make_unique<std::string>(kBlock, '\0');
    std::memcpy(tail->data(), payload.data() + whole, payload.size() - whole);
    buf->pieces.push_back(*tail);
    buf->owned.push_back(std::move(tail));
  }
  buf->length += RecordBytes(payload.size());
}

Status Store::Impl::WriteGroup(GroupWrites* w) {
  w->CloseAllPacks();
  // One device write per zone at its write pointer (ZonedDevice::WriteV), a sealed zone's
  // footer in the same write as the zone's last records; a footer of a zone this group did
  // not write to (its records are all older) goes first, where the head most likely still
  // is. A rotational drive gets its writes one after the other in the order the group
  // created its zone buffers (the journal record is in the last: LastDataZone), so the
  // head moves once per zone; other drives get them all at once. Then the zones sealed are
  // finished and each drive touched is flushed once.
  struct ZoneWrite {
    uint16_t drive = 0;
    uint64_t offset = 0;
    std::vector<std::string_view> pieces;
  };
  std::vector<std::vector<ZoneWrite>> per_drive(devices.size());
  std::vector<bool> touched(devices.size(), false);
  std::vector<const SealWrite*> later;  // footers that fit neither way (not expected)
  uint64_t writes = 0, buffers = 0;
  std::map<ZoneAddress, const SealWrite*> footer_of;
  for (const SealWrite& s : w->seals) {
    touched[s.drive] = true;
    if (s.bytes.empty()) continue;
    auto z = w->zones.find({s.drive, s.zone});
    if (z == w->zones.end()) {
      per_drive[s.drive].push_back({s.drive, s.offset, {s.bytes}});
    } else if (z->second.offset + z->second.length == s.offset) {
      footer_of[z->first] = &s;
    } else {
      later.push_back(&s);
    }
  }
  std::vector<const GroupWrites::ZoneBuffer*> in_order;
  for (const auto& [addr, buf] : w->zones) in_order.push_back(&buf);
  std::sort(in_order.begin(), in_order.end(),
            [](const auto* a, const auto* b) { return a->order < b->order; });
  for (const GroupWrites::ZoneBuffer* buf : in_order) {
    touched[buf->drive] = true;
    ZoneWrite zw{buf->drive, buf->offset, buf->pieces};
    auto f = footer_of.find({buf->drive, buf->zone});
    if (f != footer_of.end()) zw.pieces.push_back(f->second->bytes);
    per_drive[buf->drive].push_back(std::move(zw));
  }
  std::vector<std::future<Status>> futures;
  auto issue = [&](std::vector<ZoneWrite>* chain) {
    auto task = std::make_shared<std::packaged_task<Status()>>([this, chain] {
      for (const ZoneWrite& zw : *chain) {
        SMR_RETURN_IF_ERROR(devices[zw.drive]->WriteV(zw.offset, zw.pieces));
      }
      return Status::OK();
    });
    futures.push_back(task->get_future());
    boost::asio::post(*io_pool, [task] { (*task)(); });
  };
  std::vector<std::vector<ZoneWrite>> singles;
  for (size_t d = 0; d < devices.size(); ++d) {
    writes += per_drive[d].size();
    for (const ZoneWrite& zw : per_drive[d]) buffers += zw.pieces.size();
  }
  if (std::any_of(devices.begin(), devices.end(),
                  [](const auto& dev) { return !dev->info().rotational; })) {
    size_t n = 0;
    for (size_t d = 0; d < devices.size(); ++d) {
      if (!devices[d]->info().rotational) n += per_drive[d].size();
    }
    singles.reserve(n);  // the tasks point into it
  }
  for (size_t d = 0; d < devices.size(); ++d) {
    if (per_drive[d].empty()) continue;
    if (devices[d]->info().rotational) {
      issue(&per_drive[d]);
    } else {
      for (ZoneWrite& zw : per_drive[d]) {
        singles.push_back({std::move(zw)});
        issue(&singles.back());
      }
    }
  }
  Status first;
  for (auto& f : futures) {
    Status s = f.get();
    if (first.ok() && !s.ok()) first = s;
  }
  SMR_RETURN_IF_ERROR(first);
  for (const SealWrite* s : later) {
    SMR_RETURN_IF_ERROR(devices[s->drive]->Write(s->offset, s->bytes.data(), s->bytes.size()));
    ++writes;
    ++buffers;
  }
  {
    MutexLock lock(&counters_mu);
    counters.device_writes += writes;
    counters.device_write_buffers += buffers;
  }
  for (const SealWrite& s : w->seals) SMR_RETURN_IF_ERROR(zones->FinishZone(s.drive, s.zone));
  for (size_t d = 0; d < devices.size(); ++d) {
    if (touched[d]) SMR_RETURN_IF_ERROR(devices[d]->Flush());
  }
  return Status::OK();
}

}  // namespace smr
