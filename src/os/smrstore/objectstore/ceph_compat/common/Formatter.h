// ceph_compat: common/Formatter.h — ceph::Formatter is only named by the interface here.
// The adapter never calls a Formatter (its admin-socket replies are JSON it writes
// itself), so no class layout or vtable is declared.
#pragma once

namespace ceph {
class Formatter;
}
