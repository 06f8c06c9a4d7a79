// Registers smrstore-tool scale-bench (mount time and memory against the live data a store
// holds, at several sizes, on drives that drop payloads) and probe-mount (one measured
// mount of a store, in a process of its own).
#pragma once

#include "cli/cli.h"

namespace smr::tool {

void AddScaleBenchCommands(Cli* cli);

}  // namespace smr::tool
