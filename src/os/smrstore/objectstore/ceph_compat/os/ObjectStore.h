// ceph_compat: os/ObjectStore.h — Ceph Pacific's ObjectStore interface, declared for
// smrstore from the exact signatures Debian's ceph-osd 16.2.15 exports (qa/ceph/
// pacific-memstore-symbols.txt, `nm -DC /usr/bin/ceph-osd`). The base-class code of libos
// (ObjectStore::create, probe_block_device_fsid) is not shipped by Debian and not needed
// standalone; read_meta / write_meta are written here (one file per key in the store path).
//
// ABI: the virtual methods are declared in Pacific's order, so the vtable is Pacific's slot
// for slot (76 slots, read from ceph-osd's own _ZTV8MemStore relocations; checked by
// qa/ceph/abi/check-abi.sh, which also compares member offsets with ceph-osd-dbg: `path` at
// 8, `cct` at 40, sizeof 48). Do not reorder, add or remove a virtual method here.
//
// Contract (Pacific's): a store is created with a CephContext and a path; mkfs then mount;
// collections are opened as CollectionHandles; queue_transactions applies transactions in
// order per collection and runs their on_commit callbacks once durable; reads see the
// effects of every transaction queued before them on the same collection.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>
#include <iosfwd>

#include "common/Finisher.h"
#include "common/Formatter.h"
#include "common/RefCountedObj.h"
#include "common/TrackedOp.h"
#include "common/WorkQueue.h"
#include "common/ceph_context.h"
#include "common/perf_counters.h"
#include "include/Context.h"
#include "include/buffer.h"
#include "include/uuid.h"
#include "os/ObjectMap.h"
#include "os/Transaction.h"
#include "osd/osd_types.h"

using osflagbits_t = uint32_t;

// Pacific's interval_set (include/interval_set.h), as far as ObjectStore::readv needs it:
// the layout (`_size`, then the offset -> length map `m`) and iteration over extents.
template <typename T, template <typename, typename, typename...> class C = std::map>
class interval_set {
 public:
  using Map = C<T, T>;
  typename Map::const_iterator begin() const { return m.begin(); }
  typename Map::const_iterator end() const { return m.end(); }
  int64_t size() const { return _size; }
  bool empty() const { return m.empty(); }
  void insert(T start, T len) {  // disjoint, non-adjacent extents only (tests)
    m[start] = len;
    _size += static_cast<int64_t>(len);
  }

 private:
  int64_t _size = 0;
  Map m;
};

class ObjectStore {
 protected:
  std::string path;

 public:
  CephContext* cct;

  using Transaction = ceph::os::Transaction;

  // A collection as the store hands it out; ref-counted (Ceph's RefCountedObject).
  // ABI: RefCountedObject (vptr, nref 8, cct 16) then `cid` at 24, sizeof 112; vtable
  // 0-1 destructor, 2 flush, 3 flush_commit (ceph-osd's MemStore::Collection).
  struct CollectionImpl : public RefCountedObject {
    const coll_t cid;
    CollectionImpl(CephContext* cct, const coll_t& c) : RefCountedObject(cct), cid(c) {}
    // Waits until every transaction queued on this collection is readable.
    virtual void flush() = 0;
    // true when nothing is pending (c is not used); otherwise c runs once everything
    // queued so far has committed, and false is returned.
    virtual bool flush_commit(Context* c) = 0;
    const coll_t& get_cid() { return cid; }
  };
  using CollectionHandle = boost::intrusive_ptr<CollectionImpl>;

  ObjectStore(CephContext* cct, const std::string& path_) : path(path_), cct(cct) {}
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // ---- slots 0-2 ----
  virtual objectstore_perf_stat_t get_cur_stats() = 0;
  virtual const PerfCounters* get_perf_counters() const = 0;
  virtual int queue_transactions(CollectionHandle& ch, std::vector<Transaction>& tls,
                                 TrackedOpRef op = TrackedOpRef(),
                                 ThreadPool::TPHandle* handle = nullptr) = 0;
  int queue_transaction(CollectionHandle& ch, Transaction&& t, TrackedOpRef op = TrackedOpRef(),
                        ThreadPool::TPHandle* handle = nullptr) {
    std::vector<Transaction> tls;
    tls.push_back(std::move(t));
    return queue_transactions(ch, tls, op, handle);
  }
  // ---- slots 3-4 ----
  virtual ~ObjectStore() {}

