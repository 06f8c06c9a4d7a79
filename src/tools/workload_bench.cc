// smrstore-tool bench: the workload generator that measures write amplification,
// throughput and latency of the store with zone GC active.
//
// Method (doc/performance.md, "GC workload bench" documents options and JSON):
//   1. Creates --drives emulated drives in --dir (--zones x --zone-mib, optional HDD timing
//      model) and measures their raw sequential write/read bandwidth (all drives in
//      parallel, 4 MiB requests at the write pointers, one flush), then resets them.
//   2. Makes a store on them (gc_policy = --policy, separate_streams = --placement).
//   3. Fill phase: PUTs new objects (batched, 16 transactions in flight) until the live
//      payload bytes reach --util x the store's data capacity.
//   4. Steady state (--duration or --ops): --clients threads each run one operation at a
//      time, drawn by the --mix weights: PUT (a whole new object, Write at 0), GET (whole
//      object, content verified against its pattern) or DELETE (Remove, victim drawn by
//      --delete). A PUT that would take its class above its target first deletes victims
//      (the delete+write pair keeps utilization constant); a standalone DELETE happens only
//      while live bytes are above target - 2 % (else it becomes a PUT), so utilization never
//      drains. Store counters are snapshot at the start: WA = device bytes / user bytes of
//      the steady state only. A sampler thread records one timeline point per second.
//   5. --oracle replays the recorded PUT/DELETE trace (fill + steady) through gc/gc_sim
//      on the same zone geometry, once with Placement::kOracle (the floor) and once with
//      the run's policy and placement (cross-check of the store).
// Object content is FillPattern(object seed) and is regenerated, never kept: memory is
// bounded by the number of live objects (plus the trace when --oracle).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/pattern.h"
#include "device/device_spec.h"
#include "device_commands.h"
#include "fs_target.h"
#include "publisher.h"
#include "store/store.h"
#include "workload_bench.h"

#if __has_include("gc/gc_sim.h")
#include "gc/gc_sim.h"
#define SMRSTORE_BENCH_HAVE_GC_SIM 1
#else
#define SMRSTORE_BENCH_HAVE_GC_SIM 0
#endif

#ifndef SMRSTORE_SOURCE_DIR
#define SMRSTORE_SOURCE_DIR ""
#endif

namespace smr::tool {

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kCmd = "bench";
constexpr const char* kColl = "bench";

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
uint64_t Nanos(Clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

int UsageError(const std::string& msg) {
  std::cerr << "smrstore-tool " << kCmd << ": " << msg << " (see smrstore-tool " << kCmd
            << " --help)\n";
  return 2;
}

// ---------------------------------------------------------------------------------------
// Option parsing helpers.

bool ParseDouble(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// ---------------------------------------------------------------------------------------
// Latency histogram: log-linear buckets (64 per power of two, <= 1.6 % error), fixed size,
// so recording millions of operations costs no memory.
class Histogram {
 public:
  static constexpr int kSubBits = 6;
  static constexpr uint64_t kSub = 1u << kSubBits;
  Histogram() : counts_(static_cast<size_t>((64 - kSubBits + 1) * kSub), 0) {}

  void Add(uint64_t ns) {
    ++counts_[Index(ns)];
    ++count_;
    sum_ += ns;
    max_ = std::max(max_, ns);
  }
  void Merge(const Histogram& o) {
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
    count_ += o.count_;
    sum_ += o.sum_;
    max_ = std::max(max_, o.max_);
  }
  uint64_t count() const { return count_; }
  double mean_ms() const { return count_ ? static_cast<double>(sum_) / count_ / 1e6 : 0; }
  double max_ms() const { return static_cast<double>(max_) / 1e6; }
  // Value (ms) at quantile q: the midpoint of the bucket holding the ceil(q*n)-th sample.
  double QuantileMs(double q) const {
    if (count_ == 0) return 0;
    uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
    rank = std::max<uint64_t>(1, std::min(rank, count_));
    uint64_t seen = 0;
    for (size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen >= rank) return std::min(Mid(i), static_cast<double>(max_)) / 1e6;
    }
    return max_ms();
  }

 private:
  static size_t Index(uint64_t v) {
    if (v < kSub) return static_cast<size_t>(v);
    const int e = 63 - __builtin_clzll(v);
    const int shift = e - kSubBits;
    return static_cast<size_t>((shift + 1) * kSub + ((v >> shift) - kSub));
  }
  static double Mid(size_t i) {
    if (i < kSub) return static_cast<double>(i);
    const int shift = static_cast<int>(i / kSub) - 1;
    const double lower = static_cast<double>((kSub + i % kSub) << shift);
    return lower + static_cast<double>((1ull << shift) - 1) / 2.0;
  }
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0, sum_ = 0, max_ = 0;
};

// Latency sets of one client (merged at the end).
struct Latencies {
  Histogram put, put_gc, put_nogc, get, get_gc, get_nogc, del;
  void Merge(const Latencies& o) {
    put.Merge(o.put);
    put_gc.Merge(o.put_gc);
    put_nogc.Merge(o.put_nogc);
    get.Merge(o.get);
    get_gc.Merge(o.get_gc);
    get_nogc.Merge(o.get_nogc);
    del.Merge(o.del);
  }
};

// ---------------------------------------------------------------------------------------
// Configuration.

enum class SizeKind { kFixed, kMixed, kOss };
// kZipf: skew over names (keys): every name keeps a popularity rank for the whole run, the
// victim is the k-th live name in rank order (k ~ zipf), and the PUT paired with a delete
// re-uses the victim's name as one overwrite transaction (truncate + write, what an object
// gateway's write_full does). Hot names are rewritten often: their lifetimes repeat.
// kZipfRandom: a fresh random rank per incarnation and fresh names, so nothing about a new
// object predicts its lifetime (the harder, less realistic case).
enum class DelPattern { kUniform, kZipf, kFifo, kZipfRandom };
bool ReusesNames(DelPattern d) { return d == DelPattern::kZipf; }

struct Config {
  std::string dir = "/var/tmp";
  // Targets: emulated drives made in --dir (default), existing devices (--devices: the
  // store on them, RocksDB in --dir), or a directory of files (--fs-dir, a peer file
  // system). --raw-only: only the raw leg on --devices.
  std::vector<std::string> devices;
  std::string fs_dir;
  bool raw_only = false;
  // --stat-dev: block devices whose kernel write counters give device-level WA.
  std::vector<std::string> stat_devs;
  uint64_t drives = 1, zones = 64, zone_mib = 64;
  double mbps = 0, seek_ms = 0;
  SizeKind size_kind = SizeKind::kMixed;
  uint64_t fixed_bytes = 0;
  std::string size_text = "mixed";
  double util = 0.8;
  double mix_read = 1, mix_write = 4, mix_delete = 4;
  std::string mix_text = "1:4:4";
  DelPattern del = DelPattern::kUniform;
  std::string del_text = "uniform";
  uint64_t clients = 4;
  double duration = 60;  // seconds; used when ops == 0
  uint64_t ops = 0;
  VictimPolicy policy = VictimPolicy::kLifetime;
  std::string policy_text = "lifetime";
  bool separated = true;
  uint64_t seed = 1;
  bool json = false, oracle = false;
  std::string plot;
};

// oss (as gc/gc_sim.h's kOss): 10 % of the live objects are small, and a small object lives
// ~kOssSmallLifetime times as long as a large one. By Little's law (lifetime = population /
// creation rate) the fill creates 10 % small objects and the steady state writes small ones
// at rate 0.1 / L : 0.9 (L = lifetime factor), each class replacing its own victims.
constexpr double kOssSmall = 0.10;
constexpr double kOssSmallLifetime = 10.0;
constexpr double kZipfTheta = 0.99;

struct SizeSample {
  uint64_t bytes = 0;
  int cls = 0;  // 0 = large/default, 1 = small (oss)
};

uint64_t Align4k(uint64_t v) { return std::max<uint64_t>(4096, v / 4096 * 4096); }

SizeSample SampleSize(const Config& c, std::mt19937_64& rng, bool fill) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  switch (c.size_kind) {
    case SizeKind::kFixed:
      return {c.fixed_bytes, 0};
    case SizeKind::kMixed: {
      // Log-uniform 16 KiB .. 16 MiB (SMORE's weather-archive-like spread), 4 KiB aligned.
      const double lo = std::log(16.0 * 1024), hi = std::log(16.0 * 1024 * 1024);
      return {Align4k(static_cast<uint64_t>(std::exp(lo + (hi - lo) * u(rng)))), 0};
    }
    case SizeKind::kOss: {
      const double steady_small = kOssSmall / kOssSmallLifetime;
      const double p_small = fill ? kOssSmall : steady_small / (steady_small + 1 - kOssSmall);
      if (u(rng) < p_small) {
        // 4 KiB .. 60 KiB (below small_write_max: the small stream).
        return {std::uniform_int_distribution<uint64_t>(1, 15)(rng) * 4096, 1};
      }
      return {std::uniform_int_distribution<uint64_t>(1024, 2048)(rng) * 4096, 0};
    }
  }
  return {4096, 0};
}

uint64_t MaxObjectBytes(const Config& c) {
  switch (c.size_kind) {
    case SizeKind::kFixed:
      return c.fixed_bytes;
    case SizeKind::kMixed:
      return 16ull << 20;
    case SizeKind::kOss:
      return 8ull << 20;
  }
  return 0;
}

ObjectId Oid(uint64_t id) {
  ObjectId o;
  o.pool = 1;
  o.name = "wb." + std::to_string(id);
  o.hash = static_cast<uint32_t>(id * 2654435761u);
  return o;
}

uint64_t PatternSeed(uint64_t run_seed, uint64_t id) {
  return run_seed * 0x9e3779b97f4a7c15ull + id;
}

// ---------------------------------------------------------------------------------------
// Live objects of one class, indexed for every delete pattern.

struct Obj {
  uint64_t id = 0;    // incarnation: seeds the data pattern; unique per PUT
  uint64_t slot = 0;  // name: "wb.<slot>"; == id unless names are re-used (kZipf)
  uint64_t size = 0;
  double rank = 0;  // zipf popularity (smaller = hotter = dies sooner)
  uint32_t readers = 0;
  int cls = 0;
};

using RankTree =
    __gnu_pbds::tree<std::pair<double, uint64_t>, __gnu_pbds::null_type,
                     std::less<std::pair<double, uint64_t>>, __gnu_pbds::rb_tree_tag,
                     __gnu_pbds::tree_order_statistics_node_update>;

// Zipf(theta) over ranks 0..n-1 (Gray et al., as in YCSB), with zeta(n) kept incrementally
// as n changes by a few per call.
class Zipf {
 public:
  explicit Zipf(double theta) : theta_(theta), zeta2_(1 + std::pow(0.5, theta)) {}
  uint64_t Next(uint64_t n, std::mt19937_64& rng) {
    if (n <= 1) return 0;
    while (zn_ < n) zeta_ += 1.0 / std::pow(static_cast<double>(++zn_), theta_);
    while (zn_ > n) zeta_ -= 1.0 / std::pow(static_cast<double>(zn_--), theta_);
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    const double uz = u * zeta_;
    if (uz < 1.0) return 0;
    if (uz < 1.0 + std::pow(0.5, theta_)) return 1;
    const double alpha = 1.0 / (1.0 - theta_);
    const double eta =
        (1 - std::pow(2.0 / static_cast<double>(n), 1 - theta_)) / (1 - zeta2_ / zeta_);
    const uint64_t k =
        static_cast<uint64_t>(static_cast<double>(n) * std::pow(eta * u - eta + 1, alpha));
    return std::min(k, n - 1);
  }

