// Registers smrstore-tool's device-level subcommands (mkdev, zones, zone, write, read); the
// device benchmark (devbench) is bench/devbench.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/json.h"
#include "common/result.h"
#include "device/zoned_device.h"

namespace smr::tool {

void AddDeviceCommands(Cli* cli);

// OK unless `dev` holds an smrstore superblock (it is a store's drive, mounted or not) and
// !force: then kAlreadyExists "PATH holds smrstore UUID (refusing ...; use --force ...)".
// Raw commands that change a drive call it first.
Status RefuseStoreDrive(ZonedDevice* dev, bool force);

// Hybrid drives: "hybrid: N realms of C CMR zones (.. MiB) or S SMR zones (..); CMR domain
// zones [a, b), SMR domain zones [c, d); conversion T ms per realm" ("not hybrid" else).
std::string HybridGeometryLine(const DeviceInfo& info);
// The drive's realms (ReportRealms of all), empty for a drive that is not hybrid.
Result<std::vector<RealmInfo>> DeviceRealms(ZonedDevice* dev);
// `realms` as the zone report's JSON array: {realm, domain, cmr_first, cmr_count,
// smr_first, smr_count} each.
Json RealmsJson(const std::vector<RealmInfo>& realms);
// The zone report's realm table (one line per realm: realm, active domain, CMR zone range,
// SMR zone range, then a count line); empty for no realms.
std::string RealmTable(const std::vector<RealmInfo>& realms);

// The zone report of `dev` (named `spec`) that `zones` prints: zones [first, first+count)
// (count 0 = to the end), as text or as the JSON documented in doc/tools/smrstore-tool.md.
Result<std::string> ZoneReport(const std::string& spec, ZonedDevice* dev, uint64_t first,
                               uint64_t count, bool json);
// The same report as a JSON value (what `zones --json` prints).
Result<Json> ZoneReportJson(const std::string& spec, ZonedDevice* dev, uint64_t first,
                            uint64_t count);

}  // namespace smr::tool
