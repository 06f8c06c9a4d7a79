// smrstore-tool storebench: object PUT/GET throughput of the store as a ratio to the raw
// sequential throughput of the same emulated drive, measured in the same run.
//
// Method (each round, alternating which leg goes first; one warm-up round not counted):
//   raw leg   - ZonedDevice writes of `size`-byte requests at the write pointers of the
//               drive's data zones, one flush at the end; then reads them back; then resets
//               the zones.
//   store leg - mkfs a store on the same drive (RocksDB in the scratch directory), PUT the
//               same bytes as objects of `size` bytes (one transaction each, `depth`
//               transactions in flight so group commit can batch flushes), then GET them
//               all, then unmount and wipe.
//   The ratios (store / raw) of each round are reported as a median with their IQR.
// Then small-object PUT rates: 4 KiB and 64 KiB objects, `depth` in flight, ops/s.
// Every PUT is durable when acknowledged (data flushed, RocksDB synced).
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "bench_common.h"
#include "common/pattern.h"
#include "device/device_spec.h"
#include "cli/quantile.h"
#include "storebench.h"
#include "store/store.h"

namespace smr::tool {

namespace {

ObjectId Oid(uint64_t i) { return BenchObject("bench.", i); }

struct Legs {
  double raw_write = 0, raw_read = 0, put = 0, get = 0;  // MB/s
  double put_wa = 0;  // device bytes / user bytes of the store leg's PUTs
  double put_writes_per_mib = 0;  // device write commands per MiB the PUTs wrote
  double put_buffers_per_mib = 0;  // ... and the buffers they gathered per MiB
};

// Sequential writes at the write pointers of all sequential zones except the first two
// (the store reserves some zones; keeping the raw leg off them keeps the comparison fair).
Status RawLeg(ZonedDevice* dev, uint64_t total, uint64_t io, const std::string& data,
              Legs* out) {
  const DeviceInfo& info = dev->info();
  SMR_ASSIGN_OR_RETURN(auto zones, dev->ReportZones(0, 0));
  // Start from empty zones (the store leg of the previous round left its data).
  for (uint32_t z = 0; z < info.nr_zones; ++z) {
    if (!zones[z].is_conventional()) SMR_RETURN_IF_ERROR(dev->ResetZones(z, 1));
  }
  SMR_ASSIGN_OR_RETURN(zones, dev->ReportZones(0, 0));
  std::vector<uint64_t> offsets;
  for (const ZoneInfo& z : zones) {
    if (z.is_conventional() || z.start < 2 * info.zone_size) continue;
    for (uint64_t off = 0; off + io <= z.capacity && offsets.size() * io < total; off += io) {
      offsets.push_back(z.start + off);
    }
  }
  if (offsets.size() * io < total) return Status::NoSpace("drive too small for --total");
  auto t0 = Clock::now();
  for (uint64_t off : offsets) SMR_RETURN_IF_ERROR(dev->Write(off, data.data(), io));
  SMR_RETURN_IF_ERROR(dev->Flush());
  out->raw_write = static_cast<double>(total) / 1e6 / Seconds(Clock::now() - t0);
  std::string buf(io, '\0');
  t0 = Clock::now();
  for (uint64_t off : offsets) SMR_RETURN_IF_ERROR(dev->Read(off, buf.data(), io));
  out->raw_read = static_cast<double>(total) / 1e6 / Seconds(Clock::now() - t0);
  for (uint32_t z = 0; z < info.nr_zones; ++z) {
    if (!zones[z].is_conventional()) SMR_RETURN_IF_ERROR(dev->ResetZones(z, 1));
  }
  return Status::OK();
}

// A new store on `spec` (metadata in `store_dir`, emptied first), mounted, with the
// collection "bench".
Result<std::unique_ptr<Store>> FreshStore(const std::string& spec, const std::string& store_dir,
                                          const StoreOptions& options) {
  std::error_code ec;
  std::filesystem::remove_all(store_dir, ec);
  SMR_RETURN_IF_ERROR(Store::Mkfs(store_dir, {spec}, options, /*force=*/true));
  SMR_ASSIGN_OR_RETURN(auto store, Store::Open(store_dir));
  Transaction t;
  t.MkColl("bench", 0);
  SMR_RETURN_IF_ERROR(store->Apply(std::move(t)));
  return store;
}

// PUTs objects 0..count-1 of `data`, one transaction each, `depth` in flight; returns once
// all are durable.
Status PutObjects(Store* store, uint64_t count, const std::string& data, size_t depth) {
  InFlightWindow window(depth);
  // Every PUT borrows the same bytes (Transaction::Write's shared form), as the raw leg
  // writes one buffer over and over.
  const auto shared = std::make_shared<const std::string>(data);
  for (uint64_t i = 0; i < count; ++i) {
    Transaction t;
    t.Write("bench", Oid(i), 0, shared);
    window.Acquire();
    store->Submit(std::move(t), [&window](const Status& s) { window.Release(s); });
  }
  return window.Drain();
}

Status StoreLeg(const std::string& spec, const std::string& store_dir, uint64_t total,
                uint64_t io, size_t depth, const std::string& data, Legs* out,
                bool journal = true) {
  std::error_code ec;
  StoreOptions options;
  options.journal = journal;
  SMR_ASSIGN_OR_RETURN(auto store, FreshStore(spec, store_dir, options));
  const uint64_t n = total / io;
  auto t0 = Clock::now();
  SMR_RETURN_IF_ERROR(PutObjects(store.get(), n, data, depth));
  out->put = static_cast<double>(total) / 1e6 / Seconds(Clock::now() - t0);
  {
    const StoreCounters c = store->Counters();
    out->put_wa = c.user_bytes_written
                      ? static_cast<double>(c.device_bytes_written) / c.user_bytes_written
                      : 0.0;
    const double mib = static_cast<double>(c.device_bytes_written) / 1048576.0;
    out->put_writes_per_mib = mib > 0 ? static_cast<double>(c.device_writes) / mib : 0.0;
    out->put_buffers_per_mib = mib > 0 ? static_cast<double>(c.device_write_buffers) / mib : 0.0;
  }
  // Into one reused buffer, as the raw leg reads (Store::ReadInto: no zero-fill, no copy).
  std::string buf(io, '\0');
  t0 = Clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    SMR_ASSIGN_OR_RETURN(uint64_t got, store->ReadInto("bench", Oid(i), 0, 0, [&](uint64_t len) {
                           return len <= buf.size() ? buf.data() : nullptr;
                         }));
    if (got != io) return Status::Corruption("GET returned a short object");
  }
  out->get = static_cast<double>(total) / 1e6 / Seconds(Clock::now() - t0);
  SMR_RETURN_IF_ERROR(store->Close());
  store.reset();
  std::filesystem::remove_all(store_dir, ec);
  return Status::OK();
}

struct SmallResult {
  double ops = 0;
  double device_bytes_per_object = 0;  // zone bytes written per object
  // Of those: data zones (records, packs, footers: the space the object keeps) and the
  // metadata journal (transient: a checkpoint frees its zones).
  double data_zone_bytes_per_object = 0;
  double journal_bytes_per_object = 0;
  double meta_bytes_per_object = 0;    // RocksDB size growth per object (after flush)
  double device_writes_per_object = 0;  // device write commands per object
};

Result<SmallResult> SmallPuts(const std::string& spec, const std::string& store_dir,
                              uint64_t size, uint64_t count, size_t depth,
                              uint32_t inline_max, bool journal = true,
                              uint32_t pack_max = StoreOptions().pack_max) {
  std::error_code ec;
  StoreOptions options;
  options.inline_max = inline_max;
  options.journal = journal;
  options.pack_max = pack_max;
  SMR_ASSIGN_OR_RETURN(auto store, FreshStore(spec, store_dir, options));
  std::string data(size, '\0');
  FillPattern(size, 0, data.data(), size);
  auto t0 = Clock::now();
  SMR_RETURN_IF_ERROR(PutObjects(store.get(), count, data, depth));
  SmallResult r;
  r.ops = static_cast<double>(count) / Seconds(Clock::now() - t0);
  const StoreCounters c = store->Counters();
  r.device_bytes_per_object =
      static_cast<double>(c.device_bytes_written) / static_cast<double>(count);
  r.device_writes_per_object = static_cast<double>(c.device_writes) / static_cast<double>(count);
  const uint64_t journal_bytes = c.journal_bytes_written + c.checkpoint_bytes_written;
  r.journal_bytes_per_object = static_cast<double>(journal_bytes) / static_cast<double>(count);
  r.data_zone_bytes_per_object =
      static_cast<double>(c.device_bytes_written - journal_bytes) / static_cast<double>(count);
  SMR_RETURN_IF_ERROR(store->Close());
  store.reset();
  uint64_t meta_bytes = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(store_dir, ec)) {
    if (f.is_regular_file(ec)) meta_bytes += f.file_size(ec);
  }
  r.meta_bytes_per_object = static_cast<double>(meta_bytes) / static_cast<double>(count);
  std::filesystem::remove_all(store_dir, ec);
  return r;
}

