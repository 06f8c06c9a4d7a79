// Device-level subcommands of smrstore-tool: mkdev, zones, zone, write, read.
#include "common/json.h"
#include "device_commands.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <optional>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

#include "common/crc32c.h"
#include "common/pattern.h"
#include "device/device_spec.h"
#include "format/record.h"
#include "store/superblock_log.h"
#include "store_commands.h"
#include "zone/zone_manager.h"

namespace smr::tool {

namespace {

constexpr size_t kChunk = 1 << 20;

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%09" PRIx64, v);
  return buf;
}

Json DeviceJson(const std::string& spec, const DeviceInfo& info) {
  return {{"spec", spec},
          {"path", info.path},
          {"model", ZonedModelName(info.model)},
          {"model_name", info.model_name},
          {"nr_zones", info.nr_zones},
          {"zone_size", info.zone_size},
          {"zone_capacity", info.zone_capacity},
          {"nr_conventional", info.nr_conventional},
          {"logical_block_size", info.logical_block_size},
          {"physical_block_size", info.physical_block_size},
          {"max_open_zones", info.max_open_zones},
          {"max_active_zones", info.max_active_zones},
          {"capacity_bytes", info.capacity_bytes()},
          {"hybrid", info.hybrid()},
          {"nr_realms", info.nr_realms},
          {"cmr_zones_per_realm", info.cmr_zones_per_realm},
          {"smr_zones_per_realm", info.smr_zones_per_realm},
          {"cmr_first_zone", info.cmr_first_zone},
          {"smr_first_zone", info.smr_first_zone},
          {"conversion_ms", info.conversion_ms}};
}

// "[first, end)" of a zone range.
std::string Range(uint32_t first, uint32_t count) {
  return "[" + std::to_string(first) + ", " + std::to_string(uint64_t{first} + count) + ")";
}

}  // namespace

std::string HybridGeometryLine(const DeviceInfo& info) {
  if (!info.hybrid()) return "not hybrid";
  const uint64_t cmr_mib = uint64_t{info.cmr_zones_per_realm} * info.zone_capacity >> 20;
  const uint64_t smr_mib = uint64_t{info.smr_zones_per_realm} * info.zone_capacity >> 20;
  std::ostringstream o;
  o << "hybrid: " << info.nr_realms << " realms of " << info.cmr_zones_per_realm
    << " CMR zones (" << cmr_mib << " MiB) or " << info.smr_zones_per_realm << " SMR zones ("
    << smr_mib << " MiB); CMR domain zones "
    << Range(info.cmr_first_zone, info.nr_realms * info.cmr_zones_per_realm)
    << ", SMR domain zones "
    << Range(info.smr_first_zone, info.nr_realms * info.smr_zones_per_realm) << "; conversion "
    << info.conversion_ms << " ms per realm";
  return o.str();
}

Result<std::vector<RealmInfo>> DeviceRealms(ZonedDevice* dev) {
  if (!dev->info().hybrid()) return std::vector<RealmInfo>{};
  return dev->ReportRealms(0, 0);
}

Json RealmsJson(const std::vector<RealmInfo>& realms) {
  Json list = Json::array();
  for (const RealmInfo& r : realms) {
    list.push_back({{"realm", r.realm},
                    {"domain", ZoneDomainName(r.domain)},
                    {"cmr_first", r.cmr_first},
                    {"cmr_count", r.cmr_count},
                    {"smr_first", r.smr_first},
                    {"smr_count", r.smr_count}});
  }
  return list;
}

std::string RealmTable(const std::vector<RealmInfo>& realms) {
  if (realms.empty()) return "";
  std::ostringstream o;
  o << "realm  domain  cmr zones         smr zones\n";
  uint32_t cmr = 0, smr = 0;
  for (const RealmInfo& r : realms) {
    char line[120];
    std::snprintf(line, sizeof(line), "%5u  %-6s  %-16s  %s\n", static_cast<unsigned>(r.realm),
                  ZoneDomainName(r.domain), Range(r.cmr_first, r.cmr_count).c_str(),
                  Range(r.smr_first, r.smr_count).c_str());
    o << line;
    ++(r.domain == ZoneDomain::kCmr ? cmr : smr);
  }
  o << "realms: " << cmr << " cmr, " << smr << " smr (zones of a realm's other domain are "
    << "inactive)\n";
  return o.str();
}

