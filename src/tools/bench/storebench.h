// Registers smrstore-tool storebench (store vs raw drive throughput, small-object PUT rates).
#pragma once

#include "cli/cli.h"

namespace smr::tool {

void AddStorebenchCommand(Cli* cli);

}  // namespace smr::tool
