// SMRStore's internals shared with its tests: the finisher thread, the collection handle
// and SMRStore::Impl (moved out of SMRStore.cc unchanged so that
// objectstore/testing/smrstore_introspect.cc can reach the engine; nothing outside
// objectstore/ and its tests includes this header).
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "include/Context.h"
#include "objectstore/SMRStore.h"
#include "objectstore/ceph_types.h"
#include "objectstore/smrstore_perf.h"
#include "objectstore/smrstore_settings.h"
#include "common/engine_log.h"
#include "common/thread_annotations.h"
#include "store/store.h"

namespace smr::ceph_adapter {

// A runs-in-order callback thread (Ceph's Finisher, for collections without a commit queue).
class Finisher {
 public:
  Finisher() : thread_([this] { Run(); }) {}
  ~Finisher() {
    {
      MutexLock l(&mu_);
      stop_ = true;
    }
    cv_.NotifyAll();
    thread_.join();
  }
  void Queue(std::list<Context*>& ls) {
    if (ls.empty()) return;
    {
      MutexLock l(&mu_);
      q_.splice(q_.end(), ls);
    }
    cv_.NotifyAll();
  }
  // Waits until everything queued so far has run.
  void Drain() {
    MutexUniqueLock l(&mu_);
    while (!q_.empty() || running_) idle_cv_.Wait(&l);
  }

 private:
  void Run() {
    MutexUniqueLock l(&mu_);
    for (;;) {
      while (!stop_ && q_.empty()) cv_.Wait(&l);
      if (q_.empty() && stop_) return;
      std::list<Context*> batch;
      batch.swap(q_);
      running_ = true;
      l.Unlock();
      for (Context* c : batch) c->complete(0);
      l.Lock();
      running_ = false;
      idle_cv_.NotifyAll();
    }
  }
  Mutex mu_;
  CondVar cv_, idle_cv_;
  std::list<Context*> q_ SMR_GUARDED_BY(mu_);
  bool stop_ SMR_GUARDED_BY(mu_) = false;
  bool running_ SMR_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace smr::ceph_adapter

// --- Collections and read-after-queue tracking. ---

struct SMRCollection : public ObjectStore::CollectionImpl {
  SMRCollection(CephContext* cct, const coll_t& c) : CollectionImpl(cct, c), name(smr::ceph_adapter::CollName(c)) {}

  void flush() override {
    smr::MutexUniqueLock l(&mu);
    while (pending_txns != 0) cv.Wait(&l);
  }
  bool flush_commit(Context* c) override {
    smr::MutexLock l(&mu);
    if (pending_txns == 0) return true;
    flush_waiters.push_back(c);
    return false;
  }

  const std::string name;
  // `mu` guards the read-after-queue state; `cv` is notified when it shrinks.
  smr::Mutex mu;
  smr::CondVar cv;
  // Queued on this handle, not yet committed.
  uint64_t pending_txns SMR_GUARDED_BY(mu) = 0;
  // Collection-level ops pending on this name.
  uint64_t pending_coll_ops SMR_GUARDED_BY(mu) = 0;
  // Encoded keys of objects with pending ops.
  std::multiset<std::string> pending_objs SMR_GUARDED_BY(mu);
  std::list<Context*> flush_waiters SMR_GUARDED_BY(mu);
  ContextQueue* commit_queue SMR_GUARDED_BY(mu) = nullptr;
};

struct SMRStore::Impl {
  smr::ceph_adapter::AdapterSettings settings;  // PATH/smrstore.conf, read at mount
  CephContext* cct = nullptr;                   // for the OSD log (null standalone)
  smr::LogSink previous_log_sink;               // the engine's sink before this store's
  // Queued, uncommitted transaction bytes (queue_transactions' throttle).
  smr::Mutex throttle_mu;
  smr::CondVar throttle_cv;
  uint64_t inflight_bytes SMR_GUARDED_BY(throttle_mu) = 0;
  uint64_t throttle_waits SMR_GUARDED_BY(throttle_mu) = 0;
  std::unique_ptr<smr::Store> engine;
  std::string engine_dir;
  uuid_d fsid;
  std::unique_ptr<smr::ceph_adapter::Finisher> finisher;
  std::unique_ptr<smr::ceph_adapter::PerfAndAdmin> perf;

  smr::Mutex colls_mu;
  // Handles handed out.
  std::map<std::string, boost::intrusive_ptr<SMRCollection>> colls SMR_GUARDED_BY(colls_mu);

  // Commit latency (submit -> durable), for get_cur_stats.
  std::atomic<uint64_t> last_commit_ns{0};

  boost::intrusive_ptr<SMRCollection> Handle(const coll_t& cid, CephContext* cct) {
    smr::MutexLock l(&colls_mu);
    auto& h = colls[smr::ceph_adapter::CollName(cid)];
    if (!h) h = ceph::make_ref<SMRCollection>(cct, cid);
    return h;
  }
  boost::intrusive_ptr<SMRCollection> Find(const std::string& name) {
    smr::MutexLock l(&colls_mu);
    auto it = colls.find(name);
    return it == colls.end() ? nullptr : it->second;
  }
};