namespace {

// Bytes written below the write pointer of a sequential zone (capacity when full).
uint64_t WrittenBytes(const ZoneInfo& z) {
  if (z.is_conventional()) return 0;
  if (z.cond == ZoneCondition::kFull) return z.capacity;
  return z.wp - z.start;
}

int CmdMkdev(const Args& args) {
  const std::string& spec = args.positional()[0];
  auto dev = CreateDevice(spec);
  if (!dev.ok()) return Fail("mkdev", dev.status());
  const DeviceInfo& info = (*dev)->info();
  std::cout << "created " << spec << ": " << info.nr_zones << " zones of "
            << (info.zone_size >> 20) << " MiB (capacity " << (info.zone_capacity >> 20)
            << " MiB), " << info.nr_conventional << " conventional, max open "
            << info.max_open_zones << ", max active " << info.max_active_zones << "\n";
  if (info.hybrid()) {
    auto realms = DeviceRealms(dev->get());
    if (!realms.ok()) return Fail("mkdev", realms.status());
    size_t cmr = 0;
    for (const RealmInfo& r : *realms) cmr += r.domain == ZoneDomain::kCmr ? 1 : 0;
    std::cout << HybridGeometryLine(info) << "; " << cmr << " realms cmr, "
              << realms->size() - cmr << " smr\n";
  }
  return 0;
}

int CmdZones(const Args& args) {
  const std::string& target = args.positional()[0];
  if (IsStoreTarget(target)) return CmdStoreZones(args);
  auto first = args.number("zone", 0);
  auto count = args.number("count", 0);
  if (!first.ok()) return UsageFail("zones", first.status());
  if (!count.ok()) return UsageFail("zones", count.status());
  auto dev = OpenDevice(target);
  if (!dev.ok()) return Fail("zones", dev.status());
  auto report = ZoneReport(target, dev->get(), *first, *count, args.has("json"));
  if (!report.ok()) return Fail("zones", report.status());
  std::cout << *report;
  return 0;
}

int CmdZone(const Args& args) {
  const std::string& spec = args.positional()[0];
  const std::string& action = args.positional()[1];
  const std::string& zone_text = args.positional()[2];
  if (zone_text.empty() || zone_text.find_first_not_of("0123456789") != std::string::npos ||
      zone_text.size() > 9) {
    return UsageFail("zone", Status::InvalidArgument("'" + zone_text + "' is not a zone number"));
  }
  auto count = args.number("count", 1);
  if (!count.ok()) return UsageFail("zone", count.status());
  Status (ZonedDevice::*op)(uint32_t, uint32_t) = nullptr;
  if (action == "open") op = &ZonedDevice::OpenZones;
  if (action == "close") op = &ZonedDevice::CloseZones;
  if (action == "finish") op = &ZonedDevice::FinishZones;
  if (action == "reset") op = &ZonedDevice::ResetZones;
  if (op == nullptr) {
    return UsageFail("zone", Status::InvalidArgument("unknown action '" + action +
                                                     "' (open, close, finish, reset)"));
  }
  if (*count == 0 || *count > UINT32_MAX) {
    return UsageFail("zone", Status::InvalidArgument("--count must be between 1 and 2^32-1"));
  }
  auto dev = OpenDevice(spec);
  if (!dev.ok()) return Fail("zone", dev.status());
  // Every action changes the zone's state (reset and finish destroy data): never on a
  // drive that belongs to a store unless forced.
  if (Status g = RefuseStoreDrive(dev->get(), args.has("force")); !g.ok()) {
    return Fail("zone", g);
  }
  const auto z = static_cast<uint32_t>(std::stoul(zone_text));
  Status s = ((*dev).get()->*op)(z, static_cast<uint32_t>(*count));
  if (!s.ok()) return Fail("zone", s);
  std::cout << action << " zones [" << z << ", " << z + *count << "): ok\n";
  return 0;
}

int CmdWrite(const Args& args) {
  const std::string& spec = args.positional()[0];
  auto length = args.size("length", 0);
  auto seed = args.number("seed", 1);
  auto zone = args.number("zone", 0);
  auto offset = args.size("offset", 0);
  for (const Status* s : {&length.status(), &seed.status(), &zone.status(), &offset.status()}) {
    if (!s->ok()) return UsageFail("write", *s);
  }
  if (args.has("zone") == args.has("offset")) {
    return UsageFail("write", Status::InvalidArgument("give exactly one of --zone and --offset"));
  }
  if (!args.has("input") && !args.has("length")) {
    return UsageFail("write", Status::InvalidArgument("--length is required without --input"));
  }
  if (args.has("length") && *length == 0) {
    return UsageFail("write", Status::InvalidArgument("--length must be > 0"));
  }
  int in_fd = -1;
  if (args.has("input")) {
    in_fd = ::open(args.get("input").c_str(), O_RDONLY | O_CLOEXEC);
    if (in_fd < 0) return Fail("write", Status::FromErrno(errno, args.get("input")));
    if (!args.has("length")) {
      off_t end = ::lseek(in_fd, 0, SEEK_END);
      *length = end < 0 ? 0 : static_cast<uint64_t>(end);
    }
  }
  struct FdCloser {
    int fd;
    ~FdCloser() {
      if (fd >= 0) ::close(fd);
    }
  } in_closer{in_fd};
  auto dev = OpenDevice(spec);
  if (!dev.ok()) return Fail("write", dev.status());
  if (Status g = RefuseStoreDrive(dev->get(), args.has("force")); !g.ok()) {
    return Fail("write", g);
  }
  uint64_t off = *offset;
  if (args.has("zone")) {
    if (*zone >= (*dev)->info().nr_zones) {
      return Fail("write", Status::InvalidArgument("zone " + std::to_string(*zone) +
                                                   " does not exist"));
    }
    auto zi = (*dev)->ReportZones(static_cast<uint32_t>(*zone), 1);
    if (!zi.ok()) return Fail("write", zi.status());
    off = (*zi)[0].is_conventional() ? (*zi)[0].start : (*zi)[0].wp;
  }
  if (in_fd >= 0 && !args.has("length")) {
    // A file's last partial block is written zero-padded.
    const uint64_t lbs = (*dev)->info().logical_block_size;
    *length = (*length + lbs - 1) / lbs * lbs;
  }
  if (*length == 0) return Fail("write", Status::InvalidArgument(args.get("input") + " is empty"));
  // Check the whole write fits before writing a byte: within the device, and within the
  // writable capacity of a sequential zone from the write pointer on.
  const DeviceInfo& info = (*dev)->info();
  if (off >= info.capacity_bytes() || *length > info.capacity_bytes() - off) {
    return Fail("write", Status::NoSpace("writing " + std::to_string(*length) + " bytes at " +
                                         std::to_string(off) + " would pass the end of " +
                                         info.path + " (" +
                                         std::to_string(info.capacity_bytes()) + " bytes)"));
  }
  {
    const uint32_t zi_index = (*dev)->ZoneIndexOf(off);
    auto zi = (*dev)->ReportZones(zi_index, 1);
    if (!zi.ok()) return Fail("write", zi.status());
    const ZoneInfo& z = (*zi)[0];
    if (!z.is_conventional()) {
      const uint64_t end = z.start + z.capacity;
      const uint64_t room = off < end ? end - off : 0;
      if (*length > room) {
        return Fail("write", Status::NoSpace(
                                 "writing " + std::to_string(*length) + " bytes at " +
                                 std::to_string(off) + " would pass the end of zone " +
                                 std::to_string(zi_index) + "'s capacity (" +
                                 std::to_string(room) + " bytes left from there)"));
      }
    }
  }
  std::vector<char> buf(kChunk);
  for (uint64_t done = 0; done < *length;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, *length - done));
    if (in_fd >= 0) {
      std::fill(buf.begin(), buf.begin() + n, '\0');  // past the file's end: zeros
      ssize_t r = ::pread(in_fd, buf.data(), n, static_cast<off_t>(done));
      if (r < 0) return Fail("write", Status::FromErrno(errno, args.get("input")));
    } else {
      FillPattern(*seed, off + done, buf.data(), n);
    }
    Status s = (*dev)->Write(off + done, buf.data(), n);
    if (!s.ok()) {
      return Fail("write", s.WithContext("after " + std::to_string(done) + " bytes"));
    }
    done += n;
  }
  Status s = (*dev)->Flush();
  if (!s.ok()) return Fail("write", s);
  std::cout << "wrote " << *length << " bytes at " << off << " (zone " << (*dev)->ZoneIndexOf(off)
            << ")\n";
  return 0;
}