// --mbps as JSON: the number it was given as ("250" an integer, "2.5e2" a double); a form
// JSON writes differently (".5", "0x10") as the double it stands for; inf as null.
Json MbpsJson(const std::string& text) {
  if (auto parsed = ParseJson(text); parsed.ok() && parsed->is_number()) return *parsed;
  const double v = std::strtod(text.c_str(), nullptr);
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

int CmdStorebench(const Args& args) {
  auto total = args.size("total", 1ull << 30);
  auto size = args.size("size", 4ull << 20);
  auto rounds = args.number("rounds", 5);
  auto depth = args.number("depth", 16);
  auto small_count = args.number("small-count", 2000);
  const std::string mbps = args.get("mbps", "0");
  for (const Status* s : {&total.status(), &size.status(), &rounds.status(), &depth.status(),
                          &small_count.status()}) {
    if (!s->ok()) return UsageFail("storebench", *s);
  }
  if (*size == 0 || *size % 4096 != 0 || *total < *size || *rounds == 0 || *depth == 0) {
    return UsageFail("storebench", Status::InvalidArgument(
                                  "--size must be a non-zero multiple of 4096, --total >= "
                                  "--size, --rounds and --depth > 0"));
  }
  *total = *total / *size * *size;
  const std::string dir = args.get("dir", "/var/tmp");
  const std::string stem = dir + "/smrstore-storebench-" + std::to_string(::getpid());
  // One drive big enough for the data plus reserved zones and slack: 256 MiB zones.
  const uint64_t zone = 256ull << 20;
  const uint64_t zones = (*total + zone - 1) / zone * 2 + 8;
  const std::string spec = "emu:" + stem + ".img?zones=" + std::to_string(zones) +
                           "&zone_mib=256&conv=1&max_open=128" +
                           (mbps != "0" ? "&mbps=" + mbps + "&seek_ms=" + args.get("seek-ms", "8")
                                        : std::string());
  struct Cleanup {
    std::string stem;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove(stem + ".img", ec);
      std::filesystem::remove_all(stem + ".store", ec);
    }
  } cleanup{stem};
  {
    auto created = CreateDevice(spec);
    if (!created.ok()) return Fail("storebench", created.status());
  }
  std::string data(*size, '\0');
  FillPattern(42, 0, data.data(), data.size());
  if (args.has("journal-cost")) {
    // The metadata journal's cost: the same PUT leg with the journal on and off, in
    // alternating order each round; then small objects (in zones, and inline in RocksDB,
    // whose bytes the journal carries too).
    std::vector<double> on_mbps, off_mbps, ratio, on_wa, off_wa;
    for (uint64_t i = 0; i <= *rounds; ++i) {
      Legs on, off;
      for (int leg = 0; leg < 2; ++leg) {
        const bool journal = (leg == 0) == (i % 2 == 0);
        ::sync();
        Status st = StoreLeg(spec, stem + ".store", *total, *size, *depth, data,
                             journal ? &on : &off, journal);
        if (!st.ok()) return Fail("storebench", st);
      }
      if (i == 0) continue;
      on_mbps.push_back(on.put);
      off_mbps.push_back(off.put);
      ratio.push_back(on.put / off.put);
      on_wa.push_back(on.put_wa);
      off_wa.push_back(off.put_wa);
    }
    std::printf("storebench --journal-cost: %llu MiB as %llu KiB objects, %llu rounds, %llu in "
                "flight, timing model %s\n",
                static_cast<unsigned long long>(*total >> 20),
                static_cast<unsigned long long>(*size >> 10),
                static_cast<unsigned long long>(*rounds), static_cast<unsigned long long>(*depth),
                mbps == "0" ? "off" : (mbps + " MB/s").c_str());
    std::printf("  PUT with journal %8.1f MB/s, without %8.1f MB/s: ratio %.3f (IQR %.3f-%.3f)\n",
                Quantile(on_mbps, 0.5), Quantile(off_mbps, 0.5), Quantile(ratio, 0.5),
                Quantile(ratio, 0.25), Quantile(ratio, 0.75));
    std::printf("  device WA of the PUTs: with journal %.4f, without %.4f\n",
                Quantile(on_wa, 0.5), Quantile(off_wa, 0.5));
    for (uint32_t inline_max : {0u, 4096u}) {
      auto j = SmallPuts(spec, stem + ".store", 4096, *small_count, *depth, inline_max, true);
      auto n = SmallPuts(spec, stem + ".store", 4096, *small_count, *depth, inline_max, false);
      if (!j.ok()) return Fail("storebench", j.status());
      if (!n.ok()) return Fail("storebench", n.status());
      std::printf("  PUT 4 KiB objects %s: with journal %6.0f ops/s, %6.0f zone bytes each; "
                  "without %6.0f ops/s, %6.0f zone bytes each (ops ratio %.3f)\n",
                  inline_max ? "inline in RocksDB" : "in zones        ", j->ops,
                  j->device_bytes_per_object, n->ops, n->device_bytes_per_object,
                  j->ops / n->ops);
    }
    return 0;
  }
  std::vector<double> wr, rd, put_mbps, get_mbps, raw_w, raw_r, put_wpm, put_bpm;
  for (uint64_t i = 0; i <= *rounds; ++i) {
    Legs legs;
    for (int leg = 0; leg < 2; ++leg) {
      const bool store_leg = (leg == 0) == (i % 2 == 1);
      // Each leg starts with no dirty data of the previous one still being written back.
      ::sync();
      Status s;
      if (store_leg) {
        s = StoreLeg(spec, stem + ".store", *total, *size, *depth, data, &legs);
      } else {
        auto dev = OpenDevice(spec);
        s = dev.ok() ? RawLeg(dev->get(), *total, *size, data, &legs) : dev.status();
      }
      if (!s.ok()) return Fail("storebench", s);
    }
    if (i == 0) continue;  // warm-up
    if (args.has("verbose")) {
      std::fprintf(stderr,
                   "round %llu: raw write %.1f put %.1f (%.3f)  raw read %.1f get %.1f (%.3f)\n",
                   static_cast<unsigned long long>(i), legs.raw_write, legs.put,
                   legs.put / legs.raw_write, legs.raw_read, legs.get,
                   legs.get / legs.raw_read);
    }
    wr.push_back(legs.put / legs.raw_write);
    rd.push_back(legs.get / legs.raw_read);
    put_mbps.push_back(legs.put);
    put_wpm.push_back(legs.put_writes_per_mib);
    put_bpm.push_back(legs.put_buffers_per_mib);
    get_mbps.push_back(legs.get);
    raw_w.push_back(legs.raw_write);
    raw_r.push_back(legs.raw_read);
  }
  // Where tiny objects go: zones (inline_max 0) or inline in RocksDB (inline_max 4 KiB).
  auto small4 = SmallPuts(spec, stem + ".store", 4096, *small_count, *depth, 0);
  if (!small4.ok()) return Fail("storebench", small4.status());
  // The same without pack records (each 4 KiB object a record of its own).
  auto small4u = SmallPuts(spec, stem + ".store", 4096, *small_count, *depth, 0, true, 0);
  if (!small4u.ok()) return Fail("storebench", small4u.status());
  auto small4i = SmallPuts(spec, stem + ".store", 4096, *small_count, *depth, 4096);
  if (!small4i.ok()) return Fail("storebench", small4i.status());
  auto small64 = SmallPuts(spec, stem + ".store", 65536, *small_count, *depth, 0);
  if (!small64.ok()) return Fail("storebench", small64.status());
  if (args.has("json")) {
    const Json j = {
        {"object_bytes", *size},
        {"total_bytes", *total},
        {"rounds", *rounds},
        {"depth", *depth},
        {"timing_model_mbps", MbpsJson(mbps)},
        {"raw_write_mbps", JsonFixed(Quantile(raw_w, 0.5), 1)},
        {"put_mbps", JsonFixed(Quantile(put_mbps, 0.5), 1)},
        {"put_ratio", JsonFixed(Quantile(wr, 0.5), 3)},
        {"put_ratio_iqr", {JsonFixed(Quantile(wr, 0.25), 3), JsonFixed(Quantile(wr, 0.75), 3)}},
        {"put_device_writes_per_mib", JsonFixed(Quantile(put_wpm, 0.5), 2)},
        {"put_write_buffers_per_mib", JsonFixed(Quantile(put_bpm, 0.5), 2)},
        {"put_4k_device_writes_per_object", JsonFixed(small4->device_writes_per_object, 2)},
        {"raw_read_mbps", JsonFixed(Quantile(raw_r, 0.5), 1)},
        {"get_mbps", JsonFixed(Quantile(get_mbps, 0.5), 1)},
        {"get_ratio", JsonFixed(Quantile(rd, 0.5), 3)},
        {"get_ratio_iqr", {JsonFixed(Quantile(rd, 0.25), 3), JsonFixed(Quantile(rd, 0.75), 3)}},
        {"put_4k_ops", JsonFixed(small4->ops, 0)},
        {"put_4k_inline_ops", JsonFixed(small4i->ops, 0)},
        {"put_64k_ops", JsonFixed(small64->ops, 0)},
        {"put_4k_device_bytes_per_object", JsonFixed(small4->device_bytes_per_object, 0)},
        {"put_4k_meta_bytes_per_object", JsonFixed(small4->meta_bytes_per_object, 0)},
        {"put_4k_data_zone_bytes_per_object", JsonFixed(small4->data_zone_bytes_per_object, 0)},
        {"put_4k_journal_bytes_per_object", JsonFixed(small4->journal_bytes_per_object, 0)},
        {"put_4k_unpacked_ops", JsonFixed(small4u->ops, 0)},
        {"put_4k_unpacked_data_zone_bytes_per_object",
         JsonFixed(small4u->data_zone_bytes_per_object, 0)},
        {"put_4k_unpacked_journal_bytes_per_object",
         JsonFixed(small4u->journal_bytes_per_object, 0)},
        {"put_4k_inline_device_bytes_per_object",
         JsonFixed(small4i->device_bytes_per_object, 0)},
        {"put_4k_inline_meta_bytes_per_object", JsonFixed(small4i->meta_bytes_per_object, 0)}};
    std::cout << JsonText(j);
    return 0;
  }
  std::printf(
      "storebench: %llu MiB as %llu KiB objects, %llu rounds, %llu in flight, one emulated "
      "drive in %s, timing model %s\n"
      "  PUT %8.1f MB/s vs raw sequential write %8.1f MB/s: ratio %.3f (IQR %.3f-%.3f); "
      "%.2f device writes per MiB written (gathering %.2f buffers)\n"
      "  GET %8.1f MB/s vs raw sequential read  %8.1f MB/s: ratio %.3f (IQR %.3f-%.3f)\n"
      "  PUT 4 KiB objects:  %8.0f ops/s in zones (%.0f zone + %.0f RocksDB bytes, %.2f "
      "device writes each)\n"
      "                      of the zone bytes: %.0f in data zones (%.3fx the object) + %.0f "
      "journal\n"
      "                      %8.0f ops/s in zones without packing (%.0f in data zones, "
      "%.3fx, + %.0f journal)\n"
      "                      %8.0f ops/s inline in RocksDB (%.0f zone + %.0f RocksDB bytes "
      "each)\n"
      "  PUT 64 KiB objects: %8.0f ops/s\n",
      static_cast<unsigned long long>(*total >> 20), static_cast<unsigned long long>(*size >> 10),
      static_cast<unsigned long long>(*rounds), static_cast<unsigned long long>(*depth),
      dir.c_str(), mbps == "0" ? "off" : (mbps + " MB/s").c_str(), Quantile(put_mbps, 0.5),
      Quantile(raw_w, 0.5), Quantile(wr, 0.5), Quantile(wr, 0.25), Quantile(wr, 0.75),
      Quantile(put_wpm, 0.5), Quantile(put_bpm, 0.5), Quantile(get_mbps, 0.5), Quantile(raw_r, 0.5), Quantile(rd, 0.5),
      Quantile(rd, 0.25), Quantile(rd, 0.75), small4->ops, small4->device_bytes_per_object,
      small4->meta_bytes_per_object, small4->device_writes_per_object,
      small4->data_zone_bytes_per_object, small4->data_zone_bytes_per_object / 4096.0,
      small4->journal_bytes_per_object, small4u->ops, small4u->data_zone_bytes_per_object,
      small4u->data_zone_bytes_per_object / 4096.0, small4u->journal_bytes_per_object,
      small4i->ops, small4i->device_bytes_per_object,
      small4i->meta_bytes_per_object, small64->ops);
  return 0;
}

}  // namespace

