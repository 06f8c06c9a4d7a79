// Registers smrstore-tool hybrid-bench (hybrid_bench.cc) and hbuffer-bench
// (hbuffer_bench.cc), the hybrid-drive benchmarks; they use commands/hybrid_commands.h.
#pragma once

#include "cli/cli.h"

namespace smr::tool {

void AddHybridBenchCommand(Cli* cli);
void AddHBufferBenchCommand(Cli* cli);

}  // namespace smr::tool
