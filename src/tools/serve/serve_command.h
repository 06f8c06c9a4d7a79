// Registers smrstore-tool serve: mounts a store, optionally runs a steady churn workload
// on it, and publishes its stats to ceph-mgr (publisher.h) until SIGINT/SIGTERM.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "store/store.h"

namespace smr::tool {

void AddServeCommand(Cli* cli);

// The churn workload: a fixed set of object names in one collection, each op one
// transaction chosen with a fixed seed — whole-object PUT (create or replace), partial
// overwrite, delete, or read. The names' count bounds live data to about `fill` of the
// store's capacity, so the store reaches a steady state with GC running.
struct ChurnConfig {
  uint64_t seed = 1;
  uint64_t object_bytes = 1 << 20;  // largest object (sizes are 1/4 .. 1 of this, 4 KiB aligned)
  double fill = 0.5;                // live-data bound as a fraction of statfs.total
  std::string collection = "smrstore.serve";
};

struct ChurnCounts {
  uint64_t puts = 0, overwrites = 0, deletes = 0, reads = 0, no_space = 0;
  uint64_t user_bytes = 0;  // payload bytes written by the churn
};

class Churn {
 public:
  // Creates the collection if needed and learns the sizes of objects a previous run left.
  static Result<std::unique_ptr<Churn>> Prepare(Store* store, const ChurnConfig& config);
  // One operation. kNoSpace is counted and answered with deletes; other errors return.
  Status Step();
  const ChurnCounts& counts() const { return counts_; }
  uint64_t names() const { return sizes_.size(); }

 private:
  Churn(Store* store, ChurnConfig config, std::vector<uint64_t> sizes);
  ObjectId Name(uint64_t i) const;
  uint64_t PickSize();
  Status Put(uint64_t i);
  Status Overwrite(uint64_t i);
  Status Delete(uint64_t i);

  Store* store_;
  ChurnConfig config_;
  std::vector<uint64_t> sizes_;  // 0 = absent
  std::mt19937_64 rng_;
  uint64_t generation_ = 0;  // pattern seed of the next write
  uint64_t pending_deletes_ = 0;
  ChurnCounts counts_;
};

}  // namespace smr::tool
