// smrstore-tool bench: object sizes, names, zipf ranks and the live-object pools
// (bench_workload.h).
#include "bench_workload.h"

#include <algorithm>
#include <string>

#include "bench_common.h"

namespace smr::tool::bench {

namespace {

uint64_t Align4k(uint64_t v) { return std::max<uint64_t>(4096, v / 4096 * 4096); }

}  // namespace

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

ObjectId Oid(uint64_t id) { return BenchObject("wb.", id); }

uint64_t PatternSeed(uint64_t run_seed, uint64_t id) {
  return run_seed * 0x9e3779b97f4a7c15ull + id;
}

uint64_t Zipf::Next(uint64_t n, std::mt19937_64& rng) {
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

void Pool::Add(const Obj& o) {
  objs_[o.id] = o;
  pos_[o.id] = ids_.size();
  ids_.push_back(o.id);
  ranks_.insert({o.rank, o.id});
  bytes_ += o.size;
}

Obj* Pool::Find(uint64_t id) {
  auto it = objs_.find(id);
  return it == objs_.end() ? nullptr : &it->second;
}

Obj* Pool::RandomForRead(std::mt19937_64& rng) {
  if (ids_.empty()) return nullptr;
  return Find(ids_[std::uniform_int_distribution<size_t>(0, ids_.size() - 1)(rng)]);
}

bool Pool::TakeVictim(DelPattern pattern, std::mt19937_64& rng, Zipf* zipf, Obj* out) {
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

}  // namespace smr::tool::bench
