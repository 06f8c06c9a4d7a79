// StatsPublisher: a mounted store's stats document (doc/stats-schema.md) published to
// ceph-mgr as a librados service daemon of service type `smrstore`.
//
// Contract
//   Start() connects to the cluster (ceph.conf + client id), registers the daemon
//   `smrstore.<name>` in the service map with static metadata (smrstore_version,
//   store_uuid, drives, hostname), sends a first status at once and then every `interval`
//   seconds from its own thread: `schema`, `stats` (the document without zone maps, one
//   line of JSON) and per drive `zonemap.<i>` / `streams.<i>`. Start fails within about
//   `timeout_s` seconds with a clear error when the cluster cannot be reached.
//   Stop() (and the destructor) ends the thread and shuts the librados handle down; the
//   mgr then drops the daemon from the service map.
//   A status update that fails later is reported on stderr (once per change of error) and
//   retried at the next interval; librados reconnects to mgr/mon on its own.
//
// Thread safety: Start/Stop from one thread. The store must stay mounted until Stop()
// returned.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "store/store.h"

namespace smr::tool {

struct PublisherOptions {
  std::string name;       // service daemon name: 1-64 of [A-Za-z0-9_.-]
  std::string ceph_conf;  // empty: librados' default search ($CEPH_CONF, /etc/ceph/...)
  std::string client_id = "admin";
  double interval_s = 5.0;  // between status updates, 0.5 .. 3600
  uint32_t timeout_s = 10;  // connecting and monitor commands give up after this
};

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Checks the options (name charset, interval range); kInvalidArgument says what is wrong.
Status ValidatePublisherOptions(const PublisherOptions& options);

// The service status map of doc/stats-schema.md from a compact stats document (no zone
// maps) and the drives' zone maps of the same snapshot.
KeyValues ServiceStatus(const std::string& compact_document,
                        const std::vector<DriveZoneMaps>& maps);

// librados' dict encoding (rados_service_register / rados_service_update_status):
// "key\0value\0key\0value\0\0". kInvalidArgument if a key is empty or any string holds NUL.
Result<std::string> EncodeServiceDict(const KeyValues& kv);

class StatsPublisher {
 public:
  static Result<std::unique_ptr<StatsPublisher>> Start(Store* store,
                                                       const PublisherOptions& options);
  ~StatsPublisher();
  StatsPublisher(const StatsPublisher&) = delete;
  StatsPublisher& operator=(const StatsPublisher&) = delete;

  // Ends the thread and disconnects. Idempotent.
  void Stop();
  // Status updates librados accepted so far.
  uint64_t updates() const;

  struct Impl;

 private:
  explicit StatsPublisher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace smr::tool
