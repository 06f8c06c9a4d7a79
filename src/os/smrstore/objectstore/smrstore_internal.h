// SMRStore's internals shared with its tests: the finisher thread, the collection handle
// and SMRStore::Impl (moved out of SMRStore.cc unchanged so that
// objectstore/testing/smrstore_introspect.cc can reach the engine; nothing outside
// objectstore/ and its tests includes this header).
#pragma once

#include <atomic>
#include <condition_variable>
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
#include "store/store.h"

namespace smr::ceph_adapter {

// A runs-in-order callback thread (Ceph's Finisher, for collections without a commit queue).
class Finisher {
 public:
  Finisher() : thread_([this] { Run(); }) {}
  ~Finisher() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Queue(std::list<Context*>& ls) {
    if (ls.empty()) return;
    {
      std::lock_guard<std::mutex> l(mu_);
      q_.splice(q_.end(), ls);
    }
    cv_.notify_all();
  }
  // Waits until everything queued so far has run.
  void Drain() {
    std::unique_lock<std::mutex> l(mu_);
    idle_cv_.wait(l, [this] { return q_.empty() && !running_; });
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      cv_.wait(l, [this] { return stop_ || !q_.empty(); });
      if (q_.empty() && stop_) return;
      std::list<Context*> batch;
      batch.swap(q_);
      running_ = true;
      l.unlock();
      for (Context* c : batch) c->complete(0);
      l.lock();
      running_ = false;
      idle_cv_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::list<Context*> q_;
  bool stop_ = false;
  bool running_ = false;
  std::thread thread_;
};

}  // namespace smr::ceph_adapter

// --- Collections and read-after-queue tracking. ---

struct SMRCollection : public ObjectStore::CollectionImpl {
  SMRCollection(CephContext* cct, const coll_t& c) : CollectionImpl(cct, c), name(smr::ceph_adapter::CollName(c)) {}

  void flush() override {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [this] { return pending_txns == 0; });
  }
  bool flush_commit(Context* c) override {
    std::lock_guard<std::mutex> l(mu);
    if (pending_txns == 0) return true;
    flush_waiters.push_back(c);
    return false;
  }

  const std::string name;
  std::mutex mu;
  std::condition_variable cv;
  uint64_t pending_txns = 0;                 // queued on this handle, not yet committed
  uint64_t pending_coll_ops = 0;             // collection-level ops pending on this name
  std::multiset<std::string> pending_objs;  // encoded keys of objects with pending ops
  std::list<Context*> flush_waiters;
  ContextQueue* commit_queue = nullptr;
};

struct SMRStore::Impl {
  smr::ceph_adapter::AdapterSettings settings;  // PATH/smrstore.conf, read at mount
  CephContext* cct = nullptr;                   // for the OSD log (null standalone)
  smr::LogSink previous_log_sink;               // the engine's sink before this store's
  // Queued, uncommitted transaction bytes (queue_transactions' throttle).
  std::mutex throttle_mu;
  std::condition_variable throttle_cv;
  uint64_t inflight_bytes = 0;
  uint64_t throttle_waits = 0;
  std::unique_ptr<smr::Store> engine;
  std::string engine_dir;
  uuid_d fsid;
  std::unique_ptr<smr::ceph_adapter::Finisher> finisher;
  std::unique_ptr<smr::ceph_adapter::PerfAndAdmin> perf;

  std::mutex colls_mu;
  std::map<std::string, boost::intrusive_ptr<SMRCollection>> colls;  // handles handed out

  // Commit latency (submit -> durable), for get_cur_stats.
  std::atomic<uint64_t> last_commit_ns{0};

  boost::intrusive_ptr<SMRCollection> Handle(const coll_t& cid, CephContext* cct) {
    std::lock_guard<std::mutex> l(colls_mu);
    auto& h = colls[smr::ceph_adapter::CollName(cid)];
    if (!h) h = ceph::make_ref<SMRCollection>(cct, cid);
    return h;
  }
  boost::intrusive_ptr<SMRCollection> Find(const std::string& name) {
    std::lock_guard<std::mutex> l(colls_mu);
    auto it = colls.find(name);
    return it == colls.end() ? nullptr : it->second;
  }
};
