// Registers smrstore-tool's store-level subcommands: mkfs, df, stats, fsck, collection and
// object commands (mkcoll, rmcoll, lscoll, put, get, rm, ls, stat, xattrs, omap).
#pragma once

#include <string>

#include "cli/cli.h"

namespace smr::tool {

void AddStoreCommands(Cli* cli);

// True when a `zones` target names a store: no "emu:"/"zbd:" scheme and a directory.
bool IsStoreTarget(const std::string& target);
// `zones STORE [--json] [--zone N] [--count N]`: mounts the store and reports every drive.
int CmdStoreZones(const Args& args);

}  // namespace smr::tool