  // ---- slots 5-11: maintenance and introspection ----
  virtual int upgrade() { return 0; }
  virtual void get_db_statistics(ceph::Formatter* f) {}
  virtual void generate_db_histogram(ceph::Formatter* f) {}
  virtual int flush_cache(std::ostream* os = nullptr) { return -1; }
  virtual void dump_perf_counters(ceph::Formatter* f) {}
  virtual void dump_cache_stats(ceph::Formatter* f) {}
  virtual void dump_cache_stats(std::ostream& os) {}

  // ---- slots 12-34: lifecycle, identity, devices ----
  virtual std::string get_type() = 0;
  virtual bool test_mount_in_use() = 0;
  virtual int mount() = 0;
  virtual int umount() = 0;
  virtual int fsck(bool deep) { return -EOPNOTSUPP; }
  virtual int repair(bool deep) { return -EOPNOTSUPP; }
  virtual int quick_fix() { return -EOPNOTSUPP; }
  virtual void set_cache_shards(unsigned num) {}
  virtual int validate_hobject_key(const hobject_t& obj) const = 0;
  virtual unsigned get_max_attr_name_length() = 0;
  virtual int mkfs() = 0;
  virtual int mkjournal() = 0;
  virtual bool needs_journal() = 0;
  virtual bool wants_journal() = 0;
  virtual bool allows_journal() = 0;
  virtual uint64_t get_min_alloc_size() const { return 0; }
  virtual int get_devices(std::set<std::string>* devls) { return -EOPNOTSUPP; }
  virtual bool is_sync_onreadable() const { return true; }
  virtual bool is_rotational() { return true; }
  virtual bool is_journal_rotational() { return true; }
  virtual std::string get_default_device_class() { return is_rotational() ? "hdd" : "ssd"; }
  virtual int get_numa_node(int* numa_node, std::set<int>* nodes,
                            std::set<std::string>* failed) {
    return -EOPNOTSUPP;
  }
  virtual bool can_sort_nibblewise() { return false; }

  // ---- slots 35-40: space, metadata ----
  virtual int statfs(store_statfs_t* buf, osd_alert_list_t* alerts = nullptr) = 0;
  virtual int pool_statfs(uint64_t pool_id, store_statfs_t* buf, bool* per_pool_omap) = 0;
  virtual void collect_metadata(std::map<std::string, std::string>* pm) {}
  // Small metadata files in the store path (the OSD's "type", "fsid", "whoami"...): a file
  // named after the key holding the value and a newline (ObjectStore.cc).
  virtual int write_meta(const std::string& key, const std::string& value);
  virtual int read_meta(const std::string& key, std::string* value);
  virtual int get_ideal_list_max() { return 64; }

