#include "objectstore/ceph_log.h"

#include <time.h>

#include <iostream>
#include <string_view>

#include "common/log.h"

namespace smr::ceph_adapter {
namespace {

constexpr short kSubsysOsd = 24;  // ceph_subsys_osd in 16.2.15 (ceph-osd-dbg)

class TextEntry final : public ceph::logging::Entry {
 public:
  TextEntry(short prio, std::string_view text) : Entry(prio, kSubsysOsd), text_(text) {
    timespec ts;
    ::clock_gettime(CLOCK_REALTIME, &ts);
    m_stamp.count = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
                    static_cast<uint64_t>(ts.tv_nsec);
  }
  std::string_view strv() const override { return text_; }
  std::size_t size() const override { return text_.size(); }

 private:
  std::string_view text_;
};

}  // namespace

void CephLog(CephContext* cct, int level, const std::string& text) {
  const std::string line = "smrstore: " + text;
  if (cct == nullptr) {
    std::cerr << line << std::endl;
    return;
  }
  auto* log = *reinterpret_cast<ceph::logging::Log**>(reinterpret_cast<char*>(cct) +
                                                      CephContext::kLogMemberOffset);
  if (log == nullptr) {
    std::cerr << line << std::endl;
    return;
  }
  TextEntry e(static_cast<short>(level), line);
  log->submit_entry(std::move(e));
  // Errors also go to stderr: a daemon in the foreground (-f, ceph-objectstore-tool) shows
  // them; a daemonized OSD's stderr is /dev/null.
  if (level < 0) std::cerr << line << std::endl;
}

}  // namespace smr::ceph_adapter