 private:
  double theta_, zeta2_;
  uint64_t zn_ = 0;
  double zeta_ = 0;
};

class Pool {
 public:
  size_t count() const { return objs_.size(); }
  uint64_t bytes() const { return bytes_; }

  void Add(const Obj& o) {
    objs_[o.id] = o;
    pos_[o.id] = ids_.size();
    ids_.push_back(o.id);
    ranks_.insert({o.rank, o.id});
    bytes_ += o.size;
  }
  Obj* Find(uint64_t id) {
    auto it = objs_.find(id);
    return it == objs_.end() ? nullptr : &it->second;
  }
  Obj* RandomForRead(std::mt19937_64& rng) {
    if (ids_.empty()) return nullptr;
    return Find(ids_[std::uniform_int_distribution<size_t>(0, ids_.size() - 1)(rng)]);
  }
  // Removes and returns a victim by `pattern`, skipping objects being read. False if every
  // live object is being read (or there is none).
  bool TakeVictim(DelPattern pattern, std::mt19937_64& rng, Zipf* zipf, Obj* out) {
    const size_t n = ids_.size();
    if (n == 0) return false;
    uint64_t id = 0;
    bool found = false;
    switch (pattern) {
      case DelPattern::kFifo:
        for (auto& [oid, o] : objs_) {
          if (o.readers == 0) {
            id = oid;
            found = true;
            break;
          }
        }
        break;
      case DelPattern::kUniform: {
        const size_t start = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
        for (size_t i = 0; i < n && !found; ++i) {
          const uint64_t cand = ids_[(start + i) % n];
          if (objs_[cand].readers == 0) {
            id = cand;
            found = true;
          }
        }
        break;
      }
      case DelPattern::kZipf:
      case DelPattern::kZipfRandom: {
        const uint64_t k = zipf->Next(n, rng);
        for (size_t i = 0; i < n && !found; ++i) {
          const uint64_t cand = ranks_.find_by_order((k + i) % n)->second;
          if (objs_[cand].readers == 0) {
            id = cand;
            found = true;
          }
        }
        break;
      }
    }
    if (!found) return false;
    auto it = objs_.find(id);
    *out = it->second;
    ranks_.erase({it->second.rank, id});
    const size_t p = pos_[id];
    ids_[p] = ids_.back();
    pos_[ids_[p]] = p;
    ids_.pop_back();
    pos_.erase(id);
    objs_.erase(it);
    bytes_ -= out->size;
    return true;
  }

 private:
  std::map<uint64_t, Obj> objs_;  // by id = creation order (fifo)
  std::vector<uint64_t> ids_;     // uniform choice
  std::unordered_map<uint64_t, size_t> pos_;
  RankTree ranks_;  // zipf choice
  uint64_t bytes_ = 0;
};

// One recorded PUT/DELETE for the oracle, in commit order.
struct TraceRec {
  bool put = false;
  uint64_t id = 0;
  uint64_t bytes = 0;
  uint64_t name = TraceOp::kNoName;  // a PUT's name (Obj::slot), so gc_sim sees histories
};

// ---------------------------------------------------------------------------------------
// State shared by the fill producer, the clients and the commit-thread callbacks.

class Target;

struct Shared {
  const Config* cfg = nullptr;
  Target* tgt = nullptr;  // the store or the file system

  std::mutex mu;
  Pool pools[2];
  Zipf zipf[2] = {Zipf(kZipfTheta), Zipf(kZipfTheta)};
  uint64_t live[2] = {0, 0};    // payload bytes, including PUTs in flight, minus deletes
  uint64_t target[2] = {0, 0};  // per-class targets (set at the end of the fill)
  uint64_t next_id = 0;
  // kZipf: names freed by standalone deletes, with their ranks, re-used by later PUTs.
  std::vector<std::pair<uint64_t, double>> free_names[2];
  std::vector<TraceRec> trace;  // only with --oracle
  size_t steady_trace_start = 0;

  // Steady-state progress (atomics: read by the sampler).
  std::atomic<uint64_t> user_bytes{0};  // committed PUT payload
  std::atomic<uint64_t> puts{0}, gets{0}, deletes{0}, get_bytes{0};
  std::atomic<uint64_t> ops_claimed{0};
  std::atomic<bool> stop{false};

  std::mutex err_mu;
  Status error;       // first hard error
  bool no_space = false;

