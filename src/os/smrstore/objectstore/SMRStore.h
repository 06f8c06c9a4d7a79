// SMRStore: Ceph's ObjectStore interface (Pacific, 16.2) on the smrstore engine.
//
// Contract
//   The only code in smrstore that includes Ceph headers. It compiles unchanged inside a
//   Ceph 16.2 tree (src/os/smrstore/, see doc/ceph-integration.md) and standalone against
//   objectstore/ceph_compat/ plus Debian's libceph-common.so.2 (real bufferlist, ghobject_t,
//   coll_t, CephContext, PerfCounters, AdminSocket).
//   Public members are exactly Pacific's ObjectStore overrides, with MemStore's signatures
//   (checked against Debian's ceph-osd symbol table by qa/ceph/check-overrides.sh).
//   - The store lives in PATH/smrstore (engine directory: RocksDB metadata on flash, drives
//     named by device specs). mkfs takes the drives from the meta key `smrstore_devices`
//     (PATH/smrstore_devices: device specs separated by spaces or commas).
//   - queue_transactions translates the transactions of one call into ONE engine
//     transaction (all-or-nothing, ops in order) and returns at once. The engine commits
//     data records, then metadata; then this adapter releases readers, runs on_applied_sync,
//     and hands on_applied + on_commit to the collection's commit queue (if the OSD set one)
//     or to the adapter's finisher thread. Callbacks of one collection run in queue order.
//   - Read-after-queue: a read (or listing) that names an object (collection) with queued,
//     uncommitted transactions waits until they commit, so callers see their own writes as
//     they do with BlueStore.
//   - Errors are Ceph's: negative errno (-ENOENT object or collection, -ENODATA attribute,
//     -EIO checksum mismatch, -ENOSPC, ...). The engine tolerates the missing objects and
//     attributes BlueStore tolerates (store/transaction.h). A transaction it still refuses
//     or cannot commit changes nothing and, by default, aborts the process after logging
//     the reason to the OSD log, as BlueStore does (Ceph ignores the result passed to
//     commit callbacks); with on_transaction_error = report (PATH/smrstore.conf,
//     smrstore_settings.h) the callbacks get the negative errno instead.
//   - Settings: PATH/smrstore.conf (smrstore_settings.h); errors go to the OSD's own log
//     (ceph_log.h).
//   - queue_transactions waits (throttle_bytes of uncommitted data at most), resetting the
//     caller's heartbeat (TPHandle) while it waits.
//   - Registers perf counters (`smrstore`, `smrstore-drive.<i>`) and admin-socket commands
//     (`smrstore stats`, `smrstore zones`, `smrstore gc start|stop|run`) at mount when it
//     has a CephContext, removes them at umount.
// Thread safety: as ObjectStore — every method may be called from any thread.
#pragma once

#include <memory>
#include <string>

#include "os/ObjectStore.h"

class SMRStore : public ObjectStore {
 public:
  SMRStore(CephContext* cct, const std::string& path);
  ~SMRStore() override;

  std::string get_type() override;
  bool test_mount_in_use() override;
  int mount() override;
  int umount() override;
  int fsck(bool deep) override;
  int mkfs() override;
  int mkjournal() override;
  bool needs_journal() override;
  bool wants_journal() override;
  bool allows_journal() override;
  void set_fsid(uuid_d u) override;
  uuid_d get_fsid() override;
  int get_devices(std::set<std::string>* ls) override;
  // `ceph osd metadata`: the drives, the engine's version, GC policy, error policy.
  void collect_metadata(std::map<std::string, std::string>* pm) override;
  // smrstore.conf's device_class (default hdd): CRUSH rules by class.
  std::string get_default_device_class() override;

  int statfs(store_statfs_t* buf, osd_alert_list_t* alerts = nullptr) override;
  int pool_statfs(uint64_t pool_id, store_statfs_t* buf, bool* per_pool_omap) override;
  objectstore_perf_stat_t get_cur_stats() override;
  const PerfCounters* get_perf_counters() const override;
  unsigned get_max_attr_name_length() override;
  uint64_t estimate_objects_overhead(uint64_t num_objects) override;
  int validate_hobject_key(const hobject_t& obj) const override;

  int queue_transactions(CollectionHandle& ch, std::vector<Transaction>& tls,
                         TrackedOpRef op = TrackedOpRef(),
                         ThreadPool::TPHandle* handle = nullptr) override;

  CollectionHandle open_collection(const coll_t& cid) override;
  CollectionHandle create_new_collection(const coll_t& cid) override;
  void set_collection_commit_queue(const coll_t& cid, ContextQueue* commit_queue) override;
  int set_collection_opts(CollectionHandle& c, const pool_opts_t& opts) override;
  int list_collections(std::vector<coll_t>& ls) override;
  bool collection_exists(const coll_t& c) override;
  int collection_empty(CollectionHandle& c, bool* empty) override;
  int collection_bits(CollectionHandle& c) override;
  int collection_list(CollectionHandle& c, const ghobject_t& start, const ghobject_t& end,
                      int max, std::vector<ghobject_t>* ls, ghobject_t* next) override;

  bool exists(CollectionHandle& c, const ghobject_t& oid) override;
  int stat(CollectionHandle& c, const ghobject_t& oid, struct stat* st,
           bool allow_eio = false) override;
  int read(CollectionHandle& c, const ghobject_t& oid, uint64_t offset, size_t len,
           ceph::buffer::list& bl, uint32_t op_flags = 0) override;
  int fiemap(CollectionHandle& c, const ghobject_t& oid, uint64_t offset, size_t len,
             ceph::buffer::list& bl) override;
  int fiemap(CollectionHandle& c, const ghobject_t& oid, uint64_t offset, size_t len,
             std::map<uint64_t, uint64_t>& destmap) override;
  int getattr(CollectionHandle& c, const ghobject_t& oid, const char* name,
              ceph::buffer::ptr& value) override;
  int getattrs(CollectionHandle& c, const ghobject_t& oid,
               std::map<std::string, ceph::buffer::ptr>& aset) override;

  int omap_get(CollectionHandle& c, const ghobject_t& oid, ceph::buffer::list* header,
               std::map<std::string, ceph::buffer::list>* out) override;
  int omap_get_header(CollectionHandle& c, const ghobject_t& oid, ceph::buffer::list* header,
                      bool allow_eio = false) override;
  int omap_get_keys(CollectionHandle& c, const ghobject_t& oid,
                    std::set<std::string>* keys) override;
  int omap_get_values(CollectionHandle& c, const ghobject_t& oid,
                      const std::set<std::string>& keys,
                      std::map<std::string, ceph::buffer::list>* out) override;
  int omap_check_keys(CollectionHandle& c, const ghobject_t& oid,
                      const std::set<std::string>& keys, std::set<std::string>* out) override;
  ObjectMap::ObjectMapIterator get_omap_iterator(CollectionHandle& c,
                                                 const ghobject_t& oid) override;

  // Everything else (the engine, pending-transaction tracking, the finisher, perf counters
  // and admin-socket hooks) is in objectstore/SMRStore.cc, Impl itself in
  // objectstore/smrstore_internal.h; tests reach the engine through
  // objectstore/testing/smrstore_introspect.h.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  friend struct SMRStoreIntrospect;
};
