// Registers smrstore-tool bench: the GC workload generator (write amplification,
// throughput and latency with zone GC active; optional offline-oracle floor).
#pragma once

#include "cli/cli.h"

namespace smr::tool {

void AddWorkloadBenchCommand(Cli* cli);

}  // namespace smr::tool
