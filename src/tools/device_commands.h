// Registers smrstore-tool's device-level subcommands (mkdev, zones, zone, write, read) and
// the device benchmark (devbench).
#pragma once

#include "cli.h"

namespace smr::tool {

void AddDeviceCommands(Cli* cli);
void AddDevbenchCommand(Cli* cli);

}  // namespace smr::tool
