// smrstore-tool rebuild-meta: the store's metadata database rebuilt from its drives alone
// (Store::RebuildMeta, store/rebuild.cc). Thread safety: called from main() only.
#pragma once

#include "cli/cli.h"

namespace smr::tool {

void AddRebuildCommand(Cli* cli);

}  // namespace smr::tool