int CmdRead(const Args& args) {
  const std::string& spec = args.positional()[0];
  auto length = args.size("length", 0);
  auto offset = args.size("offset", 0);
  auto seed = args.number("verify-seed", 0);
  for (const Status* s : {&length.status(), &offset.status(), &seed.status()}) {
    if (!s->ok()) return UsageFail("read", *s);
  }
  if (!args.has("offset") || !args.has("length")) {
    return UsageFail("read", Status::InvalidArgument("--offset and --length are required"));
  }
  auto dev = OpenDevice(spec);
  if (!dev.ok()) return Fail("read", dev.status());
  int out_fd = -1;
  if (args.has("output")) {
    out_fd = ::open(args.get("output").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out_fd < 0) return Fail("read", Status::FromErrno(errno, args.get("output")));
  }
  std::vector<char> buf(kChunk);
  uint32_t crc = 0;
  for (uint64_t done = 0; done < *length;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, *length - done));
    Status s = (*dev)->Read(*offset + done, buf.data(), n);
    if (!s.ok()) return Fail("read", s);
    if (args.has("verify-seed") && !CheckPattern(*seed, *offset + done, buf.data(), n)) {
      return Fail("read", Status::Corruption("data at [" + std::to_string(*offset + done) +
                                             ", +" + std::to_string(n) +
                                             ") does not match pattern seed " +
                                             std::to_string(*seed)));
    }
    if (out_fd >= 0 && ::write(out_fd, buf.data(), n) != static_cast<ssize_t>(n)) {
      return Fail("read", Status::FromErrno(errno, args.get("output")));
    }
    crc = crc32c::Extend(crc, buf.data(), n);
    done += n;
  }
  if (out_fd >= 0) ::close(out_fd);
  char line[120];
  std::snprintf(line, sizeof(line), "read %" PRIu64 " bytes at %" PRIu64 ": crc32c 0x%08x%s\n",
                *length, *offset, crc, args.has("verify-seed") ? ", pattern verified" : "");
  std::cout << line;
  return 0;
}

}  // namespace

