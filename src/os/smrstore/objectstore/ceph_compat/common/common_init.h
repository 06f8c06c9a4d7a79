// ceph_compat: common/common_init.h — finishing a CephContext's start (libceph-common):
// starts its service thread and, when `admin_socket` is set, the admin socket.
#pragma once

#include "common/ceph_context.h"

void common_init_finish(CephContext* cct);
