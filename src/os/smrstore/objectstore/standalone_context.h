// A real CephContext for the tools and tests that run the adapter outside an OSD, made by
// librados (rados_create2 + rados_cct) without connecting to a cluster, then finished with
// common_init_finish so that its admin socket (when `admin_socket` is given) serves.
#pragma once

#include <string>

#include "common/ceph_context.h"

namespace smr::ceph_adapter {

class StandaloneCephContext {
 public:
  // `admin_socket`: path of the admin socket to serve ("" = none).
  explicit StandaloneCephContext(const std::string& admin_socket = "");
  ~StandaloneCephContext();
  StandaloneCephContext(const StandaloneCephContext&) = delete;
  StandaloneCephContext& operator=(const StandaloneCephContext&) = delete;

  CephContext* get() const { return cct_; }

 private:
  void* cluster_ = nullptr;  // rados_t
  CephContext* cct_ = nullptr;
};

}  // namespace smr::ceph_adapter