Status RefuseStoreDrive(ZonedDevice* dev, bool force) {
  if (force) return Status::OK();
  // The store's own reader, on the zones a store keeps its superblock log in (the ones
  // ZoneManager reserves on this drive, as Store::Mkfs looks them up).
  ZoneManager zones({dev});
  Status attached = zones.Attach();
  if (!attached.ok()) return Status::OK();  // not a drive a store could use
  auto existing = ReadSuperblock(dev, zones.ReservedZones(0));
  if (!existing.ok()) return existing.status().WithContext(dev->info().path);
  if (!existing->has_value()) return Status::OK();
  return Status::AlreadyExists(dev->info().path + " holds smrstore " +
                               UuidToString((*existing)->store_uuid) +
                               " (refusing to change it; use --force to do it anyway)");
}

namespace {

struct ZoneReportData {
  std::vector<ZoneInfo> zones;
  std::map<std::string, uint64_t> by_cond;
  uint64_t written = 0;
};

Result<ZoneReportData> ReadZoneReport(ZonedDevice* dev, uint64_t first, uint64_t count) {
  if (first > UINT32_MAX || count > UINT32_MAX) {
    return Status::InvalidArgument("zone number out of range");
  }
  auto zones = dev->ReportZones(static_cast<uint32_t>(first), static_cast<uint32_t>(count));
  if (!zones.ok()) return zones.status();
  ZoneReportData r;
  r.zones = std::move(*zones);
  for (const ZoneInfo& z : r.zones) {
    ++r.by_cond[ZoneConditionName(z.cond)];
    r.written += WrittenBytes(z);
  }
  return r;
}

}  // namespace

