// smrstore-tool serve: a long-running store process for demos and telemetry — mounts the
// store, runs an optional churn workload, publishes stats to ceph-mgr, unmounts cleanly
// on SIGINT/SIGTERM.
//
// Signals: SIGINT and SIGTERM are blocked in every thread (the mask is set before any
// thread starts) and taken synchronously by the main thread with sigtimedwait, so no
// handler runs in the middle of the store's or librados' code.
#include "serve_command.h"

#include <signal.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "common/pattern.h"
#include "publisher.h"

namespace smr::tool {

namespace {

constexpr char kCmd[] = "serve";
using Clock = std::chrono::steady_clock;

int UsageError(const Status& s) {
  std::cerr << "smrstore-tool " << kCmd << ": " << s.ToString() << " (see smrstore-tool "
            << kCmd << " --help)\n";
  return 2;
}

Result<double> ParseSeconds(const Args& args, const std::string& name, double fallback,
                            double lo, double hi) {
  if (!args.has(name)) return fallback;
  const std::string text = args.get(name);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi) {
    char range[96];
    std::snprintf(range, sizeof(range), "%g and %g", lo, hi);
    return Status::InvalidArgument("--" + name + " '" + text + "': expected a number between " +
                                   range);
  }
  return v;
}

std::string Mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Churn

Churn::Churn(Store* store, ChurnConfig config, std::vector<uint64_t> sizes)
    : store_(store), config_(std::move(config)), sizes_(std::move(sizes)), rng_(config_.seed) {
  generation_ = config_.seed << 32;
}

ObjectId Churn::Name(uint64_t i) const {
  ObjectId o;
  o.pool = 1;
  o.name = "churn." + std::to_string(i);
  o.hash = static_cast<uint32_t>(i * 2654435761u);  // spread over Ceph's hash order
  return o;
}

Result<std::unique_ptr<Churn>> Churn::Prepare(Store* store, const ChurnConfig& config) {
  if (config.object_bytes < 16384 || config.object_bytes > (64u << 20) ||
      config.object_bytes % 4096 != 0) {
    return Status::InvalidArgument(
        "--object-size must be a multiple of 4 KiB between 16 KiB and 64 MiB");
  }
  if (!(config.fill > 0 && config.fill <= 0.8)) {
    return Status::InvalidArgument("--fill must be above 0 and at most 0.8");
  }
  const uint64_t total = store->Statfs().total;
  const uint64_t names = static_cast<uint64_t>(config.fill * static_cast<double>(total)) /
                         config.object_bytes;
  if (names < 4) {
    return Status::InvalidArgument("the store (" + Mib(total) + " MiB) is too small for --fill " +
                                   std::to_string(config.fill) + " of " +
                                   std::to_string(config.object_bytes) +
                                   "-byte objects (fewer than 4 objects)");
  }
  SMR_ASSIGN_OR_RETURN(const bool have_collection, store->CollectionExists(config.collection));
  if (!have_collection) {
    Transaction t;
    t.MkColl(config.collection, 0);
    SMR_RETURN_IF_ERROR(store->Apply(std::move(t)));
  }
  std::unique_ptr<Churn> churn(new Churn(store, config, std::vector<uint64_t>(names, 0)));
  // A previous run's objects (serve restarted on the same store): learn their sizes.
  for (uint64_t i = 0; i < names; ++i) {
    auto st = store->Stat(config.collection, churn->Name(i));
    if (st.ok()) {
      churn->sizes_[i] = st->size;
    } else if (!st.status().IsNotFound()) {
      return st.status().WithContext("stat " + churn->Name(i).name);
    }
  }
  return churn;
}

uint64_t Churn::PickSize() {
  const uint64_t blocks = config_.object_bytes / 4096;
  std::uniform_int_distribution<uint64_t> d(std::max<uint64_t>(1, blocks / 4), blocks);
  return d(rng_) * 4096;
}

Status Churn::Put(uint64_t i) {
  const uint64_t size = PickSize();
  std::string data(size, '\0');
  FillPattern(++generation_, 0, data.data(), size);
  Transaction t;
  if (sizes_[i] > 0) t.Truncate(config_.collection, Name(i), 0);
  t.Write(config_.collection, Name(i), 0, std::move(data));
  SMR_RETURN_IF_ERROR(store_->Apply(std::move(t)));
  sizes_[i] = size;
  ++counts_.puts;
  counts_.user_bytes += size;
  return Status::OK();
}

Status Churn::Overwrite(uint64_t i) {
  // 4..64 KiB at a 4 KiB-aligned offset inside the object (a partial update).
  const uint64_t blocks = sizes_[i] / 4096;
  std::uniform_int_distribution<uint64_t> len_d(1, std::min<uint64_t>(16, blocks));
  const uint64_t len = len_d(rng_) * 4096;
  std::uniform_int_distribution<uint64_t> off_d(0, (sizes_[i] - len) / 4096);
  const uint64_t off = off_d(rng_) * 4096;
  std::string data(len, '\0');
  FillPattern(++generation_, off, data.data(), len);
  Transaction t;
  t.Write(config_.collection, Name(i), off, std::move(data));
  SMR_RETURN_IF_ERROR(store_->Apply(std::move(t)));
  ++counts_.overwrites;
  counts_.user_bytes += len;
  return Status::OK();
}

Status Churn::Delete(uint64_t i) {
  Transaction t;
  t.Remove(config_.collection, Name(i));
  SMR_RETURN_IF_ERROR(store_->Apply(std::move(t)));
  sizes_[i] = 0;
  ++counts_.deletes;
  return Status::OK();
}

Status Churn::Step() {
  std::uniform_int_distribution<uint64_t> pick(0, sizes_.size() - 1);
  const uint64_t i = pick(rng_);
  Status s;
  if (pending_deletes_ > 0) {
    // After kNoSpace: free room first (GC needs dead bytes to reclaim).
    if (sizes_[i] > 0) {
      s = Delete(i);
      if (s.ok()) --pending_deletes_;
    }
    return s;
  }
  // Weights: PUT 45 %, partial overwrite 25 %, delete 15 %, read 15 %. A name that does not
  // exist is created by any write-type op.
  const uint64_t r = std::uniform_int_distribution<uint64_t>(0, 99)(rng_);
  if (sizes_[i] < 4096 || r < 45) {  // absent (or too small to overwrite part of)
    if (r >= 85 && sizes_[i] == 0) return Status::OK();  // a read of a missing name: a no-op
    s = Put(i);
  } else if (r < 70) {
    s = Overwrite(i);
  } else if (r < 85) {
    s = Delete(i);
  } else {
    auto data = store_->Read(config_.collection, Name(i), 0, 0);
    s = data.status();
    if (s.ok() && data->size() != sizes_[i]) {
      s = Status::Corruption(Name(i).name + ": read " + std::to_string(data->size()) +
                             " bytes, the churn wrote " + std::to_string(sizes_[i]));
    }
    if (s.ok()) ++counts_.reads;
  }
  if (s.IsNoSpace()) {
    ++counts_.no_space;
    pending_deletes_ = std::max<uint64_t>(4, sizes_.size() / 16);
    return Status::OK();
  }
  return s;
}

// ---------------------------------------------------------------------------------------
// serve

namespace {

int CmdServe(const Args& args) {
  const std::string dir = args.positional()[0];
  PublisherOptions pub;
  pub.name = args.get("publish");
  pub.ceph_conf = args.get("ceph-conf");
  pub.client_id = args.get("client-id", "admin");
  const bool publish = args.has("publish");
  auto interval = ParseSeconds(args, "interval", 5.0, 0.5, 3600);
  if (!interval.ok()) return UsageError(interval.status());
  pub.interval_s = *interval;
  auto timeout = ParseSeconds(args, "ceph-timeout", 10.0, 1, 600);
  if (!timeout.ok()) return UsageError(timeout.status());
  pub.timeout_s = static_cast<uint32_t>(*timeout);
  auto duration = ParseSeconds(args, "duration", 0.0, 0.0, 1e9);
  if (!duration.ok()) return UsageError(duration.status());
  auto rate = ParseSeconds(args, "rate", 10.0, 0.1, 100000);
  if (!rate.ok()) return UsageError(rate.status());
  auto fill = ParseSeconds(args, "fill", 0.5, 0.0, 1.0);
  if (!fill.ok()) return UsageError(fill.status());
  auto object_size = args.size("object-size", 1 << 20);
  if (!object_size.ok()) return UsageError(object_size.status());
  auto seed = args.number("seed", 1);
  if (!seed.ok()) return UsageError(seed.status());
  const std::string workload = args.get("workload", "none");
  if (workload != "none" && workload != "churn") {
    return UsageError(Status::InvalidArgument("--workload '" + workload +
                                              "': expected none or churn"));
  }
  if (publish) {
    if (Status s = ValidatePublisherOptions(pub); !s.ok()) return UsageError(s);
  } else if (args.has("ceph-conf") || args.has("client-id") || args.has("ceph-timeout")) {
    return UsageError(
        Status::InvalidArgument("--ceph-conf, --client-id and --ceph-timeout need --publish"));
  }

  // Block the stop signals before any thread exists, so every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  if (int e = pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr); e != 0) {
    return Fail(kCmd, Status::FromErrno(e, "pthread_sigmask"));
  }