void AddStorebenchCommand(Cli* cli) {
  cli->Add({"storebench", "", "store PUT/GET throughput vs the raw drive, small-object PUT ops/s",
            "Creates one emulated drive in --dir, then per round writes --total bytes raw\n"
            "(sequential, one flush) and as --size objects through the store (durable PUTs,\n"
            "--depth in flight), and reads them back; prints median ratios store/raw with\n"
            "their IQR, then 4 KiB and 64 KiB object PUT rates.",
            0,
            0,
            {{"dir", "DIR", "scratch directory (default /var/tmp)"},
             {"total", "BYTES", "bytes per leg (default 1G)"},
             {"size", "BYTES", "object size (default 4M)"},
             {"rounds", "N", "measured rounds (default 5)"},
             {"depth", "N", "transactions in flight (default 16)"},
             {"small-count", "N", "objects per small-object run (default 2000)"},
             {"mbps", "MB/s", "HDD timing model of the drive: bandwidth (default 0 = off)"},
             {"seek-ms", "MS", "HDD timing model: positioning time (default 8)"},
             {"verbose", "", "print every round on stderr"},
             {"journal-cost", "", "PUT throughput and device WA with the metadata journal vs "
                                  "without (instead of the raw comparison)"},
             {"json", "", "print JSON"}},
            CmdStorebench});
}

}  // namespace smr::tool
