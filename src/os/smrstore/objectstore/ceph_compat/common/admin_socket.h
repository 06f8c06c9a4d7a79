// ceph_compat: common/admin_socket.h — registering commands on Ceph's real admin socket.
//
// AdminSocket (libceph-common) calls a hook through its vtable, so AdminSocketHook's
// virtual functions are declared in Pacific's order: call, call_async, destructor
// (checked against the vtable of libceph-common's own VersionHook). cmdmap_t is Pacific's
// command map type; the adapter's commands take no arguments and do not read it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <boost/variant.hpp>

#include "common/Formatter.h"
#include "include/buffer.h"

using cmd_vartype = boost::variant<std::string, bool, int64_t, double, std::vector<std::string>,
                                   std::vector<int64_t>, std::vector<double>>;
using cmdmap_t = std::map<std::string, cmd_vartype, std::less<>>;

class AdminSocketHook {
 public:
  // Synchronous handler: a reply in `out` (or through `f`); non-negative on success, a
  // negative errno with a message in `errss` on failure.
  virtual int call(std::string_view command, const cmdmap_t& cmdmap, ceph::Formatter* f,
                   std::ostream& errss, ceph::buffer::list& out) = 0;
  virtual void call_async(std::string_view command, const cmdmap_t& cmdmap, ceph::Formatter* f,
                          const ceph::buffer::list& inbl,
                          std::function<void(int, const std::string&, ceph::buffer::list&)>
                              on_finish) {
    ceph::buffer::list out;
    std::ostringstream errss;
    const int r = call(command, cmdmap, f, errss, out);
    on_finish(r, errss.str(), out);
  }
  virtual ~AdminSocketHook() = default;
};

class AdminSocket {
 public:
  // `cmddesc` is a command descriptor ("smrstore stats"); 0 or a negative errno
  // (-EEXIST when the prefix is taken).
  int register_command(std::string_view cmddesc, AdminSocketHook* hook, std::string_view help);
  void unregister_commands(const AdminSocketHook* hook);
};