  auto opened = Store::Open(dir);
  if (!opened.ok()) return Fail(kCmd, opened.status().WithContext("mount " + dir));
  std::unique_ptr<Store> store = std::move(*opened);
  store->SetGcAuto(true);  // a long run needs zone GC whatever the store was made with
  auto unmount = [&](int rc) {
    if (Status s = store->Close(); !s.ok()) return Fail(kCmd, s.WithContext("unmount"));
    return rc;
  };

  std::unique_ptr<Churn> churn;
  if (workload == "churn") {
    ChurnConfig cc;
    cc.seed = *seed;
    cc.object_bytes = *object_size;
    cc.fill = *fill;
    auto prepared = Churn::Prepare(store.get(), cc);
    if (!prepared.ok()) {
      const int rc = prepared.status().IsInvalidArgument() ? UsageError(prepared.status())
                                                           : Fail(kCmd, prepared.status());
      return unmount(rc);
    }
    churn = std::move(*prepared);
  }

  std::unique_ptr<StatsPublisher> publisher;
  if (publish) {
    auto started = StatsPublisher::Start(store.get(), pub);
    if (!started.ok()) return unmount(Fail(kCmd, started.status()));
    publisher = std::move(*started);
  }
  std::cout << "serve: " << dir << " mounted"
            << (publish ? ", publishing as smrstore." + pub.name : std::string())
            << (churn ? ", churn over " + std::to_string(churn->names()) + " names at " +
                            args.get("rate", "10") + " ops/s"
                      : std::string())
            << "; stop with SIGINT or SIGTERM" << std::endl;