Result<Json> ZoneReportJson(const std::string& spec, ZonedDevice* dev, uint64_t first,
                            uint64_t count) {
  SMR_ASSIGN_OR_RETURN(ZoneReportData r, ReadZoneReport(dev, first, count));
  Json summary = Json::object();
  for (const char* c : {"not-write-pointer", "empty", "implicit-open", "explicit-open",
                        "closed", "full", "read-only", "offline", "inactive"}) {
    summary[c] = r.by_cond[c];
  }
  summary["zones_reported"] = r.zones.size();
  summary["written_bytes"] = r.written;
  Json list = Json::array();
  const uint32_t base = static_cast<uint32_t>(first);
  const DeviceInfo& info = dev->info();
  for (size_t i = 0; i < r.zones.size(); ++i) {
    const ZoneInfo& z = r.zones[i];
    Json zone = {{"zone", base + i},
                 {"start", z.start},
                 {"length", z.length},
                 {"capacity", z.capacity},
                 {"wp", z.wp},
                 {"written", WrittenBytes(z)},
                 {"type", ZoneTypeName(z.type)},
                 {"cond", ZoneConditionName(z.cond)}};
    // Hybrid drives: the realm and domain of each realm zone (absent for the permanent
    // conventional zones and on other drives).
    if (auto rz = RealmOfZone(info, static_cast<uint32_t>(base + i))) {
      zone["realm"] = rz->realm;
      zone["domain"] = ZoneDomainName(rz->domain);
    }
    list.push_back(std::move(zone));
  }
  SMR_ASSIGN_OR_RETURN(std::vector<RealmInfo> realms, DeviceRealms(dev));
  return Json{{"device", DeviceJson(spec, info)},
              {"summary", summary},
              {"realms", RealmsJson(realms)},
              {"zones", list}};
}

Result<std::string> ZoneReport(const std::string& spec, ZonedDevice* dev, uint64_t first,
                               uint64_t count, bool json) {
  if (json) {
    SMR_ASSIGN_OR_RETURN(Json report, ZoneReportJson(spec, dev, first, count));
    return report.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
  }
  const DeviceInfo& info = dev->info();
  SMR_ASSIGN_OR_RETURN(ZoneReportData r, ReadZoneReport(dev, first, count));
  const std::vector<ZoneInfo>& zones = r.zones;
  const uint32_t base = static_cast<uint32_t>(first);
  std::ostringstream o;
  o << "device " << info.path << ": " << ZonedModelName(info.model) << ", " << info.nr_zones
    << " zones x " << (info.zone_size >> 20) << " MiB, capacity " << (info.zone_capacity >> 20)
    << " MiB, lbs " << info.logical_block_size << ", max open " << info.max_open_zones
    << ", max active " << info.max_active_zones << "\n";
  if (info.hybrid()) {
    SMR_ASSIGN_OR_RETURN(std::vector<RealmInfo> realms, DeviceRealms(dev));
    o << HybridGeometryLine(info) << "\n" << RealmTable(realms);
  }
  for (size_t i = 0; i < zones.size(); ++i) {
    const ZoneInfo& z = zones[i];
    char line[240];
    std::snprintf(line, sizeof(line), "zone %6u  start %s  len %s  cap %s  wptr %s  %-18s %s",
                  static_cast<unsigned>(base + i), Hex(z.start).c_str(), Hex(z.length).c_str(),
                  Hex(z.capacity).c_str(),
                  z.is_conventional() ? "    -      " : Hex(z.wp - z.start).c_str(),
                  ZoneTypeName(z.type), ZoneConditionName(z.cond));
    o << line;
    // Hybrid drives: which realm and domain the zone belongs to; zones of a realm's
    // inactive domain are marked.
    if (auto rz = RealmOfZone(info, static_cast<uint32_t>(base + i))) {
      const int pad = 18 - static_cast<int>(std::string(ZoneConditionName(z.cond)).size());
      o << std::string(pad > 0 ? pad : 1, ' ') << "realm " << rz->realm << " "
        << ZoneDomainName(rz->domain);
      if (z.cond == ZoneCondition::kInactive) o << " (inactive)";
    }
    o << "\n";
  }
  o << "summary:";
  for (const auto& [c, n] : r.by_cond) o << " " << c << "=" << n;
  o << " written=" << r.written << " bytes\n";
  return o.str();
}

