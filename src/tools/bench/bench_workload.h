// smrstore-tool bench: what the generator writes and deletes. Object sizes (--size-dist),
// names and content seeds, the zipf rank generator, and Pool: the live objects of one size
// class, indexed so that every --delete pattern (uniform, zipf over ranks, fifo) picks its
// victim in O(log n).
// Object content is FillPattern(PatternSeed(run seed, id)): regenerated, never kept.
// Thread safety: none of these types is synchronized; the run keeps its pools and zipf
// generators under Shared::mu (bench_runner.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <functional>
#include <map>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bench_config.h"
#include "format/object_id.h"

namespace smr::tool::bench {

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

// The size (and class) of a new object: `fill` for the fill phase, else the steady state.
SizeSample SampleSize(const Config& c, std::mt19937_64& rng, bool fill);
// The largest object --size-dist can draw.
uint64_t MaxObjectBytes(const Config& c);
// The store name of slot `id`: "wb.<id>" in pool 1.
ObjectId Oid(uint64_t id);
// The FillPattern seed of incarnation `id`.
uint64_t PatternSeed(uint64_t run_seed, uint64_t id);

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
  uint64_t Next(uint64_t n, std::mt19937_64& rng);

 private:
  double theta_, zeta2_;
  uint64_t zn_ = 0;
  double zeta_ = 0;
};

class Pool {
 public:
  size_t count() const { return objs_.size(); }
  uint64_t bytes() const { return bytes_; }

  void Add(const Obj& o);
  Obj* Find(uint64_t id);
  Obj* RandomForRead(std::mt19937_64& rng);
  // Removes and returns a victim by `pattern`, skipping objects being read. False if every
  // live object is being read (or there is none).
  bool TakeVictim(DelPattern pattern, std::mt19937_64& rng, Zipf* zipf, Obj* out);

 private:
  std::map<uint64_t, Obj> objs_;  // by id = creation order (fifo)
  std::vector<uint64_t> ids_;     // uniform choice
  std::unordered_map<uint64_t, size_t> pos_;
  RankTree ranks_;  // zipf choice
  uint64_t bytes_ = 0;
};

}  // namespace smr::tool::bench
