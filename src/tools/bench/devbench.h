// Registers smrstore-tool devbench (emulated drive vs plain file throughput; devbench.cc).
#pragma once

#include "cli/cli.h"

namespace smr::tool {

void AddDevbenchCommand(Cli* cli);

}  // namespace smr::tool
