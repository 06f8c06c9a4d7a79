// Registers smrstore-tool gcsim: the offline GC simulator (gc/gc_sim.h) on a synthetic
// trace, every victim policy x placement next to the oracle floor — the simulated tables of
// doc/design.md come from it.
#pragma once

#include "cli/cli.h"

namespace smr::tool {

void AddGcsimCommand(Cli* cli);

}  // namespace smr::tool
