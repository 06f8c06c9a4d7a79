// ceph_compat: include/buffer.h — Ceph's real bufferlist.
//
// Debian's libradospp-dev ships Ceph 16.2.15's own buffer header as <rados/buffer.h>; its
// implementation is in librados2's libceph-common.so.2. Nothing is redeclared here: this
// file only gives the adapter the include path it has inside a Ceph tree.
#pragma once

#include <rados/buffer.h>
#include <rados/crc32c.h>
