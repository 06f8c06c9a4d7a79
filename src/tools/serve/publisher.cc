// StatsPublisher over librados' C API (Debian librados-dev: <rados/librados.h>). The only
// file of smrstore-tool that includes librados; the engine libraries never link it.
// Built without librados (not found, or -DSMRSTORE_WITH_RADOS=OFF: SMRSTORE_HAVE_RADOS
// undefined), ValidatePublisherOptions and Start refuse --publish with kNotSupported.
#include "common/json.h"
#include "publisher.h"

#ifdef SMRSTORE_HAVE_RADOS
#include <rados/librados.h>
#endif
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>

#ifndef SMRSTORE_VERSION
#error "SMRSTORE_VERSION must be defined by the build (src/tools/CMakeLists.txt)"
#endif

namespace smr::tool {

namespace {

constexpr char kService[] = "smrstore";
constexpr char kSchema[] = "smrstore.stats/1";

#ifndef SMRSTORE_HAVE_RADOS
constexpr char kNoRados[] =
    "this smrstore-tool was built without librados, so --publish is not available "
    "(install Debian's librados-dev and rebuild, or configure with -DSMRSTORE_WITH_RADOS=ON)";
#endif

[[maybe_unused]] std::string RadosError(int ret) { return std::strerror(ret < 0 ? -ret : ret); }

[[maybe_unused]] std::string Hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

Status ValidatePublisherOptions(const PublisherOptions& o) {
#ifndef SMRSTORE_HAVE_RADOS
  return Status::NotSupported(kNoRados);
#endif
  if (o.name.empty() || o.name.size() > 64) {
    return Status::InvalidArgument("service daemon name must have 1 to 64 characters");
  }
  for (char ch : o.name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
    if (!ok) {
      return Status::InvalidArgument("service daemon name '" + o.name +
                                     "': only letters, digits, '_', '.' and '-' are allowed");
    }
  }
  if (!(o.interval_s >= 0.5 && o.interval_s <= 3600)) {
    return Status::InvalidArgument("publish interval must be between 0.5 and 3600 seconds");
  }
  if (o.client_id.empty()) return Status::InvalidArgument("empty Ceph client id");
  if (o.timeout_s == 0 || o.timeout_s > 600) {
    return Status::InvalidArgument("Ceph timeout must be between 1 and 600 seconds");
  }
  return Status::OK();
}

KeyValues ServiceStatus(const std::string& compact_document,
                        const std::vector<DriveZoneMaps>& maps) {
  KeyValues kv;
  kv.emplace_back("schema", kSchema);
  kv.emplace_back("stats", compact_document);
  for (size_t i = 0; i < maps.size(); ++i) {
    kv.emplace_back("zonemap." + std::to_string(i), maps[i].zonemap);
    kv.emplace_back("streams." + std::to_string(i), maps[i].streams);
  }
  return kv;
}

Result<std::string> EncodeServiceDict(const KeyValues& kv) {
  std::string out;
  for (const auto& [k, v] : kv) {
    if (k.empty()) return Status::InvalidArgument("empty key in a service dict");
    if (k.find('\0') != std::string::npos || v.find('\0') != std::string::npos) {
      return Status::InvalidArgument("NUL byte in service dict entry '" + k + "'");
    }
    out += k;
    out.push_back('\0');
    out += v;
    out.push_back('\0');
  }
  out.push_back('\0');  // the empty key that ends the dict
  return out;
}

#ifdef SMRSTORE_HAVE_RADOS
struct StatsPublisher::Impl {
  Store* store = nullptr;
  PublisherOptions options;
  rados_t cluster = nullptr;

  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  bool stopped = false;
  uint64_t updates = 0;
  int last_error = 0;  // of the previous update, to report each change once
  std::thread thread;

  ~Impl() {
    if (cluster) rados_shutdown(cluster);
  }

  // Takes a snapshot and hands it to librados (which sends it with its next mgr report).
  int Publish() {
    std::vector<DriveZoneMaps> maps;
    StatsDocumentOptions compact;
    compact.zone_maps = false;
    const std::string doc = store->StatsDocument(options.name, compact, &maps);
    auto dict = EncodeServiceDict(ServiceStatus(doc, maps));
    if (!dict.ok()) {  // cannot happen: JSON and zone maps hold no NUL
      std::cerr << "smrstore-tool publish: " << dict.status().ToString() << "\n";
      return -EINVAL;
    }
    const int r = rados_service_update_status(cluster, dict->c_str());
    std::lock_guard<std::mutex> lock(mu);
    if (r == 0) ++updates;
    if (r != last_error) {
      if (r < 0) {
        std::cerr << "smrstore-tool publish: status update of " << kService << "."
                  << options.name << " failed: " << RadosError(r) << " (retrying every "
                  << options.interval_s << " s)\n";
      } else {
        std::cerr << "smrstore-tool publish: status updates of " << kService << "."
                  << options.name << " work again\n";
      }
      last_error = r;
    }
    return r;
  }