  // ---- slots 41-51: collections, objects ----
  virtual CollectionHandle open_collection(const coll_t& cid) = 0;
  virtual CollectionHandle create_new_collection(const coll_t& cid) = 0;
  virtual void set_collection_commit_queue(const coll_t& cid, ContextQueue* commit_queue) = 0;
  virtual bool exists(CollectionHandle& c, const ghobject_t& oid) = 0;
  virtual int set_collection_opts(CollectionHandle& c, const pool_opts_t& opts) = 0;
  virtual int stat(CollectionHandle& c, const ghobject_t& oid, struct stat* st,
                   bool allow_eio = false) = 0;
  virtual int read(CollectionHandle& c, const ghobject_t& oid, uint64_t offset, size_t len,
                   ceph::buffer::list& bl, uint32_t op_flags = 0) = 0;
  virtual int fiemap(CollectionHandle& c, const ghobject_t& oid, uint64_t offset, size_t len,
                     ceph::buffer::list& bl) = 0;
  virtual int fiemap(CollectionHandle& c, const ghobject_t& oid, uint64_t offset, size_t len,
                     std::map<uint64_t, uint64_t>& destmap) = 0;
  // Reads every extent of m in offset order into bl (Pacific's default: one read each).
  virtual int readv(CollectionHandle& c, const ghobject_t& oid,
                    interval_set<uint64_t>& m, ceph::buffer::list& bl, uint32_t op_flags = 0) {
    int total = 0;
    for (auto p = m.begin(); p != m.end(); ++p) {
      ceph::buffer::list t;
      const int r = read(c, oid, p->first, p->second, t, op_flags);
      if (r < 0) return r;
      total += r;
      bl.claim_append(t);
    }
    return total;
  }
  virtual int dump_onode(CollectionHandle& c, const ghobject_t& oid, const std::string& section,
                         ceph::Formatter* f) {
    return -ENOTSUP;
  }
  virtual int getattr(CollectionHandle& c, const ghobject_t& oid, const char* name,
                      ceph::buffer::ptr& value) = 0;
  int getattr(CollectionHandle& c, const ghobject_t& oid, const std::string& name,
              ceph::buffer::list& value) {
    ceph::buffer::ptr bp;
    const int r = getattr(c, oid, name.c_str(), bp);
    value.push_back(bp);
    return r;
  }
  virtual int getattrs(CollectionHandle& c, const ghobject_t& oid,
                       std::map<std::string, ceph::buffer::ptr>& aset) = 0;
  int getattrs(CollectionHandle& c, const ghobject_t& oid,
               std::map<std::string, ceph::buffer::list>& aset) {
    std::map<std::string, ceph::buffer::ptr> bmap;
    const int r = getattrs(c, oid, bmap);
    for (auto& [k, v] : bmap) aset[k].push_back(v);
    return r;
  }

  // ---- slots 54-59: listing ----
  virtual int list_collections(std::vector<coll_t>& ls) = 0;
  virtual bool collection_exists(const coll_t& c) = 0;
  virtual int collection_empty(CollectionHandle& c, bool* empty) = 0;
  virtual int collection_bits(CollectionHandle& c) = 0;
  virtual int collection_list(CollectionHandle& c, const ghobject_t& start, const ghobject_t& end,
                              int max, std::vector<ghobject_t>* ls, ghobject_t* next) = 0;
  virtual int collection_list_legacy(CollectionHandle& c, const ghobject_t& start,
                                     const ghobject_t& end, int max,
                                     std::vector<ghobject_t>* ls, ghobject_t* next) {
    return collection_list(c, start, end, max, ls, next);
  }

  // ---- slots 60-65: omap ----
  virtual int omap_get(CollectionHandle& c, const ghobject_t& oid, ceph::buffer::list* header,
                       std::map<std::string, ceph::buffer::list>* out) = 0;
  virtual int omap_get_header(CollectionHandle& c, const ghobject_t& oid,
                              ceph::buffer::list* header, bool allow_eio = false) = 0;
  virtual int omap_get_keys(CollectionHandle& c, const ghobject_t& oid,
                            std::set<std::string>* keys) = 0;
  virtual int omap_get_values(CollectionHandle& c, const ghobject_t& oid,
                              const std::set<std::string>& keys,
                              std::map<std::string, ceph::buffer::list>* out) = 0;
  virtual int omap_check_keys(CollectionHandle& c, const ghobject_t& oid,
                              const std::set<std::string>& keys, std::set<std::string>* out) = 0;
  virtual ObjectMap::ObjectMapIterator get_omap_iterator(CollectionHandle& c,
                                                         const ghobject_t& oid) = 0;

  // ---- slots 66-75: journal, fsid, errors, misc ----
  virtual int flush_journal() { return -EOPNOTSUPP; }
  virtual int dump_journal(std::ostream& out) { return -EOPNOTSUPP; }
  virtual int snapshot(const std::string& name) { return -EOPNOTSUPP; }
  virtual void set_fsid(uuid_d u) = 0;
  virtual uuid_d get_fsid() = 0;
  virtual uint64_t estimate_objects_overhead(uint64_t num_objects) = 0;
  // Debug hooks (ceph-objectstore-tool / `injectdataerr`): the next read of oid fails.
  virtual void inject_data_error(const ghobject_t& oid) {}
  virtual void inject_mdata_error(const ghobject_t& oid) {}
  virtual void compact() {}
  virtual bool has_builtin_csum() const { return false; }
};
