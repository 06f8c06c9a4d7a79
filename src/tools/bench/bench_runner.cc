// smrstore-tool bench: the raw leg, the fill and the steady state (bench_runner.h); the
// steady state's clients (Client) and its once-a-second sampler.
#include "bench_runner.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <random>
#include <thread>

#include "common/pattern.h"
#include "device/device_spec.h"

namespace smr::tool::bench {

void Latencies::Merge(const Latencies& o) {
  put.Merge(o.put);
  put_gc.Merge(o.put_gc);
  put_nogc.Merge(o.put_nogc);
  get.Merge(o.get);
  get_gc.Merge(o.get_gc);
  get_nogc.Merge(o.get_nogc);
  del.Merge(o.del);
}

void Shared::Fail(const Status& s) {
  std::lock_guard<std::mutex> lock(err_mu);
  if (error.ok()) {
    error = s;
    no_space = s.IsNoSpace();
  }
  stop = true;
}

// ---------------------------------------------------------------------------------------
// Raw leg.

namespace {

// The offsets of one drive's raw leg: `io`-sized requests from the write pointers of its
// sequential zones past the first two, up to per_drive bytes.
Status RawOffsets(ZonedDevice* dev, uint64_t per_drive, uint64_t io,
                  std::vector<uint64_t>* offsets) {
  const DeviceInfo& info = dev->info();
  SMR_ASSIGN_OR_RETURN(auto zones, dev->ReportZones(0, 0));
  for (const ZoneInfo& z : zones) {
    if (z.is_conventional() || z.start < 2 * info.zone_size) continue;
    for (uint64_t off = 0; off + io <= z.capacity && offsets->size() * io < per_drive;
         off += io) {
      offsets->push_back(z.start + off);
    }
  }
  return Status::OK();
}

}  // namespace

Result<RawResult> RawLeg(const std::vector<std::string>& specs, uint64_t zone_bytes,
                         uint64_t rand_reads) {
  std::vector<std::unique_ptr<ZonedDevice>> devs;
  for (const auto& s : specs) {
    SMR_ASSIGN_OR_RETURN(auto d, OpenDevice(s));
    devs.push_back(std::move(d));
  }
  const uint64_t io = std::min<uint64_t>(4ull << 20, zone_bytes);
  const DeviceInfo& info = devs[0]->info();
  const uint64_t seq_bytes = static_cast<uint64_t>(info.nr_zones) * zone_bytes;
  const uint64_t per_drive = std::max(io, std::min<uint64_t>(512ull << 20, seq_bytes / 4) / io * io);
  std::string data(io, '\0');
  FillPattern(42, 0, data.data(), data.size());
  std::vector<std::vector<uint64_t>> offsets(devs.size());
  for (size_t i = 0; i < devs.size(); ++i) {
    SMR_RETURN_IF_ERROR(RawOffsets(devs[i].get(), per_drive, io, &offsets[i]));
  }
  std::vector<Status> st(devs.size());
  auto run = [&](bool write) {
    std::vector<std::thread> th;
    for (size_t i = 0; i < devs.size(); ++i) {
      th.emplace_back([&, i] {
        std::string buf(io, '\0');
        for (uint64_t off : offsets[i]) {
          Status s = write ? devs[i]->Write(off, data.data(), io) : devs[i]->Read(off, buf.data(), io);
          if (!s.ok()) {
            st[i] = s;
            return;
          }
        }
        if (write) st[i] = devs[i]->Flush();
      });
    }
    for (auto& t : th) t.join();
  };
  RawResult r;
  for (const auto& o : offsets) r.bytes += o.size() * io;
  auto t0 = Clock::now();
  run(true);
  r.write_mbps = static_cast<double>(r.bytes) / 1e6 / Seconds(Clock::now() - t0);
  for (const Status& s : st) SMR_RETURN_IF_ERROR(s);
  t0 = Clock::now();
  run(false);
  r.read_mbps = static_cast<double>(r.bytes) / 1e6 / Seconds(Clock::now() - t0);
  for (const Status& s : st) SMR_RETURN_IF_ERROR(s);
  if (rand_reads > 0) {
    std::vector<double> secs(devs.size(), 0);
    std::vector<std::thread> th;
    for (size_t i = 0; i < devs.size(); ++i) {
      th.emplace_back([&, i] {
        std::mt19937_64 rng(1000 + i);
        const uint64_t blocks = offsets[i].size() * (io / 4096);
        std::uniform_int_distribution<uint64_t> pick(0, blocks - 1);
        std::string buf(4096, '\0');
        const auto t = Clock::now();
        for (uint64_t k = 0; k < rand_reads; ++k) {
          const uint64_t b = pick(rng);
          const uint64_t off = offsets[i][b / (io / 4096)] + (b % (io / 4096)) * 4096;
          Status s = devs[i]->Read(off, buf.data(), buf.size());
          if (!s.ok()) {
            st[i] = s;
            return;
          }
          if (std::memcmp(buf.data(), data.data() + (off - offsets[i][b / (io / 4096)]), 4096) != 0) {
            st[i] = Status::Corruption("raw random read at " + std::to_string(off) +
                                       ": not the bytes written there");
            return;
          }
        }
        secs[i] = Seconds(Clock::now() - t);
      });
    }
    for (auto& t : th) t.join();
    for (const Status& s : st) SMR_RETURN_IF_ERROR(s);
    double sum = 0;
    for (double x : secs) sum += x;
    r.rand_reads = rand_reads * devs.size();
    r.rand_read_mean_ms = sum / static_cast<double>(r.rand_reads) * 1e3;
    r.rand_read_iops = 1e3 / r.rand_read_mean_ms;
  }
  for (auto& d : devs) {
    SMR_ASSIGN_OR_RETURN(auto zones, d->ReportZones(0, 0));
    for (uint32_t z = 0; z < zones.size(); ++z) {
      if (!zones[z].is_conventional()) SMR_RETURN_IF_ERROR(d->ResetZones(z, 1));
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// Fill.

Status Fill(Shared* sh, uint64_t target_bytes, FillResult* out) {
  const Config& c = *sh->cfg;
  std::mt19937_64 rng(c.seed * 7919 + 17);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  constexpr size_t kDepth = 16;
  constexpr uint64_t kBatchBytes = 16ull << 20;
  constexpr size_t kBatchObjects = 32;
  std::mutex wmu;
  std::condition_variable wcv;
  size_t inflight = 0;
  Status first;
  const StoreCounters c0 = sh->tgt->Counters();
  const auto t0 = Clock::now();
  uint64_t reserved = 0;
  while (reserved < target_bytes) {
    auto batch = std::make_shared<std::vector<Obj>>();
    std::vector<std::pair<uint64_t, std::string>> objs;
    uint64_t batch_bytes = 0;
    while (reserved < target_bytes && batch->size() < kBatchObjects && batch_bytes < kBatchBytes) {
      const SizeSample s = SampleSize(c, rng, /*fill=*/true);
      Obj o;
      o.size = s.bytes;
      o.cls = s.cls;
      o.rank = u(rng);
      {
        std::lock_guard<std::mutex> lock(sh->mu);
        o.id = sh->next_id++;
        o.slot = o.id;
        sh->live[o.cls] += o.size;
      }
      std::string data(o.size, '\0');
      FillPattern(PatternSeed(c.seed, o.id), 0, data.data(), data.size());
      objs.emplace_back(o.slot, std::move(data));
      batch->push_back(o);
      batch_bytes += o.size;
      reserved += o.size;
    }
    {
      std::unique_lock<std::mutex> lock(wmu);
      wcv.wait(lock, [&] { return inflight < kDepth; });
      if (!first.ok()) break;
      ++inflight;
    }
    sh->tgt->PutBatch(std::move(objs), [sh, batch, &wmu, &wcv, &inflight, &first](const Status& s) {
      if (s.ok()) {
        std::lock_guard<std::mutex> lock(sh->mu);
        for (const Obj& o : *batch) {
          sh->pools[o.cls].Add(o);
          if (sh->cfg->oracle) sh->trace.push_back({true, o.id, o.size, o.slot});
        }
      }
      std::lock_guard<std::mutex> lock(wmu);
      --inflight;
      if (!s.ok() && first.ok()) first = s;
      wcv.notify_all();
    });
    out->objects += batch->size();
    out->user_bytes += batch_bytes;
  }
  {
    std::unique_lock<std::mutex> lock(wmu);
    wcv.wait(lock, [&] { return inflight == 0; });
  }
  SMR_RETURN_IF_ERROR(first.WithContext("fill phase"));
  out->seconds = Seconds(Clock::now() - t0);
  const StoreCounters c1 = sh->tgt->Counters();
  out->device_bytes = c1.device_bytes_written - c0.device_bytes_written;
  out->store_user_bytes = c1.user_bytes_written - c0.user_bytes_written;
  std::lock_guard<std::mutex> lock(sh->mu);
  sh->target[0] = sh->live[0];
  sh->target[1] = sh->live[1];
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Steady state.

namespace {

class Client {
 public:
  Client(Shared* sh, uint64_t index) : sh_(sh), rng_(sh->cfg->seed * 1000003 + index + 1) {}
  Latencies lat;

  void Run(Clock::time_point deadline) {
    const Config& c = *sh_->cfg;
    const double wsum = c.mix_read + c.mix_write + c.mix_delete;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    // Open loop (Config::rate): this client's arrivals are a Poisson stream.
    std::exponential_distribution<double> gap(c.rate > 0 ? c.rate / static_cast<double>(c.clients)
                                                         : 1.0);
    auto next = Clock::now();
    auto advance = [&] {
      next += std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(gap(rng_)));
    };
    if (c.rate > 0) advance();
    while (!sh_->stop.load()) {
      if (c.ops > 0) {
        if (sh_->ops_claimed.fetch_add(1) >= c.ops) break;
      } else if (Clock::now() >= deadline) {
        break;
      }
      waited_ns_ = 0;
      if (c.rate > 0) {
        std::this_thread::sleep_until(next);
        // Behind schedule (the previous op ended after this one's arrival): that wait is
        // part of this op's latency.
        const auto now = Clock::now();
        if (now > next) waited_ns_ = Nanos(now - next);
        advance();
      }
      const double x = u(rng_) * wsum;
      Status s;
      if (x < c.mix_read) {
        s = Get();
      } else if (x < c.mix_read + c.mix_delete) {
        s = StandaloneDelete();
      } else {
        s = Put();
      }
      if (!s.ok()) {
        sh_->Fail(s);
        break;
      }
    }
    if (c.rate > 0) lag_s = std::max(0.0, Seconds(Clock::now() - next));
  }
  double lag_s = 0;  // open loop, once Run returned: how far behind schedule it ended

 private:
  Status Delete(const Obj& victim) {
    uint64_t ns = 0;
    Shared* sh = sh_;
    const uint64_t id = victim.id, size = victim.size;
    SMR_RETURN_IF_ERROR(sh_->tgt->Remove(
        victim.slot,
        [sh, id, size]() {
          if (sh->cfg->oracle) {
            std::lock_guard<std::mutex> lock(sh->mu);
            sh->trace.push_back({false, id, size});
          }
        },
        &ns).WithContext("DELETE " + Oid(victim.slot).name));
    if (ReusesNames(sh_->cfg->del)) {
      std::lock_guard<std::mutex> lock(sh_->mu);
      sh_->free_names[victim.cls].push_back({victim.slot, victim.rank});
    }
    lat.del.Add(ns + waited_ns_);
    sh_->deletes.fetch_add(1);
    return Status::OK();
  }

  // Picks the class furthest above its target; deletes one of its objects, unless the
  // store is already below target - 2 % (then this becomes a PUT).
  Status StandaloneDelete() {
    Obj victim;
    bool take = false;
    {
      std::lock_guard<std::mutex> lock(sh_->mu);
      const double slack = 0.02 * static_cast<double>(sh_->target_total());
      if (static_cast<double>(sh_->live_total()) > static_cast<double>(sh_->target_total()) - slack) {
        int best = -1;
        double best_ratio = -1;
        for (int k = 0; k < 2; ++k) {
          if (sh_->target[k] == 0 || sh_->pools[k].count() == 0) continue;
          const double r = static_cast<double>(sh_->live[k]) / sh_->target[k];
          if (r > best_ratio) {
            best_ratio = r;
            best = k;
          }
        }
        if (best >= 0 && sh_->pools[best].TakeVictim(sh_->cfg->del, rng_, &sh_->zipf[best], &victim)) {
          sh_->live[best] -= victim.size;
          take = true;
        }
      }
    }
    if (!take) return Put();
    return Delete(victim);
  }

  Status Put() {
    const Config& c = *sh_->cfg;
    const SizeSample s = SampleSize(c, rng_, /*fill=*/false);
    Obj o;
    o.size = s.bytes;
    o.cls = s.cls;
    o.rank = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
    std::vector<Obj> victims;
    bool overwrite = false;  // o replaces victims[0] under its name, in one transaction
    {
      std::lock_guard<std::mutex> lock(sh_->mu);
      const int k = o.cls;
      // Delete + write pair: make room in this class first.
      while (sh_->live[k] + o.size > sh_->target[k]) {
        Obj v;
        if (!sh_->pools[k].TakeVictim(c.del, rng_, &sh_->zipf[k], &v)) break;
        sh_->live[k] -= v.size;
        victims.push_back(v);
      }
      o.id = sh_->next_id++;
      o.slot = o.id;
      if (ReusesNames(c.del)) {
        if (!victims.empty()) {
          overwrite = true;
          o.slot = victims[0].slot;
          o.rank = victims[0].rank;
        } else if (!sh_->free_names[k].empty()) {
          o.slot = sh_->free_names[k].back().first;
          o.rank = sh_->free_names[k].back().second;
          sh_->free_names[k].pop_back();
        }
      }
      sh_->live[k] += o.size;
    }
    for (size_t i = overwrite ? 1 : 0; i < victims.size(); ++i) {
      SMR_RETURN_IF_ERROR(Delete(victims[i]));
    }
    data_.resize(o.size);
    FillPattern(PatternSeed(c.seed, o.id), 0, data_.data(), data_.size());
    uint64_t ns = 0;
    Shared* sh = sh_;
    const Obj replaced = overwrite ? victims[0] : Obj{};
    const uint64_t g0 = sh_->tgt->GcProgress();
    SMR_RETURN_IF_ERROR(sh_->tgt->Put(
        o.slot, data_, overwrite,
        [sh, o, overwrite, replaced]() {
          std::lock_guard<std::mutex> lock(sh->mu);
          sh->pools[o.cls].Add(o);
          if (sh->cfg->oracle) {
            if (overwrite) sh->trace.push_back({false, replaced.id, replaced.size});
            sh->trace.push_back({true, o.id, o.size, o.slot});
          }
        },
        &ns).WithContext("PUT " + Oid(o.slot).name));
    const bool gc = sh_->tgt->GcProgress() != g0;
    ns += waited_ns_;  // open loop: from the scheduled arrival
    lat.put.Add(ns);
    (gc ? lat.put_gc : lat.put_nogc).Add(ns);
    sh_->user_bytes.fetch_add(o.size);
    sh_->puts.fetch_add(1);
    if (overwrite) sh_->deletes.fetch_add(1);
    return Status::OK();
  }

  Status Get() {
    uint64_t id = 0, slot = 0, size = 0;
    {
      std::lock_guard<std::mutex> lock(sh_->mu);
      const size_t n0 = sh_->pools[0].count(), n1 = sh_->pools[1].count();
      if (n0 + n1 == 0) return Put();
      const int k =
          std::uniform_int_distribution<size_t>(0, n0 + n1 - 1)(rng_) < n0 ? 0 : 1;
      Obj* o = sh_->pools[k].RandomForRead(rng_);
      ++o->readers;
      id = o->id;
      slot = o->slot;
      size = o->size;
      cls_ = k;
    }
    const uint64_t g0 = sh_->tgt->GcProgress();
    const auto t0 = Clock::now();
    auto got = sh_->tgt->Read(slot);
    const uint64_t ns = Nanos(Clock::now() - t0) + waited_ns_;
    const bool gc = sh_->tgt->GcProgress() != g0;
    {
      std::lock_guard<std::mutex> lock(sh_->mu);
      if (Obj* o = sh_->pools[cls_].Find(id)) --o->readers;
    }
    if (!got.ok()) return got.status().WithContext("GET " + Oid(slot).name);
    if (got->size() != size) {
      return Status::Corruption("GET " + Oid(slot).name + " returned " +
                                std::to_string(got->size()) + " bytes, expected " +
                                std::to_string(size));
    }
    if (!CheckPattern(PatternSeed(sh_->cfg->seed, id), 0, got->data(), got->size())) {
      return Status::Corruption("GET " + Oid(slot).name + ": content mismatch");
    }
    lat.get.Add(ns);
    (gc ? lat.get_gc : lat.get_nogc).Add(ns);
    sh_->get_bytes.fetch_add(size);
    sh_->gets.fetch_add(1);
    return Status::OK();
  }

  Shared* sh_;
  std::mt19937_64 rng_;
  std::string data_;
  int cls_ = 0;
  uint64_t waited_ns_ = 0;  // open loop: how late the current op started
};

}  // namespace

SteadyResult RunSteady(Shared* sh) {
  const Config& c = *sh->cfg;
  Target* target = sh->tgt;
  SteadyResult r;
  const StoreCounters k0 = r.k0 = target->Counters();
  const auto t0 = r.t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(c.ops ? 1e9 : c.duration));
  std::vector<std::unique_ptr<Client>> clients;
  for (uint64_t i = 0; i < c.clients; ++i) clients.push_back(std::make_unique<Client>(sh, i));
  std::vector<std::thread> threads;
  std::atomic<bool> sampler_stop{false};
  std::vector<Point>& timeline = r.timeline;
  std::thread sampler([&] {
    StoreCounters prev = k0;
    uint64_t prev_user = 0, prev_puts = 0, prev_gets = 0, prev_dels = 0;
    auto last = t0;
    for (int sec = 1; !sampler_stop.load(); ++sec) {
      const auto wake = t0 + std::chrono::seconds(sec);
      while (Clock::now() < wake && !sampler_stop.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      const auto now = Clock::now();
      const double dt = Seconds(now - last);
      if (dt < 0.2) break;  // a short tail at the end: skip
      const StoreCounters k = target->Counters();
      const StoreStatfs st = target->Statfs();
      const uint64_t user = sh->user_bytes.load(), puts = sh->puts.load(),
                     gets = sh->gets.load(), dels = sh->deletes.load();
      Point p;
      p.t = Seconds(now - t0);
      p.user_mbps = static_cast<double>(user - prev_user) / 1e6 / dt;
      p.device_mbps =
          static_cast<double>(k.device_bytes_written - prev.device_bytes_written) / 1e6 / dt;
      p.gc_mbps = static_cast<double>(k.gc_bytes_written - prev.gc_bytes_written) / 1e6 / dt;
      p.wa_so_far = user ? static_cast<double>(k.device_bytes_written - k0.device_bytes_written) /
                               static_cast<double>(user)
                         : 0;
      p.free_frac = st.total ? static_cast<double>(st.available) / st.total : 0;
      p.puts = puts - prev_puts;
      p.gets = gets - prev_gets;
      p.deletes = dels - prev_dels;
      p.gc_runs = k.gc_runs - prev.gc_runs;
      timeline.push_back(p);
      prev = k;
      prev_user = user;
      prev_puts = puts;
      prev_gets = gets;
      prev_dels = dels;
      last = now;
    }
  });
  for (auto& cl : clients) threads.emplace_back([&cl, deadline] { cl->Run(deadline); });
  for (auto& t : threads) t.join();
  r.t1 = Clock::now();
  sampler_stop = true;
  sampler.join();
  for (auto& cl : clients) {
    r.lat.Merge(cl->lat);
    r.open_loop_lag_s = std::max(r.open_loop_lag_s, cl->lag_s);
  }
  return r;
}

}  // namespace smr::tool::bench