  void Fail(const Status& s) {
    std::lock_guard<std::mutex> lock(err_mu);
    if (error.ok()) {
      error = s;
      no_space = s.IsNoSpace();
    }
    stop = true;
  }
  uint64_t live_total() const { return live[0] + live[1]; }
  uint64_t target_total() const { return target[0] + target[1]; }
};

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

// ---------------------------------------------------------------------------------------
// What the generator drives: the store, or a directory of files on a peer file system.
// Objects are named by slot (Oid(slot).name). Every PUT/DELETE is durable when it returns.

class Target {
 public:
  virtual ~Target() = default;
  // Fill: writes new objects; `done` runs (on any thread) once all are durable.
  virtual void PutBatch(std::vector<std::pair<uint64_t, std::string>> objs,
                        std::function<void(const Status&)> done) = 0;
  // One PUT (`overwrite`: the name exists and is replaced atomically) or DELETE.
  // `on_commit` runs once it committed (for the store: on the commit thread, in commit
  // order). *ns = latency.
  virtual Status Put(uint64_t slot, const std::string& data, bool overwrite,
                     const std::function<void()>& on_commit, uint64_t* ns) = 0;
  virtual Status Remove(uint64_t slot, const std::function<void()>& on_commit,
                        uint64_t* ns) = 0;
  virtual Result<std::string> Read(uint64_t slot) = 0;
  // Advances whenever GC made progress (0 for file systems: their GC is invisible).
  virtual uint64_t GcProgress() = 0;
  // device_bytes_written / user_bytes_written (+ GC counters for the store). For a file
  // system, device bytes come from the --stat-dev kernel counters.
  virtual StoreCounters Counters() = 0;
  virtual StoreStatfs Statfs() = 0;
  // Makes everything written so far durable (before reading kernel write counters).
  virtual Status Sync() = 0;
};

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

// ---------------------------------------------------------------------------------------
// Raw leg: sequential writes then reads at the write pointers of each drive's sequential
// zones (skipping the first two, which the store reserves), all drives in parallel.

struct RawResult {
  double write_mbps = 0, read_mbps = 0;
  uint64_t bytes = 0;
};

Status RawDrive(ZonedDevice* dev, uint64_t per_drive, uint64_t io, const std::string& data,
                std::vector<uint64_t>* offsets) {
  const DeviceInfo& info = dev->info();
  SMR_ASSIGN_OR_RETURN(auto zones, dev->ReportZones(0, 0));
  for (const ZoneInfo& z : zones) {
    if (z.is_conventional() || z.start < 2 * info.zone_size) continue;
    for (uint64_t off = 0; off + io <= z.capacity && offsets->size() * io < per_drive;
         off += io) {
      offsets->push_back(z.start + off);
    }
  }
  (void)data;
  return Status::OK();
}

Result<RawResult> RawLeg(const std::vector<std::string>& specs, uint64_t zone_bytes) {
  std::vector<std::unique_ptr<ZonedDevice>> devs;
  for (const auto& s : specs) {
    SMR_ASSIGN_OR_RETURN(auto d, OpenDevice(s));
    devs.push_back(std::move(d));
  }
  const uint64_t io = std::min<uint64_t>(4ull << 20, zone_bytes);
  const DeviceInfo& info = devs[0]->info();
  const uint64_t seq_bytes = static_cast<uint64_t>(info.nr_zones) * zone_bytes;
  const uint64_t per_drive = std::max(io, std::min<uint64_t>(512ull << 20, seq_bytes / 4) / io * io);
  std::string data(io, '\0');
  FillPattern(42, 0, data.data(), data.size());
  std::vector<std::vector<uint64_t>> offsets(devs.size());
  for (size_t i = 0; i < devs.size(); ++i) {
    SMR_RETURN_IF_ERROR(RawDrive(devs[i].get(), per_drive, io, data, &offsets[i]));
  }
  std::vector<Status> st(devs.size());
  auto run = [&](bool write) {
    std::vector<std::thread> th;
    for (size_t i = 0; i < devs.size(); ++i) {
      th.emplace_back([&, i] {
        std::string buf(io, '\0');
        for (uint64_t off : offsets[i]) {
          Status s = write ? devs[i]->Write(off, data.data(), io) : devs[i]->Read(off, buf.data(), io);
          if (!s.ok()) {
            st[i] = s;
            return;
          }
        }
        if (write) st[i] = devs[i]->Flush();
      });
    }
    for (auto& t : th) t.join();
  };
  RawResult r;
  for (const auto& o : offsets) r.bytes += o.size() * io;
  auto t0 = Clock::now();
  run(true);
  r.write_mbps = static_cast<double>(r.bytes) / 1e6 / Seconds(Clock::now() - t0);
  for (const Status& s : st) SMR_RETURN_IF_ERROR(s);
  t0 = Clock::now();
  run(false);
  r.read_mbps = static_cast<double>(r.bytes) / 1e6 / Seconds(Clock::now() - t0);
  for (const Status& s : st) SMR_RETURN_IF_ERROR(s);
  for (auto& d : devs) {
    SMR_ASSIGN_OR_RETURN(auto zones, d->ReportZones(0, 0));
    for (uint32_t z = 0; z < zones.size(); ++z) {
      if (!zones[z].is_conventional()) SMR_RETURN_IF_ERROR(d->ResetZones(z, 1));
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// Fill phase: batches of new objects, 16 transactions in flight, until live >= target.

struct FillResult {
  double seconds = 0;
  uint64_t objects = 0, user_bytes = 0, device_bytes = 0, store_user_bytes = 0;
};

Status Fill(Shared* sh, uint64_t target_bytes, FillResult* out) {
  const Config& c = *sh->cfg;
  std::mt19937_64 rng(c.seed * 7919 + 17);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  constexpr size_t kDepth = 16;
  constexpr uint64_t kBatchBytes = 16ull << 20;
  constexpr size_t kBatchObjects = 32;
  std::mutex wmu;
  std::condition_variable wcv;
  size_t inflight = 0;
  Status first;
  const StoreCounters c0 = sh->tgt->Counters();
  const auto t0 = Clock::now();
  uint64_t reserved = 0;
  while (reserved < target_bytes) {
    auto batch = std::make_shared<std::vector<Obj>>();
    std::vector<std::pair<uint64_t, std::string>> objs;
    uint64_t batch_bytes = 0;
    while (reserved < target_bytes && batch->size() < kBatchObjects && batch_bytes < kBatchBytes) {
      const SizeSample s = SampleSize(c, rng, /*fill=*/true);
      Obj o;
      o.size = s.bytes;
      o.cls = s.cls;
      o.rank = u(rng);
      {
        std::lock_guard<std::mutex> lock(sh->mu);
        o.id = sh->next_id++;
        o.slot = o.id;
        sh->live[o.cls] += o.size;
      }
      std::string data(o.size, '\0');
      FillPattern(PatternSeed(c.seed, o.id), 0, data.data(), data.size());
      objs.emplace_back(o.slot, std::move(data));
      batch->push_back(o);
      batch_bytes += o.size;
      reserved += o.size;
    }
    {
      std::unique_lock<std::mutex> lock(wmu);
      wcv.wait(lock, [&] { return inflight < kDepth; });
      if (!first.ok()) break;
      ++inflight;
    }
    sh->tgt->PutBatch(std::move(objs), [sh, batch, &wmu, &wcv, &inflight, &first](const Status& s) {
      if (s.ok()) {
        std::lock_guard<std::mutex> lock(sh->mu);
        for (const Obj& o : *batch) {
          sh->pools[o.cls].Add(o);
          if (sh->cfg->oracle) sh->trace.push_back({true, o.id, o.size, o.slot});
        }
      }
      std::lock_guard<std::mutex> lock(wmu);
      --inflight;
      if (!s.ok() && first.ok()) first = s;
      wcv.notify_all();
    });
    out->objects += batch->size();
    out->user_bytes += batch_bytes;
  }
  {
    std::unique_lock<std::mutex> lock(wmu);
    wcv.wait(lock, [&] { return inflight == 0; });
  }
  SMR_RETURN_IF_ERROR(first.WithContext("fill phase"));
  out->seconds = Seconds(Clock::now() - t0);
  const StoreCounters c1 = sh->tgt->Counters();
  out->device_bytes = c1.device_bytes_written - c0.device_bytes_written;
  out->store_user_bytes = c1.user_bytes_written - c0.user_bytes_written;
  std::lock_guard<std::mutex> lock(sh->mu);
  sh->target[0] = sh->live[0];
  sh->target[1] = sh->live[1];
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Steady state.

class Client {
 public:
  Client(Shared* sh, uint64_t index) : sh_(sh), rng_(sh->cfg->seed * 1000003 + index + 1) {}
  Latencies lat;

  void Run(Clock::time_point deadline) {
    const Config& c = *sh_->cfg;
    const double wsum = c.mix_read + c.mix_write + c.mix_delete;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    while (!sh_->stop.load()) {
      if (c.ops > 0) {
        if (sh_->ops_claimed.fetch_add(1) >= c.ops) break;
      } else if (Clock::now() >= deadline) {
        break;
      }
      const double x = u(rng_) * wsum;
      Status s;
      if (x < c.mix_read) {
        s = Get();
      } else if (x < c.mix_read + c.mix_delete) {
        s = StandaloneDelete();
      } else {
        s = Put();
      }
      if (!s.ok()) {
        sh_->Fail(s);
        break;
      }
    }
  }

 private:
  Status Delete(const Obj& victim) {
    uint64_t ns = 0;
    Shared* sh = sh_;
    const uint64_t id = victim.id, size = victim.size;
    SMR_RETURN_IF_ERROR(sh_->tgt->Remove(
        victim.slot,
        [sh, id, size]() {
          if (sh->cfg->oracle) {
            std::lock_guard<std::mutex> lock(sh->mu);
            sh->trace.push_back({false, id, size});
          }
        },
        &ns).WithContext("DELETE " + Oid(victim.slot).name));
    if (ReusesNames(sh_->cfg->del)) {
      std::lock_guard<std::mutex> lock(sh_->mu);
      sh_->free_names[victim.cls].push_back({victim.slot, victim.rank});
    }
    lat.del.Add(ns);
    sh_->deletes.fetch_add(1);
    return Status::OK();
  }

  // Picks the class furthest above its target; deletes one of its objects, unless the
  // store is already below target - 2 % (then this becomes a PUT).
  Status StandaloneDelete() {
    Obj victim;
    bool take = false;
    {
      std::lock_guard<std::mutex> lock(sh_->mu);
      const double slack = 0.02 * static_cast<double>(sh_->target_total());
      if (static_cast<double>(sh_->live_total()) > static_cast<double>(sh_->target_total()) - slack) {
        int best = -1;
        double best_ratio = -1;
        for (int k = 0; k < 2; ++k) {
          if (sh_->target[k] == 0 || sh_->pools[k].count() == 0) continue;
          const double r = static_cast<double>(sh_->live[k]) / sh_->target[k];
          if (r > best_ratio) {
            best_ratio = r;
            best = k;
          }
        }
        if (best >= 0 && sh_->pools[best].TakeVictim(sh_->cfg->del, rng_, &sh_->zipf[best], &victim)) {
          sh_->live[best] -= victim.size;
          take = true;
        }
      }
    }
    if (!take) return Put();
    return Delete(victim);
  }

  Status Put() {
    const Config& c = *sh_->cfg;
    const SizeSample s = SampleSize(c, rng_, /*fill=*/false);
    Obj o;
    o.size = s.bytes;
    o.cls = s.cls;
    o.rank = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
    std::vector<Obj> victims;
    bool overwrite = false;  // o replaces victims[0] under its name, in one transaction
    {
      std::lock_guard<std::mutex> lock(sh_->mu);
      const int k = o.cls;
      // Delete + write pair: make room in this class first.
      while (sh_->live[k] + o.size > sh_->target[k]) {
        Obj v;
        if (!sh_->pools[k].TakeVictim(c.del, rng_, &sh_->zipf[k], &v)) break;
        sh_->live[k] -= v.size;
        victims.push_back(v);
      }
      o.id = sh_->next_id++;
      o.slot = o.id;
      if (ReusesNames(c.del)) {
        if (!victims.empty()) {
          overwrite = true;
          o.slot = victims[0].slot;
          o.rank = victims[0].rank;
        } else if (!sh_->free_names[k].empty()) {
          o.slot = sh_->free_names[k].back().first;
          o.rank = sh_->free_names[k].back().second;
          sh_->free_names[k].pop_back();
        }
      }
      sh_->live[k] += o.size;
    }
    for (size_t i = overwrite ? 1 : 0; i < victims.size(); ++i) {
      SMR_RETURN_IF_ERROR(Delete(victims[i]));
    }
    data_.resize(o.size);
    FillPattern(PatternSeed(c.seed, o.id), 0, data_.data(), data_.size());
    uint64_t ns = 0;
    Shared* sh = sh_;
    const Obj replaced = overwrite ? victims[0] : Obj{};
    const uint64_t g0 = sh_->tgt->GcProgress();
    SMR_RETURN_IF_ERROR(sh_->tgt->Put(
        o.slot, data_, overwrite,
        [sh, o, overwrite, replaced]() {
          std::lock_guard<std::mutex> lock(sh->mu);
          sh->pools[o.cls].Add(o);
          if (sh->cfg->oracle) {
            if (overwrite) sh->trace.push_back({false, replaced.id, replaced.size});
            sh->trace.push_back({true, o.id, o.size, o.slot});
          }
        },
        &ns).WithContext("PUT " + Oid(o.slot).name));
    const bool gc = sh_->tgt->GcProgress() != g0;
    lat.put.Add(ns);
    (gc ? lat.put_gc : lat.put_nogc).Add(ns);
    sh_->user_bytes.fetch_add(o.size);
    sh_->puts.fetch_add(1);
    if (overwrite) sh_->deletes.fetch_add(1);
    return Status::OK();
  }

  Status Get() {
    uint64_t id = 0, slot = 0, size = 0;
    {
      std::lock_guard<std::mutex> lock(sh_->mu);
      const size_t n0 = sh_->pools[0].count(), n1 = sh_->pools[1].count();
      if (n0 + n1 == 0) return Put();
      const int k =
          std::uniform_int_distribution<size_t>(0, n0 + n1 - 1)(rng_) < n0 ? 0 : 1;
      Obj* o = sh_->pools[k].RandomForRead(rng_);
      ++o->readers;
      id = o->id;
      slot = o->slot;
      size = o->size;
      cls_ = k;
    }
    const uint64_t g0 = sh_->tgt->GcProgress();
    const auto t0 = Clock::now();
    auto got = sh_->tgt->Read(slot);
    const uint64_t ns = Nanos(Clock::now() - t0);
    const bool gc = sh_->tgt->GcProgress() != g0;
    {
      std::lock_guard<std::mutex> lock(sh_->mu);
      if (Obj* o = sh_->pools[cls_].Find(id)) --o->readers;
    }
    if (!got.ok()) return got.status().WithContext("GET " + Oid(slot).name);
    if (got->size() != size) {
      return Status::Corruption("GET " + Oid(slot).name + " returned " +
                                std::to_string(got->size()) + " bytes, expected " +
                                std::to_string(size));
    }
    if (!CheckPattern(PatternSeed(sh_->cfg->seed, id), 0, got->data(), got->size())) {
      return Status::Corruption("GET " + Oid(slot).name + ": content mismatch");
    }
    lat.get.Add(ns);
    (gc ? lat.get_gc : lat.get_nogc).Add(ns);
    sh_->get_bytes.fetch_add(size);
    sh_->gets.fetch_add(1);
    return Status::OK();
  }

  Shared* sh_;
  std::mt19937_64 rng_;
  std::string data_;
  int cls_ = 0;
};

struct Point {
  double t = 0, user_mbps = 0, device_mbps = 0, gc_mbps = 0, wa_so_far = 0, free_frac = 0;
  uint64_t puts = 0, gets = 0, deletes = 0, gc_runs = 0;
};

// ---------------------------------------------------------------------------------------
// JSON helpers.

std::string Num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string HistJson(const Histogram& h) {
  std::ostringstream o;
  o << "{\"count\": " << h.count() << ", \"mean\": " << Num(h.mean_ms())
    << ", \"p50\": " << Num(h.QuantileMs(0.5)) << ", \"p99\": " << Num(h.QuantileMs(0.99))
    << ", \"p999\": " << Num(h.QuantileMs(0.999)) << ", \"max\": " << Num(h.max_ms()) << "}";
  return o.str();
}

// ---------------------------------------------------------------------------------------
// Oracle (gc/gc_sim.h).

struct OracleResult {
  bool ran = false;
  std::string error;
  double wa_floor = 0, wa_sim_same = 0;
  uint64_t trace_ops = 0;
  std::string extra;  // more JSON fields
};

#if SMRSTORE_BENCH_HAVE_GC_SIM
// Converts the bench trace into gc_sim ops the way the store lays objects out: objects up
// to inline_max never reach the zones (left out); larger ones become one record per
// max_record_payload (1 MiB) chunk — each a sim object, a short tail (< 64 KiB) merged into
// the chunk before it so it is not routed to the small stream — all deleted together.
void AppendSimOps(const TraceRec& r, std::vector<TraceOp>* out) {
  constexpr uint64_t kInlineMax = 4096, kChunk = 1ull << 20, kTailMin = 64ull << 10;
  constexpr uint64_t kChunksPerObject = 1024;  // fixed sizes are <= 256 MiB
  if (r.bytes <= kInlineMax) return;
  uint64_t chunks = (r.bytes + kChunk - 1) / kChunk;
  if (chunks > 1 && r.bytes - (chunks - 1) * kChunk < kTailMin) --chunks;
  for (uint64_t i = 0; i < chunks; ++i) {
    TraceOp op;
    op.kind = r.put ? TraceOp::kWrite : TraceOp::kDelete;
    op.object = r.id * kChunksPerObject + i;
    op.bytes = r.put ? (i + 1 < chunks ? kChunk : r.bytes - i * kChunk) : 0;
    if (r.put && r.name != TraceOp::kNoName) op.name = r.name * kChunksPerObject + i;
    out->push_back(op);
  }
}

OracleResult RunOracle(const Config& c, const std::vector<TraceRec>& trace, size_t steady_start,
                       uint64_t data_bytes) {
  OracleResult r;
  std::vector<TraceOp> prefix, full;
  for (size_t i = 0; i < trace.size(); ++i) {
    AppendSimOps(trace[i], &full);
    if (i + 1 == steady_start) prefix = full;
  }
  if (steady_start == 0) prefix.clear();
  r.trace_ops = full.size();
  SimConfig cfg;
  cfg.zone_bytes = c.zone_mib << 20;
  cfg.zones = static_cast<uint32_t>(data_bytes / cfg.zone_bytes);
  cfg.reserve_zones = static_cast<uint32_t>(2 * c.drives);  // StoreOptions gc_reserve_zones
  cfg.policy = c.policy;
  cfg.record_header_bytes = 4096;
  cfg.block = 4096;
  cfg.small_bytes = 64 << 10;
  // The fill has no deletes, so no placement cleans during it: its device bytes are its
  // record bytes under any placement (computed once, single stream).
  cfg.placement = Placement::kSingleStream;
  auto pre = Simulate(prefix, cfg);
  if (!pre.ok()) {
    r.error = "fill prefix: " + pre.status().ToString();
    return r;
  }
  cfg.placement = Placement::kOracle;
  auto orc = Simulate(full, cfg);
  cfg.placement = c.separated ? Placement::kSeparated : Placement::kSingleStream;
  auto same = Simulate(full, cfg);
  if (!orc.ok() || !same.ok()) {
    r.error = "simulate: " + (!orc.ok() ? orc.status() : same.status()).ToString();
    return r;
  }
  auto steady_wa = [&](const SimResult& s) {
    const double user = static_cast<double>(s.user_bytes - pre->user_bytes);
    return user > 0 ? static_cast<double>(s.device_bytes - pre->device_bytes) / user : 0.0;
  };
  r.ran = true;
  r.wa_floor = steady_wa(*orc);
  r.wa_sim_same = steady_wa(*same);
  std::ostringstream o;
  o << ", \"sim_zones\": " << cfg.zones << ", \"sim_reserve_zones\": " << cfg.reserve_zones
    << ", \"sim_placement\": \"" << PlacementName(cfg.placement) << "\""
    << ", \"oracle_gc_bytes\": " << orc->gc_bytes << ", \"oracle_zones_reset\": "
    << orc->zones_reset << ", \"sim_gc_bytes\": " << same->gc_bytes
    << ", \"sim_zones_reset\": " << same->zones_reset << ", \"full_trace\": {\"oracle_wa\": "
    << Num(orc->wa) << ", \"oracle_gc_wa\": " << Num(orc->gc_wa) << ", \"sim_wa\": "
    << Num(same->wa) << ", \"sim_gc_wa\": " << Num(same->gc_wa) << "}";
  r.extra = o.str();
  return r;
}
#endif

// ---------------------------------------------------------------------------------------

Result<Config> ParseConfig(const Args& args, std::string* err) {
  Config c;
  auto bad = [&](const std::string& m) -> Result<Config> {
    *err = m;
    return Status::InvalidArgument(m);
  };
  c.dir = args.get("dir", "/var/tmp");
  {
    struct stat st;
    if (::stat(c.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return bad("--dir: '" + c.dir + "' is not a directory");
    }
  }
  auto num = [&](const char* name, uint64_t fallback, uint64_t lo, uint64_t hi,
                 uint64_t* out) -> bool {
    auto v = args.number(name, fallback);
    if (!v.ok()) {
      *err = v.status().message();
      return false;
    }
    if (*v < lo || *v > hi) {
      *err = std::string("--") + name + ": " + std::to_string(*v) + " is out of range [" +
             std::to_string(lo) + ", " + std::to_string(hi) + "]";
      return false;
    }
    *out = *v;
    return true;
  };
  if (!num("drives", 1, 1, 64, &c.drives) || !num("zones", 64, 8, 1u << 20, &c.zones) ||
      !num("zone-mib", 64, 1, 4096, &c.zone_mib) ||
      !num("clients", 4, 1, 256, &c.clients) ||
      !num("seed", 1, 0, UINT64_MAX, &c.seed)) {
    return Status::InvalidArgument(*err);
  }
  if (args.has("mbps")) {
    if (!ParseDouble(args.get("mbps"), &c.mbps) || c.mbps <= 0 || c.mbps > 1e6) {
      return bad("--mbps: '" + args.get("mbps") + "' is not a bandwidth in MB/s (> 0)");
    }
    c.seek_ms = 8;
  }
  if (args.has("seek-ms")) {
    if (!args.has("mbps")) return bad("--seek-ms needs --mbps (the timing model is off)");
    if (!ParseDouble(args.get("seek-ms"), &c.seek_ms) || c.seek_ms < 0 || c.seek_ms > 1000) {
      return bad("--seek-ms: '" + args.get("seek-ms") + "' is not a time in ms (0..1000)");
    }
  }
  c.size_text = args.get("size-dist", "mixed");
  if (c.size_text == "mixed") {
    c.size_kind = SizeKind::kMixed;
  } else if (c.size_text == "oss") {
    c.size_kind = SizeKind::kOss;
  } else if (c.size_text.rfind("fixed:", 0) == 0) {
    auto v = ParseSize(c.size_text.substr(6));
    if (!v.ok()) return bad("--size-dist: " + v.status().message());
    if (*v == 0 || *v > (256ull << 20)) return bad("--size-dist: fixed size must be 1..256M");
    c.size_kind = SizeKind::kFixed;
    c.fixed_bytes = *v;
  } else {
    return bad("--size-dist: '" + c.size_text + "' is not fixed:BYTES, mixed or oss");
  }
  if (args.has("util")) {
    if (!ParseDouble(args.get("util"), &c.util) || c.util <= 0 || c.util > 0.95) {
      return bad("--util: '" + args.get("util") + "' is not a fraction in (0, 0.95]");
    }
  }
  c.mix_text = args.get("mix", "1:4:4");
  {
    const auto parts = Split(c.mix_text, ':');
    double w[3];
    bool ok = parts.size() == 3;
    for (size_t i = 0; ok && i < 3; ++i) ok = ParseDouble(parts[i], &w[i]) && w[i] >= 0;
    if (!ok || w[1] <= 0) {
      return bad("--mix: '" + c.mix_text +
                 "' is not R:W:D (three non-negative weights, W > 0), e.g. 1:4:4");
    }
    c.mix_read = w[0];
    c.mix_write = w[1];
    c.mix_delete = w[2];
  }
  c.del_text = args.get("delete", "uniform");
  if (c.del_text == "uniform") {
    c.del = DelPattern::kUniform;
  } else if (c.del_text == "zipf") {
    c.del = DelPattern::kZipf;
  } else if (c.del_text == "zipf-random") {
    c.del = DelPattern::kZipfRandom;
  } else if (c.del_text == "fifo") {
    c.del = DelPattern::kFifo;
  } else {
    return bad("--delete: '" + c.del_text + "' is not uniform, zipf, zipf-random or fifo");
  }
  if (args.has("duration") && args.has("ops")) return bad("give --duration or --ops, not both");
  if (args.has("duration")) {
    if (!ParseDouble(args.get("duration"), &c.duration) || c.duration <= 0 ||
        c.duration > 7 * 86400) {
      return bad("--duration: '" + args.get("duration") + "' is not a number of seconds (> 0)");
    }
  }
  if (args.has("ops")) {
    if (!num("ops", 0, 1, UINT64_MAX / 2, &c.ops)) return Status::InvalidArgument(*err);
  }
  c.policy_text = args.get("policy", "lifetime");
  if (c.policy_text == "greedy") {
    c.policy = VictimPolicy::kGreedy;
  } else if (c.policy_text == "cost-benefit") {
    c.policy = VictimPolicy::kCostBenefit;
  } else if (c.policy_text == "lifetime") {
    c.policy = VictimPolicy::kLifetime;
  } else {
    return bad("--policy: '" + c.policy_text + "' is not greedy, cost-benefit or lifetime");
  }
  const std::string placement = args.get("placement", "separated");
  if (placement == "single") {
    c.separated = false;
  } else if (placement == "separated") {
    c.separated = true;
  } else {
    return bad("--placement: '" + placement + "' is not single or separated");
  }
  c.json = args.has("json");
  c.oracle = args.has("oracle");
  auto list = [](const std::string& v) {
    std::vector<std::string> out;
    for (const auto& x : Split(v, ',')) {
      if (!x.empty()) out.push_back(x);
    }
    return out;
  };
  if (args.has("devices")) {
    c.devices = list(args.get("devices"));
    if (c.devices.empty()) return bad("--devices: give device specs, e.g. zbd:/dev/nullb0");
    for (const auto& d : c.devices) {
      if (auto spec = DeviceSpec::Parse(d); !spec.ok()) {
        return bad("--devices: " + spec.status().message());
      }
    }
  }
  c.fs_dir = args.get("fs-dir", "");
  if (args.has("fs-dir")) {
    struct stat st;
    if (::stat(c.fs_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return bad("--fs-dir: '" + c.fs_dir + "' is not a directory");
    }
    if (!c.devices.empty()) return bad("give --devices or --fs-dir, not both");
  }
  c.raw_only = args.has("raw-only");
  if (c.raw_only && c.devices.empty()) return bad("--raw-only needs --devices");
  if (args.has("stat-dev")) {
    c.stat_devs = list(args.get("stat-dev"));
    for (const auto& d : c.stat_devs) {
      if (auto b = BlockDevBytesWritten(d); !b.ok()) return bad("--stat-dev: " + b.status().message());
    }
  }
  if (c.oracle && (!c.devices.empty() || !c.fs_dir.empty())) {
    return bad("--oracle works with the emulated drives only (not --devices or --fs-dir)");
  }
  if (args.has("plot")) {
    c.plot = args.get("plot");
    const std::filesystem::path p(c.plot);
    if (p.extension() != ".png") return bad("--plot: '" + c.plot + "' must end in .png");
    const auto parent = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(parent, ec)) {
      return bad("--plot: directory '" + parent.string() + "' does not exist");
    }
  }
  // Geometry sanity: the store must hold several of the largest objects above its target
  // (for --devices and --fs-dir: checked against the real capacity once it is known).
  const uint64_t zone_bytes = c.zone_mib << 20;
  const uint64_t capacity = c.drives * c.zones * zone_bytes;
  if (c.devices.empty() && c.fs_dir.empty() &&
      MaxObjectBytes(c) * 8 > static_cast<uint64_t>(c.util * static_cast<double>(capacity))) {
    return bad("the drives are too small for --size-dist " + c.size_text + " at --util " +
               Num(c.util) + " (need room for at least 8 of the largest objects)");
  }
  if (c.oracle && !SMRSTORE_BENCH_HAVE_GC_SIM) {
    return bad("--oracle: this build has no gc/gc_sim.h (the offline simulator)");
  }
  return c;
}

std::string PlotScript() {
  if (const char* env = std::getenv("SMRSTORE_PLOT_BENCH")) return env;
  std::error_code ec;
  const std::string src = std::string(SMRSTORE_SOURCE_DIR) + "/tools/plot_bench.py";
  if (!std::string(SMRSTORE_SOURCE_DIR).empty() && std::filesystem::exists(src, ec)) return src;
  // Installed layout: BIN/../share/smrstore/plot_bench.py
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto inst = exe.parent_path().parent_path() / "share/smrstore/plot_bench.py";
    if (std::filesystem::exists(inst, ec)) return inst.string();
  }
  return "tools/plot_bench.py";
}

std::string ShellQuote(const std::string& s) {
  std::string o = "'";
  for (char ch : s) {
    if (ch == '\'') {
      o += "'\\''";
    } else {
      o += ch;
    }
  }
  return o + "'";
}

int CmdBench(const Args& args) {
  std::string err;
  auto parsed = ParseConfig(args, &err);
  if (!parsed.ok()) return UsageError(err.empty() ? parsed.status().message() : err);
  const Config c = *parsed;
  // --publish NAME: the store's stats go to ceph-mgr while the bench runs (publisher.h).
  PublisherOptions pub;
  pub.name = args.get("publish");
  pub.ceph_conf = args.get("ceph-conf");
  if (args.has("publish")) {
    if (Status s = ValidatePublisherOptions(pub); !s.ok()) return UsageError(s.message());
    if (!c.fs_dir.empty() || c.raw_only) {
      return UsageError("--publish needs the store (not --fs-dir or --raw-only)");
    }
  } else if (args.has("ceph-conf")) {
    return UsageError("--ceph-conf needs --publish");
  }

  const bool fs = !c.fs_dir.empty();
  const bool emu = c.devices.empty() && !fs;
  uint64_t zone_bytes = fs ? 0 : c.zone_mib << 20;  // a file system hides its zones
  const std::string stem = c.dir + "/smrstore-bench-" + std::to_string(::getpid());
  std::vector<std::string> specs = c.devices;
  for (uint64_t i = 0; emu && i < c.drives; ++i) {
    std::string spec = "emu:" + stem + "-d" + std::to_string(i) +
                       ".img?zones=" + std::to_string(c.zones) +
                       "&zone_mib=" + std::to_string(c.zone_mib) + "&conv=1&max_open=128";
    if (c.mbps > 0) spec += "&mbps=" + Num(c.mbps) + "&seek_ms=" + Num(c.seek_ms);
    specs.push_back(spec);
  }
  const std::string store_dir = stem + ".store";
  struct Cleanup {
    std::string stem;
    uint64_t drives;
    ~Cleanup() {
      std::error_code ec;
      for (uint64_t i = 0; i < drives; ++i) {
        std::filesystem::remove(stem + "-d" + std::to_string(i) + ".img", ec);
      }
      std::filesystem::remove_all(stem + ".store", ec);
      std::filesystem::remove(stem + ".json", ec);
    }
  } cleanup{stem, emu ? c.drives : 0};

  for (const auto& s : specs) {
    auto dev = emu ? CreateDevice(s) : OpenDevice(s);
    if (!dev.ok()) return Fail(kCmd, dev.status());
    // The bench formats --devices: never a store's drive unless --force.
    if (!emu) {
      if (Status g = RefuseStoreDrive(dev->get(), args.has("force")); !g.ok()) {
        return Fail(kCmd, g);
      }
    }
    if (!emu) zone_bytes = (*dev)->info().zone_size;  // the real devices' geometry
  }
  auto progress = [&](const std::string& m) {
    if (!c.json) std::cerr << "bench: " << m << "\n";
  };

  // 1. Raw sequential bandwidth of the same drives (not for a file system: its device is
  // in use; qa/vm/peers.sh measures it with --raw-only before making the file system).
  Result<RawResult> raw = RawResult{};
  if (!fs) {
    ::sync();
    progress("raw sequential leg");
    raw = RawLeg(specs, zone_bytes);
    if (!raw.ok()) return Fail(kCmd, raw.status().WithContext("raw leg"));
    ::sync();
  }
  if (c.raw_only) {
    std::ostringstream j;
    j << "{\"bench\": \"smrstore-tool bench --raw-only\", \"schema\": 1, \"devices\": [";
    for (size_t i = 0; i < specs.size(); ++i) {
      j << (i ? ", " : "") << "\"" << JsonEscape(specs[i]) << "\"";
    }
    j << "], \"zone_bytes\": " << zone_bytes << ", \"raw\": {\"bytes\": " << raw->bytes
      << ", \"write_mbps\": " << Num(raw->write_mbps) << ", \"read_mbps\": "
      << Num(raw->read_mbps) << "}}\n";
    if (c.json) {
      std::cout << j.str();
    } else {
      std::printf("raw sequential write %.1f MB/s, read %.1f MB/s (%llu MiB)\n", raw->write_mbps,
                  raw->read_mbps, (unsigned long long)(raw->bytes >> 20));
    }
    return 0;
  }

  // 2. The target: the store (on the emulated drives or --devices), or --fs-dir.
  std::unique_ptr<Store> store;
  std::unique_ptr<Target> target;
  FsObjectDir::Space fs_space;  // statvfs of the empty file system (--fs-dir)
  if (fs) {
    auto dir = FsObjectDir::Open(c.fs_dir);
    if (!dir.ok()) return Fail(kCmd, dir.status());
    auto sp = (*dir)->Statfs();
    if (!sp.ok()) return Fail(kCmd, sp.status());
    fs_space = *sp;
    target = std::make_unique<FsTarget>(std::move(*dir), fs_space.available, c.stat_devs,
                                        c.clients);
  }
  StoreOptions opts;
  opts.gc_policy = c.policy;
  opts.separate_streams = c.separated;
  opts.gc_auto = true;
  if (!fs) {
    if (Status s = Store::Mkfs(store_dir, specs, opts, /*force=*/true); !s.ok()) {
      return Fail(kCmd, s.WithContext("mkfs"));
    }
    auto opened = Store::Open(store_dir);
    if (!opened.ok()) return Fail(kCmd, opened.status().WithContext("mount"));
    store = std::move(*opened);
    Transaction t;
    t.MkColl(kColl, 0);
    if (Status s = store->Apply(std::move(t)); !s.ok()) return Fail(kCmd, s);
    target = std::make_unique<StoreTarget>(store.get());
  }
  std::unique_ptr<StatsPublisher> publisher;  // destroyed before `store`
  if (args.has("publish")) {
    auto started = StatsPublisher::Start(store.get(), pub);
    if (!started.ok()) return Fail(kCmd, started.status().WithContext("--publish"));
    publisher = std::move(*started);
    progress("publishing stats as service daemon smrstore." + pub.name);
  }
  const StoreStatfs st0 = target->Statfs();
  const uint64_t target_bytes =
      static_cast<uint64_t>(c.util * static_cast<double>(st0.total));
  if (!emu && MaxObjectBytes(c) * 8 > target_bytes) {
    return UsageError("the target is too small for --size-dist " + c.size_text + " at --util " +
                      Num(c.util) + " (need room for at least 8 of the largest objects)");
  }
  // Kernel write counters of --stat-dev: before the fill, at the steady state's start and
  // end (each after a Sync, so written-back data is counted where it belongs).
  auto bd_bytes = [&]() {
    std::vector<uint64_t> v;
    if (!c.stat_devs.empty()) (void)target->Sync();
    for (const auto& d : c.stat_devs) {
      auto b = BlockDevBytesWritten(d);
      v.push_back(b.ok() ? *b : 0);
    }
    return v;
  };
  const std::vector<uint64_t> bd_fill0 = bd_bytes();

  Shared sh;
  sh.cfg = &c;
  sh.tgt = target.get();

  // 3. Fill.
  progress("fill to " + Num(c.util) + " of " + std::to_string(st0.total >> 20) + " MiB");
  FillResult fill;
  if (Status s = Fill(&sh, target_bytes, &fill); !s.ok()) {
    return Fail(kCmd, s.IsNoSpace()
                          ? s.WithContext("ran out of space while filling to " +
                                          std::to_string(target_bytes >> 20) + " of " +
                                          std::to_string(st0.total >> 20) +
                                          " MiB (lower --util?)")
                          : s);
  }
  {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.steady_trace_start = sh.trace.size();
  }

  // 4. Steady state.
  progress("steady state: " + (c.ops ? std::to_string(c.ops) + " ops" : Num(c.duration) + " s") +
           ", " + std::to_string(c.clients) + " clients");
  const std::vector<uint64_t> bd_steady0 = bd_bytes();
  const StoreCounters k0 = target->Counters();
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(c.ops ? 1e9 : c.duration));
  std::vector<std::unique_ptr<Client>> clients;
  for (uint64_t i = 0; i < c.clients; ++i) clients.push_back(std::make_unique<Client>(&sh, i));
  std::vector<std::thread> threads;
  std::atomic<bool> sampler_stop{false};
  std::vector<Point> timeline;
  std::thread sampler([&] {
    StoreCounters prev = k0;
    uint64_t prev_user = 0, prev_puts = 0, prev_gets = 0, prev_dels = 0;
    auto last = t0;
    for (int sec = 1; !sampler_stop.load(); ++sec) {
      const auto wake = t0 + std::chrono::seconds(sec);
      while (Clock::now() < wake && !sampler_stop.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      const auto now = Clock::now();
      const double dt = Seconds(now - last);
      if (dt < 0.2) break;  // a short tail at the end: skip
      const StoreCounters k = target->Counters();
      const StoreStatfs st = target->Statfs();
      const uint64_t user = sh.user_bytes.load(), puts = sh.puts.load(), gets = sh.gets.load(),
                     dels = sh.deletes.load();
      Point p;
      p.t = Seconds(now - t0);
      p.user_mbps = static_cast<double>(user - prev_user) / 1e6 / dt;
      p.device_mbps =
          static_cast<double>(k.device_bytes_written - prev.device_bytes_written) / 1e6 / dt;
      p.gc_mbps = static_cast<double>(k.gc_bytes_written - prev.gc_bytes_written) / 1e6 / dt;
      p.wa_so_far = user ? static_cast<double>(k.device_bytes_written - k0.device_bytes_written) /
                               static_cast<double>(user)
                         : 0;
      p.free_frac = st.total ? static_cast<double>(st.available) / st.total : 0;
      p.puts = puts - prev_puts;
      p.gets = gets - prev_gets;
      p.deletes = dels - prev_dels;
      p.gc_runs = k.gc_runs - prev.gc_runs;
      timeline.push_back(p);
      prev = k;
      prev_user = user;
      prev_puts = puts;
      prev_gets = gets;
      prev_dels = dels;
      last = now;
    }
  });
  for (auto& cl : clients) threads.emplace_back([&cl, deadline] { cl->Run(deadline); });
  for (auto& t : threads) t.join();
  const auto t1 = Clock::now();
  sampler_stop = true;
  sampler.join();
  const std::vector<uint64_t> bd_steady1 = bd_bytes();
  const StoreCounters k1 = target->Counters();
  const StoreStatfs st1 = target->Statfs();
  Latencies lat;
  for (auto& cl : clients) lat.Merge(cl->lat);

  Status hard;
  bool no_space = false;
  {
    std::lock_guard<std::mutex> lock(sh.err_mu);
    hard = sh.error;
    no_space = sh.no_space;
  }
  if (!hard.ok() && !no_space) {
    // Content mismatch, I/O error, ...: a hard error, no report.
    return Fail(kCmd, hard);
  }
  uint64_t live_end = 0, objects_end = 0;
  {
    std::lock_guard<std::mutex> lock(sh.mu);
    live_end = sh.pools[0].bytes() + sh.pools[1].bytes();
    objects_end = sh.pools[0].count() + sh.pools[1].count();
  }
  if (publisher) publisher->Stop();
  target.reset();
  if (store) {
    if (Status s = store->Close(); !s.ok() && hard.ok()) {
      return Fail(kCmd, s.WithContext("unmount"));
    }
    store.reset();
  }

  // 5. Oracle.
  OracleResult oracle;
#if SMRSTORE_BENCH_HAVE_GC_SIM
  if (c.oracle) {
    progress("oracle: replaying " + std::to_string(sh.trace.size()) + " trace ops");
    oracle = RunOracle(c, sh.trace, sh.steady_trace_start, st0.total);
  }
#endif

  const double secs = Seconds(t1 - t0);
  const uint64_t user = sh.user_bytes.load();
  const uint64_t dev = k1.device_bytes_written - k0.device_bytes_written;
  const double wa = user ? static_cast<double>(dev) / static_cast<double>(user) : 0;
  const double user_mbps = static_cast<double>(user) / 1e6 / secs;
  const double ratio = raw->write_mbps > 0 ? user_mbps / raw->write_mbps : 0;

  auto json_list = [](const std::vector<std::string>& v) {
    std::string o = "[";
    for (size_t i = 0; i < v.size(); ++i) o += (i ? ", \"" : "\"") + JsonEscape(v[i]) + "\"";
    return o + "]";
  };
  std::ostringstream j;
  j << "{\"bench\": \"smrstore-tool bench\", \"schema\": 1,\n";
  j << " \"status\": \"" << (hard.ok() ? "ok" : "no_space") << "\"";
  if (!hard.ok()) j << ", \"error\": \"" << JsonEscape(hard.ToString()) << "\"";
  j << ",\n \"config\": {\"drives\": " << c.drives << ", \"zones\": " << c.zones
    << ", \"zone_mib\": " << c.zone_mib << ", \"mbps\": " << Num(c.mbps)
    << ", \"seek_ms\": " << Num(c.seek_ms) << ", \"size_dist\": \"" << JsonEscape(c.size_text)
    << "\", \"util\": " << Num(c.util) << ", \"mix\": {\"read\": " << Num(c.mix_read)
    << ", \"write\": " << Num(c.mix_write) << ", \"delete\": " << Num(c.mix_delete)
    << "}, \"delete\": \"" << c.del_text << "\", \"clients\": " << c.clients
    << ", \"duration_s\": " << (c.ops ? "null" : Num(c.duration))
    << ", \"ops\": " << (c.ops ? std::to_string(c.ops) : "null") << ", \"policy\": \""
    << c.policy_text << "\", \"placement\": \"" << (c.separated ? "separated" : "single")
    << "\", \"seed\": " << c.seed << ", \"oracle\": " << (c.oracle ? "true" : "false")
    << ", \"target\": \"" << (fs ? "fs" : emu ? "store-emu" : "store-devices")
    << "\", \"devices\": " << json_list(c.devices) << ", \"fs_dir\": "
    << (fs ? "\"" + JsonEscape(c.fs_dir) + "\"" : std::string("null"))
    << ", \"stat_devs\": " << json_list(c.stat_devs) << "},\n";
  j << " \"capacity\": {\"data_bytes\": " << st0.total << ", \"target_live_bytes\": "
    << target_bytes << ", \"zone_bytes\": " << zone_bytes;
  if (fs) {
    j << ", \"statvfs_total_bytes\": " << fs_space.total
      << ", \"statvfs_available_bytes\": " << fs_space.available;
  }
  j << "},\n";
  j << " \"raw\": {\"bytes\": " << raw->bytes << ", \"write_mbps\": " << Num(raw->write_mbps)
    << ", \"read_mbps\": " << Num(raw->read_mbps) << "},\n";
  // Device-level bytes from the kernel's counters (/sys/block/DEV/stat) of --stat-dev.
  j << " \"blockdev\": ";
  if (c.stat_devs.empty()) {
    j << "null,\n";
  } else {
    uint64_t bf = 0, bs = 0;
    std::string per_dev;
    for (size_t i = 0; i < c.stat_devs.size(); ++i) {
      bf += bd_steady0[i] - bd_fill0[i];
      bs += bd_steady1[i] - bd_steady0[i];
      per_dev += (i ? ", \"" : "\"") + JsonEscape(c.stat_devs[i]) + "\": {\"fill_bytes\": " +
                 std::to_string(bd_steady0[i] - bd_fill0[i]) + ", \"steady_bytes\": " +
                 std::to_string(bd_steady1[i] - bd_steady0[i]) + "}";
    }
    j << "{\"devs\": " << json_list(c.stat_devs) << ", \"per_dev\": {" << per_dev
      << "}, \"fill_bytes\": " << bf
      << ", \"fill_wa\": "
      << Num(fill.user_bytes ? static_cast<double>(bf) / fill.user_bytes : 0)
      << ", \"steady_bytes\": " << bs << ", \"steady_wa\": "
      << Num(user ? static_cast<double>(bs) / user : 0) << "},\n";
  }
  j << " \"fill\": {\"seconds\": " << Num(fill.seconds) << ", \"objects\": " << fill.objects
    << ", \"user_bytes\": " << fill.user_bytes << ", \"device_bytes\": " << fill.device_bytes
    << ", \"wa\": "
    << Num(fill.user_bytes ? static_cast<double>(fill.device_bytes) / fill.user_bytes : 0)
    << ", \"user_mbps\": " << Num(static_cast<double>(fill.user_bytes) / 1e6 / fill.seconds)
    << "},\n";
  j << " \"steady\": {\"seconds\": " << Num(secs) << ", \"puts\": " << sh.puts.load()
    << ", \"gets\": " << sh.gets.load() << ", \"deletes\": " << sh.deletes.load()
    << ", \"user_bytes\": " << user
    << ", \"store_user_bytes\": " << (k1.user_bytes_written - k0.user_bytes_written)
    << ", \"device_bytes\": " << dev << ", \"gc_bytes\": "
    << (k1.gc_bytes_written - k0.gc_bytes_written)
    << ", \"gc_live_moved\": " << (k1.gc_live_moved - k0.gc_live_moved)
    << ", \"gc_runs\": " << (k1.gc_runs - k0.gc_runs)
    << ", \"zones_reset\": " << (k1.gc_zones_reset - k0.gc_zones_reset)
    << ", \"gc_throttle_s\": " << Num((k1.gc_throttle_ns - k0.gc_throttle_ns) / 1e9)
    << ",\n  \"wa\": " << Num(wa) << ", \"user_mbps\": " << Num(user_mbps)
    << ", \"device_mbps\": " << Num(static_cast<double>(dev) / 1e6 / secs)
    << ", \"get_mbps\": " << Num(static_cast<double>(sh.get_bytes.load()) / 1e6 / secs)
    << ", \"user_mbps_to_raw\": " << Num(ratio) << ", \"live_bytes_end\": " << live_end
    << ", \"objects_end\": " << objects_end << ", \"statfs_end\": {\"total\": " << st1.total
    << ", \"available\": " << st1.available << ", \"allocated\": " << st1.allocated
    << ", \"stored\": " << st1.stored << "}},\n";
  j << " \"latency_ms\": {\"gc_marking\": \"op overlapped GC progress (gc_runs, "
       "gc_bytes_written or gc_zones_reset advanced between its start and completion)\",\n"
    << "  \"put\": " << HistJson(lat.put) << ",\n  \"put_gc\": " << HistJson(lat.put_gc)
    << ",\n  \"put_nogc\": " << HistJson(lat.put_nogc) << ",\n  \"get\": " << HistJson(lat.get)
    << ",\n  \"get_gc\": " << HistJson(lat.get_gc) << ",\n  \"get_nogc\": "
    << HistJson(lat.get_nogc) << ",\n  \"delete\": " << HistJson(lat.del) << "},\n";
  j << " \"oracle\": ";
  if (!c.oracle) {
    j << "null";
  } else if (!oracle.ran) {
    j << "{\"error\": \"" << JsonEscape(oracle.error) << "\"}";
  } else {
    j << "{\"trace_ops\": " << oracle.trace_ops << ", \"wa_floor\": " << Num(oracle.wa_floor)
      << ", \"wa_sim_same_policy\": " << Num(oracle.wa_sim_same) << oracle.extra << "}";
  }
  j << ",\n \"timeline\": [";
  for (size_t i = 0; i < timeline.size(); ++i) {
    const Point& p = timeline[i];
    j << (i ? ",\n  " : "\n  ") << "{\"t\": " << Num(p.t) << ", \"user_mbps\": "
      << Num(p.user_mbps) << ", \"device_mbps\": " << Num(p.device_mbps)
      << ", \"gc_mbps\": " << Num(p.gc_mbps) << ", \"wa_so_far\": " << Num(p.wa_so_far)
      << ", \"free_frac\": " << Num(p.free_frac) << ", \"puts\": " << p.puts
      << ", \"gets\": " << p.gets << ", \"deletes\": " << p.deletes
      << ", \"gc_runs\": " << p.gc_runs << "}";
  }
  j << "]}\n";

  if (c.json) {
    std::cout << j.str();
  } else {
    char buf[4096];
    std::snprintf(
        buf, sizeof(buf),
        "bench: %llu drive(s) x %llu zones x %llu MiB, %s, util %.2f, mix %s, delete %s, "
        "%llu clients, policy %s, placement %s\n"
        "  raw sequential write %.1f MB/s, read %.1f MB/s\n"
        "  fill: %llu objects, %.1f MiB in %.1f s (%.1f MB/s, format overhead WA %.3f)\n"
        "  steady: %.1f s, %llu PUT / %llu GET / %llu DELETE\n"
        "    WA %.3f (device %.1f MiB / user %.1f MiB; GC %.1f MiB, %llu victims, %llu zones "
        "reset)\n"
        "    user %.1f MB/s = %.3f of raw, device %.1f MB/s\n"
        "    PUT ms p50 %.2f p99 %.2f p999 %.2f (p99 with GC %.2f [%llu], without %.2f [%llu])\n"
        "    GET ms p50 %.2f p99 %.2f p999 %.2f (p99 with GC %.2f [%llu], without %.2f [%llu])\n",
        (unsigned long long)c.drives, (unsigned long long)c.zones,
        (unsigned long long)c.zone_mib, c.size_text.c_str(), c.util, c.mix_text.c_str(),
        c.del_text.c_str(), (unsigned long long)c.clients, c.policy_text.c_str(),
        c.separated ? "separated" : "single", raw->write_mbps, raw->read_mbps,
        (unsigned long long)fill.objects, fill.user_bytes / 1048576.0, fill.seconds,
        fill.user_bytes / 1e6 / fill.seconds,
        fill.user_bytes ? static_cast<double>(fill.device_bytes) / fill.user_bytes : 0, secs,
        (unsigned long long)sh.puts.load(), (unsigned long long)sh.gets.load(),
        (unsigned long long)sh.deletes.load(), wa, dev / 1048576.0, user / 1048576.0,
        (k1.gc_bytes_written - k0.gc_bytes_written) / 1048576.0,
        (unsigned long long)(k1.gc_runs - k0.gc_runs),
        (unsigned long long)(k1.gc_zones_reset - k0.gc_zones_reset), user_mbps, ratio,
        dev / 1e6 / secs, lat.put.QuantileMs(0.5), lat.put.QuantileMs(0.99),
        lat.put.QuantileMs(0.999), lat.put_gc.QuantileMs(0.99),
        (unsigned long long)lat.put_gc.count(), lat.put_nogc.QuantileMs(0.99),
        (unsigned long long)lat.put_nogc.count(), lat.get.QuantileMs(0.5),
        lat.get.QuantileMs(0.99), lat.get.QuantileMs(0.999), lat.get_gc.QuantileMs(0.99),
        (unsigned long long)lat.get_gc.count(), lat.get_nogc.QuantileMs(0.99),
        (unsigned long long)lat.get_nogc.count());
    std::cout << buf;
    if (c.oracle) {
      if (oracle.ran) {
        std::printf("  oracle (gc_sim, %llu trace ops): WA floor %.3f, simulated %s/%s WA %.3f\n",
                    (unsigned long long)oracle.trace_ops, oracle.wa_floor,
                    c.policy_text.c_str(), c.separated ? "separated" : "single",
                    oracle.wa_sim_same);
      } else {
        std::printf("  oracle: %s\n", oracle.error.c_str());
      }
    }
    if (!hard.ok()) std::printf("  STOPPED EARLY: %s\n", hard.ToString().c_str());
    std::fflush(stdout);
  }

  if (!c.plot.empty()) {
    const std::string json_path = stem + ".json";
    {
      std::ofstream f(json_path);
      f << j.str();
    }
    std::error_code ec;
    const std::string py = std::filesystem::exists("/usr/bin/python3", ec) ? "/usr/bin/python3"
                                                                           : "python3";
    const std::string cmd = py + " " + ShellQuote(PlotScript()) + " --out " +
                            ShellQuote(c.plot) + " " + ShellQuote(json_path) +
                            (c.json ? " >/dev/null" : "");
    const int rc = std::system(cmd.c_str());
    if (rc != 0) {
      return Fail(kCmd, Status::IOError("plotting failed: " + cmd));
    }
  }
  if (!hard.ok()) {
    std::cerr << "smrstore-tool bench: stopped early: " << hard.ToString() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void AddWorkloadBenchCommand(Cli* cli) {
  cli->Add(
      {"bench", "", "GC workload: write amplification, throughput, latency with GC active",
       "Creates emulated drives in --dir, measures their raw sequential bandwidth, makes a\n"
       "store on them, fills it to --util of its data capacity, then runs a steady state of\n"
       "PUTs (new whole objects), verified GETs and DELETEs from --clients threads while zone\n"
       "GC runs. Reports WA = device bytes / user PUT bytes over the steady state, GC bytes,\n"
       "zones reset, throughput per second, PUT/GET latency percentiles (also split by\n"
       "whether GC made progress during the op), and the user throughput as a ratio to the\n"
       "raw drive. --oracle replays the PUT/DELETE trace through the offline GC simulator.\n"
       "--devices runs the store on existing devices (e.g. zbd:/dev/nullb0; RocksDB in --dir);\n"
       "--fs-dir runs the same workload on a directory, one file per object (a peer file\n"
       "system; PUT = write temp + fsync + rename + fsync dir, DELETE = unlink + fsync dir);\n"
       "--stat-dev adds device-level bytes and WA from the kernel's /sys/block/DEV/stat.\n"
       "JSON fields: doc/performance.md, \"GC workload bench\".",
       0,
       0,
       {{"dir", "DIR", "scratch directory for drives and store (default /var/tmp)"},
        {"devices", "SPEC[,SPEC]", "run the store on these existing devices, not emulated ones"},
        {"force", "", "with --devices: use drives that hold a store (destroys it)"},
        {"fs-dir", "DIR", "run on a directory of files (one per object) instead of the store"},
        {"raw-only", "", "with --devices: only measure the raw sequential bandwidth"},
        {"stat-dev", "DEV[,DEV]", "block devices (e.g. nullb0) for kernel-counted device WA"},
        {"drives", "N", "emulated drives (default 1)"},
        {"zones", "N", "zones per drive (default 64, min 8)"},
        {"zone-mib", "M", "zone size in MiB (default 64)"},
        {"mbps", "X", "HDD timing model: sequential MB/s (default off)"},
        {"seek-ms", "Y", "HDD timing model: positioning ms (default 8 with --mbps)"},
        {"size-dist", "D",
         "fixed:BYTES | mixed (log-uniform 16K..16M) | oss (90% 4-8M short-lived, 10% "
         "4-60K long-lived); default mixed"},
        {"util", "F", "target live bytes as a fraction of data capacity (default 0.8, max 0.95)"},
        {"mix", "R:W:D", "steady-state read:write:delete weights (default 1:4:4)"},
        {"delete", "P",
         "victims: uniform | zipf (theta 0.99 over names with fixed ranks; the paired PUT "
         "overwrites the victim's name) | zipf-random (a random rank per object, fresh "
         "names) | fifo (default uniform)"},
        {"clients", "N", "concurrent client threads, one op each in flight (default 4)"},
        {"duration", "S", "steady-state seconds (default 60)"},
        {"ops", "N", "steady-state operations instead of --duration"},
        {"policy", "P", "GC victim policy: greedy | cost-benefit | lifetime (default lifetime)"},
        {"placement", "P", "single (one stream) | separated (streams by size/GC; default)"},
        {"seed", "N", "random seed (default 1)"},
        {"oracle", "", "replay the trace through gc_sim: oracle WA floor + same-policy WA"},
        {"json", "", "print the result as JSON"},
        {"plot", "FILE.png", "draw the result with tools/plot_bench.py"},
        {"publish", "NAME", "publish the store's stats to ceph-mgr as smrstore.NAME while running"},
        {"ceph-conf", "PATH", "with --publish: ceph.conf (default $CEPH_CONF, /etc/ceph/ceph.conf)"}},
       CmdBench});
}

}  // namespace smr::tool