namespace {

// The drive's store superblock as `label` reports it (JSON; the plain form prints the same
// keys). A drive whose reserved zones hold no superblock reports {"smrstore": false}.
Result<Json> LabelJson(const std::string& spec, ZonedDevice* dev) {
  ZoneManager zones({dev});
  SMR_RETURN_IF_ERROR(zones.Attach().WithContext(spec));
  SMR_ASSIGN_OR_RETURN(std::optional<StoreSuperblock> sb,
                       ReadSuperblock(dev, zones.ReservedZones(0)));
  Json out = {{"spec", spec}, {"path", dev->info().path},
              {"model", ZonedModelName(dev->info().model)},
              {"nr_zones", dev->info().nr_zones}, {"zone_size", dev->info().zone_size},
              {"capacity_bytes", dev->info().capacity_bytes()}, {"smrstore", sb.has_value()}};
  if (!sb) return out;
  Json drives = Json::array();
  for (const Uuid& u : sb->drive_uuids) drives.push_back(UuidToString(u));
  out["store_uuid"] = UuidToString(sb->store_uuid);
  out["drive_uuid"] = UuidToString(sb->drive_uuids[sb->drive_index]);
  out["drive_index"] = sb->drive_index;
  out["nr_drives"] = sb->nr_drives;
  out["drive_uuids"] = drives;
  out["format_version"] = sb->format_version;
  out["created_unix_sec"] = sb->created_unix_sec;
  out["mount_count"] = sb->mount_count;
  out["clean_umount"] = sb->clean_umount;
  out["meta_path_hint"] = sb->meta_path_hint;
  return out;
}

int CmdLabel(const Args& args) {
  const std::string& spec = args.positional()[0];
  auto dev = OpenDevice(spec);
  if (!dev.ok()) return Fail("label", dev.status());
  auto label = LabelJson(spec, dev->get());
  if (!label.ok()) return Fail("label", label.status());
  if (args.has("json")) {
    std::cout << label->dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace)
              << "\n";
    return 0;
  }
  for (const auto& [key, value] : label->items()) {
    std::cout << key << " " << (value.is_string() ? value.get<std::string>() : value.dump())
              << "\n";
  }
  return 0;
}

// Makes a drive blank for a new store: every sequential zone reset, and the superblock log
// in conventional reserved zones overwritten (the first 4 KiB of each 64 KiB slot, where
// each copy's record header is), so no superblock reads back. Refuses a drive that holds a
// store unless --force; a drive another process holds (O_EXCL) fails to open.
int CmdWipe(const Args& args) {
  const std::string& spec = args.positional()[0];
  auto dev = OpenDevice(spec);
  if (!dev.ok()) return Fail("wipe", dev.status());
  ZonedDevice* d = dev->get();
  if (Status g = RefuseStoreDrive(d, args.has("force")); !g.ok()) return Fail("wipe", g);
  auto report = d->ReportZones();
  if (!report.ok()) return Fail("wipe", report.status());
  ZoneManager zones({d});
  std::vector<uint32_t> reserved;
  if (zones.Attach().ok()) reserved = zones.ReservedZones(0);
  uint64_t reset = 0;
  uint64_t zeroed = 0;
  const std::string zeros(recfmt::kBlockSize, '\0');
  for (uint32_t z = 0; z < report->size(); ++z) {
    const ZoneInfo& zi = (*report)[z];
    if (zi.cond == ZoneCondition::kOffline || zi.cond == ZoneCondition::kReadOnly ||
        zi.cond == ZoneCondition::kInactive) {
      continue;
    }
    if (!zi.is_conventional()) {
      if (zi.wp == zi.start && zi.cond == ZoneCondition::kEmpty) continue;
      if (Status s = d->ResetZones(z, 1); !s.ok()) return Fail("wipe", s);
      ++reset;
      continue;
    }
    if (std::find(reserved.begin(), reserved.end(), z) == reserved.end()) continue;
    for (uint64_t off = 0; off + kSuperblockSlot <= zi.capacity; off += kSuperblockSlot) {
      if (Status s = d->Write(zi.start + off, zeros.data(), zeros.size()); !s.ok()) {
        return Fail("wipe", s);
      }
      ++zeroed;
    }
  }
  if (Status s = d->Flush(); !s.ok()) return Fail("wipe", s);
  std::cout << "wiped " << spec << ": " << reset << " zones reset, " << zeroed
            << " superblock slots cleared\n";
  return 0;
}

}  // namespace

