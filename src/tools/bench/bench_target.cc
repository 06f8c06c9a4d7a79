// smrstore-tool bench: the two Targets, the store (StoreTarget) and a directory of files
// (FsTarget), behind bench_target.h.
#include "bench_target.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "bench_common.h"
#include "bench_workload.h"

namespace smr::tool::bench {

namespace {

// Synchronous wait for one Submit, measuring Submit -> callback.
struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status status;
  Clock::time_point end;
};

Status SubmitAndWait(Store* store, Transaction t, std::function<void(const Status&)> on_ok,
                     uint64_t* latency_ns) {
  Waiter w;
  const auto t0 = Clock::now();
  store->Submit(std::move(t), [&w, &on_ok](const Status& s) {
    const auto end = Clock::now();
    if (s.ok() && on_ok) on_ok(s);
    std::lock_guard<std::mutex> lock(w.mu);
    w.status = s;
    w.end = end;
    w.done = true;
    w.cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(w.mu);
  w.cv.wait(lock, [&] { return w.done; });
  *latency_ns = Nanos(w.end - t0);
  return w.status;
}

class StoreTarget : public Target {
 public:
  explicit StoreTarget(Store* store) : store_(store) {}
  void PutBatch(std::vector<std::pair<uint64_t, std::string>> objs,
                std::function<void(const Status&)> done) override {
    Transaction t;
    for (auto& [slot, data] : objs) t.Write(kColl, Oid(slot), 0, std::move(data));
    store_->Submit(std::move(t), std::move(done));
  }
  Status Put(uint64_t slot, const std::string& data, bool overwrite,
             const std::function<void()>& on_commit, uint64_t* ns) override {
    Transaction t;
    if (overwrite) t.Truncate(kColl, Oid(slot), 0);
    t.Write(kColl, Oid(slot), 0, data);
    return SubmitAndWait(store_, std::move(t), [&on_commit](const Status&) { on_commit(); }, ns);
  }
  Status Remove(uint64_t slot, const std::function<void()>& on_commit, uint64_t* ns) override {
    Transaction t;
    t.Remove(kColl, Oid(slot));
    return SubmitAndWait(store_, std::move(t), [&on_commit](const Status&) { on_commit(); }, ns);
  }
  Result<std::string> Read(uint64_t slot) override { return store_->Read(kColl, Oid(slot), 0, 0); }
  uint64_t GcProgress() override {
    const StoreCounters c = store_->Counters();
    return c.gc_runs + c.gc_bytes_written + c.gc_zones_reset;
  }
  StoreCounters Counters() override { return store_->Counters(); }
  StoreStatfs Statfs() override { return store_->Statfs(); }
  Status Sync() override { return Status::OK(); }  // commits are durable

 private:
  Store* store_;
};

// One file per object (fs_target.h has the PUT/DELETE/GET semantics). The fill's batches
// are written by a pool of worker threads (one file each, as concurrent clients would).
// Capacity (Statfs().total) = what statvfs said users could store on the empty file system
// (f_bavail x f_frsize), not f_blocks: F2FS counts its overprovisioning and GC reserve in
// f_blocks (df shows them as used), so f_blocks would overstate what a user can fill.
class FsTarget : public Target {
 public:
  FsTarget(std::unique_ptr<FsObjectDir> dir, uint64_t capacity,
           std::vector<std::string> stat_devs, size_t workers)
      : dir_(std::move(dir)), capacity_(capacity), stat_devs_(std::move(stat_devs)) {
    for (size_t i = 0; i < workers; ++i) pool_.emplace_back([this] { Work(); });
  }
  ~FsTarget() override {
    {
      std::lock_guard<std::mutex> lock(qmu_);
      quit_ = true;
    }
    qcv_.notify_all();
    for (auto& t : pool_) t.join();
  }
  void PutBatch(std::vector<std::pair<uint64_t, std::string>> objs,
                std::function<void(const Status&)> done) override {
    struct Batch {
      std::atomic<size_t> left{0};
      std::mutex mu;
      Status first;
      std::function<void(const Status&)> done;
    };
    auto b = std::make_shared<Batch>();
    b->left = objs.size();
    b->done = std::move(done);
    if (objs.empty()) {
      b->done(Status::OK());
      return;
    }
    std::lock_guard<std::mutex> lock(qmu_);
    for (auto& o : objs) {
      auto item = std::make_shared<std::pair<uint64_t, std::string>>(std::move(o));
      queue_.push_back([this, b, item] {
        Status s = dir_->Put(Oid(item->first).name, item->second, next_tag_.fetch_add(1));
        if (s.ok()) user_bytes_.fetch_add(item->second.size());
        {
          std::lock_guard<std::mutex> l(b->mu);
          if (!s.ok() && b->first.ok()) b->first = s;
        }
        if (b->left.fetch_sub(1) == 1) b->done(b->first);
      });
    }
    qcv_.notify_all();
  }
  Status Put(uint64_t slot, const std::string& data, bool /*overwrite*/,
             const std::function<void()>& on_commit, uint64_t* ns) override {
    const auto t0 = Clock::now();
    Status s = dir_->Put(Oid(slot).name, data, next_tag_.fetch_add(1));
    *ns = Nanos(Clock::now() - t0);
    if (!s.ok()) return s;
    user_bytes_.fetch_add(data.size());
    on_commit();
    return Status::OK();
  }
  Status Remove(uint64_t slot, const std::function<void()>& on_commit, uint64_t* ns) override {
    const auto t0 = Clock::now();
    Status s = dir_->Remove(Oid(slot).name);
    *ns = Nanos(Clock::now() - t0);
    if (!s.ok()) return s;
    on_commit();
    return Status::OK();
  }
  Result<std::string> Read(uint64_t slot) override { return dir_->Read(Oid(slot).name); }
  uint64_t GcProgress() override { return 0; }
  StoreCounters Counters() override {
    StoreCounters c;
    c.user_bytes_written = user_bytes_.load();
    if (!stat_devs_.empty()) {
      auto b = BlockDevsBytesWritten(stat_devs_);
      if (b.ok()) c.device_bytes_written = *b;
    }
    return c;
  }
  StoreStatfs Statfs() override {
    StoreStatfs st;
    auto sp = dir_->Statfs();
    st.total = capacity_;
    if (sp.ok()) {
      st.available = sp->available;
      st.allocated = capacity_ > sp->available ? capacity_ - sp->available : 0;
    }
    return st;
  }
  Status Sync() override { return dir_->Sync(); }

 private:
  void Work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(qmu_);
        qcv_.wait(lock, [&] { return quit_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }
  std::unique_ptr<FsObjectDir> dir_;
  uint64_t capacity_;
  std::vector<std::string> stat_devs_;
  std::atomic<uint64_t> user_bytes_{0}, next_tag_{0};
  std::mutex qmu_;
  std::condition_variable qcv_;
  std::deque<std::function<void()>> queue_;
  bool quit_ = false;
  std::vector<std::thread> pool_;
};

}  // namespace

std::unique_ptr<Target> MakeStoreTarget(Store* store) {
  return std::make_unique<StoreTarget>(store);
}

std::unique_ptr<Target> MakeFsTarget(std::unique_ptr<FsObjectDir> dir, uint64_t capacity,
                                     std::vector<std::string> stat_devs, size_t workers) {
  return std::make_unique<FsTarget>(std::move(dir), capacity, std::move(stat_devs), workers);
}

}  // namespace smr::tool::bench