  // The workload thread: one op per 1/rate seconds (or slower, if the store is slower).
  std::atomic<bool> stop{false};
  Status workload_error;
  std::mutex status_mu;
  std::thread worker;
  if (churn) {
    worker = std::thread([&] {
      const auto period = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / *rate));
      auto next = Clock::now();
      while (!stop.load()) {
        Status s = churn->Step();
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(status_mu);
          workload_error = s;
          stop = true;
          ::kill(::getpid(), SIGTERM);  // wakes the main thread's sigtimedwait
          return;
        }
        next += period;
        const auto now = Clock::now();
        if (next < now - std::chrono::seconds(1)) next = now;  // behind: do not burst
        while (!stop.load() && Clock::now() < next) {
          std::this_thread::sleep_for(
              std::min<Clock::duration>(next - Clock::now(), std::chrono::milliseconds(100)));
        }
      }
    });
  }

  // Main thread: wait for a stop signal (or --duration), printing a line per interval.
  const auto t0 = Clock::now();
  int signal_seen = 0;
  for (;;) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    if (*duration > 0 && elapsed >= *duration) break;
    double wait = pub.interval_s;
    if (*duration > 0) wait = std::min(wait, *duration - elapsed);
    timespec ts;
    ts.tv_sec = static_cast<time_t>(wait);
    ts.tv_nsec = static_cast<long>((wait - static_cast<double>(ts.tv_sec)) * 1e9);
    const int sig = sigtimedwait(&stop_signals, nullptr, &ts);
    if (sig > 0) {
      signal_seen = sig;
      break;
    }
    const double now = std::chrono::duration<double>(Clock::now() - t0).count();
    const StoreCounters c = store->Counters();
    const StoreStatfs st = store->Statfs();
    const std::string published =
        publisher ? " published " + std::to_string(publisher->updates()) : std::string();
    char line[320];
    std::snprintf(line, sizeof(line),
                  "serve: t=%.0fs user %s MiB device %s MiB WA %.3f gc runs %llu zones reset "
                  "%llu stored %s MiB available %.1f %%%s",
                  now, Mib(c.user_bytes_written).c_str(), Mib(c.device_bytes_written).c_str(),
                  c.user_bytes_written ? static_cast<double>(c.device_bytes_written) /
                                             static_cast<double>(c.user_bytes_written)
                                       : 0.0,
                  static_cast<unsigned long long>(c.gc_runs),
                  static_cast<unsigned long long>(c.gc_zones_reset), Mib(st.stored).c_str(),
                  st.total ? 100.0 * static_cast<double>(st.available) / st.total : 0.0,
                  published.c_str());
    std::cout << line << std::endl;
  }
  stop = true;
  if (worker.joinable()) worker.join();
  if (publisher) publisher->Stop();
  Status werr;
  {
    std::lock_guard<std::mutex> lock(status_mu);
    werr = workload_error;
  }
  if (churn) {
    const ChurnCounts& n = churn->counts();
    std::cout << "serve: churn puts " << n.puts << " overwrites " << n.overwrites << " deletes "
              << n.deletes << " reads " << n.reads << " no-space " << n.no_space << ", "
              << Mib(n.user_bytes) << " MiB written" << std::endl;
  }
  const int rc = unmount(werr.ok() ? 0 : Fail(kCmd, werr.WithContext("churn workload")));
  if (rc == 0) {
    std::cout << "serve: " << dir << " unmounted"
              << (signal_seen ? std::string(" (") + strsignal(signal_seen) + ")" : std::string())
              << std::endl;
  }
  return rc;
}

}  // namespace

