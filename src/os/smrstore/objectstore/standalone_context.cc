#include "objectstore/standalone_context.h"

#include <rados/librados.h>

#include <stdexcept>

#include "common/common_init.h"

namespace smr::ceph_adapter {

StandaloneCephContext::StandaloneCephContext(const std::string& admin_socket) {
  rados_t cluster = nullptr;
  // An OSD-like entity name; no configuration file and no cluster are needed.
  if (int r = rados_create2(&cluster, "ceph", "client.smrstore-test", 0); r < 0) {
    throw std::runtime_error("rados_create2 failed: " + std::to_string(r));
  }
  cluster_ = cluster;
  rados_conf_set(cluster, "log_to_stderr", "false");
  rados_conf_set(cluster, "err_to_stderr", "false");
  rados_conf_set(cluster, "log_file", "");
  rados_conf_set(cluster, "admin_socket", admin_socket.c_str());
  cct_ = static_cast<CephContext*>(rados_cct(cluster));
  common_init_finish(cct_);
}

StandaloneCephContext::~StandaloneCephContext() {
  if (cluster_ != nullptr) rados_shutdown(static_cast<rados_t>(cluster_));
}

}  // namespace smr::ceph_adapter