void AddDeviceCommands(Cli* cli) {
  cli->Add({"mkdev", "SPEC", "create an emulated zoned drive",
            "Creates the drive file PATH and prints its geometry (hybrid drives: a second\n"
            "line with the realm geometry). SPEC is emu:PATH?key=value&... with keys\n"
            "(defaults in brackets): zones [64], zone_mib|zone_kib [256 MiB, a power of\n"
            "two], cap_mib|cap_kib [the zone size; smaller: ZNS-like], conv [~1 % of the\n"
            "zones, at least 1], max_open [128; 0 no limit], max_active [0, no limit], lbs\n"
            "[4096, or 512], mbps and seek_ms [0: no timing model], drop_kib [scale\n"
            "benches only]; hybrid drives, emulator only: realms [0: not hybrid],\n"
            "realm_cmr [4], realm_smr [5], convert_ms [50], realm_init [cmr|smr]. Fails if\n"
            "PATH exists (never overwrites). Table: doc/tools/smrstore-tool.md.",
            1, 1, {}, CmdMkdev});
  cli->Add({"zones", "SPEC|STORE", "report the zones of a device or of a store's drives",
            "Prints one line per zone and a summary, or JSON with --json (format in\n"
            "doc/tools/smrstore-tool.md). A target without an emu:/zbd: scheme that is a\n"
            "directory is a store: it is mounted and every drive's zones are reported, with\n"
            "the store's zone states (free/open/sealed per stream) as a summary. Hybrid\n"
            "drives: a realm table (realm, active domain, CMR and SMR zone ranges) and each\n"
            "realm zone's realm/domain, zones of a realm's inactive domain marked; --json\n"
            "adds `realms`.",
            1,
            1,
            {{"json", "", "print JSON"},
             {"zone", "N", "first zone to report (default 0)"},
             {"count", "N", "number of zones (default: to the end)"}},
            CmdZones});
  cli->Add({"zone", "SPEC ACTION ZONE", "open, close, finish or reset zones",
            "ACTION is open, close, finish or reset; acts on ZONE and the --count-1 after it.\n"
            "Refuses a drive that holds an smrstore superblock (a store's drive, mounted or\n"
            "not) unless --force: reset and finish destroy the store's data.",
            3,
            3,
            {{"count", "N", "number of zones (default 1)"},
             {"force", "", "act even on a drive that belongs to a store"}},
            CmdZone});
  cli->Add({"write", "SPEC", "write a test pattern or a file to a device",
            "Writes --length bytes at --offset, or at the write pointer of --zone (a\n"
            "conventional zone's start), then flushes. Data is a deterministic pattern of\n"
            "--seed (verifiable with read --verify-seed) or the bytes of --input. Checks that\n"
            "the write fits (device end; a sequential zone's capacity) before writing.\n"
            "Refuses a drive that holds an smrstore superblock unless --force.",
            1,
            1,
            {{"offset", "BYTES", "device byte offset"},
             {"zone", "N", "write at this zone's write pointer"},
             {"length", "BYTES", "bytes to write (K/M/G suffixes)"},
             {"seed", "N", "pattern seed (default 1)"},
             {"input", "FILE", "write this file's bytes instead of a pattern"},
             {"force", "", "write even to a drive that belongs to a store"}},
            CmdWrite});
  cli->Add({"label", "SPEC", "show the store superblock a drive holds, if any",
            "Reads the drive's superblock log (never writes): the store and drive uuids,\n"
            "the drive's index among the store's drives, where the store's metadata lived\n"
            "(meta_path_hint), creation time, mounts and whether the last unmount was\n"
            "clean; `smrstore false` for a drive that holds no store. Like\n"
            "`ceph-bluestore-tool show-label`; `ceph-volume smrstore list` reads it.",
            1, 1, {{"json", "", "print JSON"}}, CmdLabel});
  cli->Add({"wipe", "SPEC", "reset every zone of a drive and clear its superblock",
            "Resets every sequential zone and clears the superblock slots in conventional\n"
            "reserved zones, so the drive holds no store. Refuses a drive that holds an\n"
            "smrstore superblock unless --force (what `ceph-volume smrstore zap` runs).",
            1, 1, {{"force", "", "wipe even a drive that belongs to a store"}}, CmdWipe});
  cli->Add({"read", "SPEC", "read a device range; verify a pattern or save it",
            "Prints the crc32c of the bytes read; --verify-seed checks them against the\n"
            "pattern that write --seed wrote; --output saves them to a new file.",
            1,
            1,
            {{"offset", "BYTES", "device byte offset"},
             {"length", "BYTES", "bytes to read"},
             {"verify-seed", "N", "check the data equals pattern N"},
             {"output", "FILE", "write the bytes to FILE (must not exist)"}},
            CmdRead});
}

}  // namespace smr::tool