void AddServeCommand(Cli* cli) {
  cli->Add({"serve", "STORE", "mount a store, run a churn load, publish stats to ceph-mgr",
            "Mounts STORE (made with mkfs) and keeps it mounted until SIGINT or SIGTERM\n"
            "(or --duration), then unmounts cleanly. Zone GC runs in the background.\n"
            "--publish NAME registers the librados service daemon smrstore.NAME and sends\n"
            "the stats document of doc/stats-schema.md every --interval seconds (keys\n"
            "schema, stats, zonemap.<i>, streams.<i>); fails within --ceph-timeout seconds\n"
            "if the cluster is unreachable. --workload churn runs one transaction per\n"
            "1/--rate s over a fixed set of names (PUT 45 %, partial overwrite 25 %,\n"
            "delete 15 %, read 15 %; seeded) whose count bounds live data to --fill of the\n"
            "capacity. Prints a progress line every --interval seconds.",
            1,
            1,
            {{"publish", "NAME", "publish stats as service daemon smrstore.NAME"},
             {"ceph-conf", "PATH", "ceph.conf (default: $CEPH_CONF, /etc/ceph/ceph.conf)"},
             {"client-id", "ID", "Ceph client id (default admin)"},
             {"ceph-timeout", "S", "give up connecting after S seconds (default 10)"},
             {"interval", "S", "seconds between status updates and progress lines (default 5)"},
             {"workload", "W", "none (default) or churn"},
             {"rate", "OPS", "churn operations per second (default 10)"},
             {"object-size", "BYTES", "largest churn object, 4 KiB multiple (default 1M)"},
             {"fill", "F", "churn live-data bound, fraction of capacity (default 0.5, max 0.8)"},
             {"seed", "N", "churn random seed (default 1)"},
             {"duration", "S", "stop after S seconds (default: run until a signal)"}},
            CmdServe});
}

}  // namespace smr::tool