  void Loop() {
    const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(options.interval_s));
    auto next = std::chrono::steady_clock::now() + interval;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait_until(lock, next, [&] { return stopping; });
        if (stopping) return;
      }
      Publish();
      next += interval;
      const auto now = std::chrono::steady_clock::now();
      if (next < now) next = now + interval;  // a slow snapshot: skip, do not burst
    }
  }
};

StatsPublisher::StatsPublisher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StatsPublisher::~StatsPublisher() { Stop(); }

Result<std::unique_ptr<StatsPublisher>> StatsPublisher::Start(Store* store,
                                                              const PublisherOptions& options) {
  SMR_RETURN_IF_ERROR(ValidatePublisherOptions(options));
  auto impl = std::make_unique<Impl>();
  impl->store = store;
  impl->options = options;
  const std::string who = "client." + options.client_id;
  const std::string conf_name = options.ceph_conf.empty()
                                    ? std::string("the default ceph.conf ($CEPH_CONF or /etc/ceph)")
                                    : options.ceph_conf;
  int r = rados_create(&impl->cluster, options.client_id.c_str());
  if (r < 0) {
    impl->cluster = nullptr;
    return Status::IOError("librados: cannot create a handle for " + who + ": " + RadosError(r));
  }
  r = rados_conf_read_file(impl->cluster,
                           options.ceph_conf.empty() ? nullptr : options.ceph_conf.c_str());
  if (r < 0) {
    return Status::InvalidArgument("cannot read " + conf_name + ": " + RadosError(r));
  }
  r = rados_conf_parse_env(impl->cluster, nullptr);  // CEPH_ARGS
  if (r < 0) return Status::InvalidArgument("CEPH_ARGS: " + RadosError(r));
  // Fail in seconds, not in librados' default of 5 minutes, when no monitor answers.
  const std::string timeout = std::to_string(options.timeout_s);
  for (const char* key : {"client_mount_timeout", "rados_mon_op_timeout", "rados_osd_op_timeout"}) {
    r = rados_conf_set(impl->cluster, key, timeout.c_str());
    if (r < 0) return Status::InvalidArgument(std::string("librados option ") + key + ": " +
                                              RadosError(r));
  }
  // No admin socket: its default path ($run_dir/$cluster-$name.asok) is shared by every
  // client.admin process (the ceph CLI, a second serve) and they would fight over it.
  r = rados_conf_set(impl->cluster, "admin_socket", "");
  if (r < 0) return Status::InvalidArgument("librados option admin_socket: " + RadosError(r));
  r = rados_connect(impl->cluster);
  if (r < 0) {
    return Status::IOError("cannot connect to the Ceph cluster of " + conf_name + " as " + who +
                           ": " + RadosError(r) +
                           (r == -ETIMEDOUT ? " (no monitor answered within " + timeout + " s)"
                                            : std::string()));
  }
  std::vector<DriveZoneMaps> maps;
  StatsDocumentOptions compact;
  compact.zone_maps = false;
  const Json doc = store->StatsDocumentJson(options.name, compact, &maps);
  // The metadata repeats what a reader needs before the first status arrives.
  const std::string uuid = doc.at("store").at("uuid").get<std::string>();
  auto metadata = EncodeServiceDict({{"smrstore_version", SMRSTORE_VERSION},
                                     {"store_uuid", uuid},
                                     {"drives", std::to_string(maps.size())},
                                     {"hostname", Hostname()}});
  if (!metadata.ok()) return metadata.status();
  r = rados_service_register(impl->cluster, kService, options.name.c_str(), metadata->c_str());
  if (r < 0) {
    return Status::IOError(std::string("cannot register service daemon ") + kService + "." +
                           options.name + ": " + RadosError(r));
  }
  r = impl->Publish();
  if (r < 0) {
    return Status::IOError(std::string("first status update of ") + kService + "." +
                           options.name + " failed: " + RadosError(r));
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->Loop(); });
  return std::unique_ptr<StatsPublisher>(new StatsPublisher(std::move(impl)));
}

void StatsPublisher::Stop() {
  if (!impl_) return;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopping = true;
    impl_->stopped = true;
  }
  impl_->cv.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
  rados_shutdown(impl_->cluster);
  impl_->cluster = nullptr;
}

uint64_t StatsPublisher::updates() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->updates;
}

#else  // !SMRSTORE_HAVE_RADOS: no publisher; every --publish is refused before it starts.

struct StatsPublisher::Impl {};

StatsPublisher::StatsPublisher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StatsPublisher::~StatsPublisher() { Stop(); }

Result<std::unique_ptr<StatsPublisher>> StatsPublisher::Start(Store*, const PublisherOptions&) {
  return Status::NotSupported(kNoRados);
}

void StatsPublisher::Stop() {}

uint64_t StatsPublisher::updates() const { return 0; }

#endif  // SMRSTORE_HAVE_RADOS

}  // namespace smr::tool
