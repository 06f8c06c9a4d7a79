// smrstore-tool's store-level commands (store_admin_commands.cc): mkfs, df, stats, gc,
// fsck; the store form of `zones` is declared in store_commands.h. Registered by
// AddStoreCommands (store_commands.cc). Each returns the exit code: 0 ok, 1 the operation
// failed, 2 usage (cli.h).
#pragma once

#include "cli/cli.h"

namespace smr::tool {

int CmdMkfs(const Args& args);
// The store options (store/options.def): defaults, scope, range, help; --markdown: the table
// of doc/options.md's store section.
int CmdOptions(const Args& args);
int CmdDf(const Args& args);
int CmdStats(const Args& args);
int CmdGc(const Args& args);
int CmdFsck(const Args& args);

}  // namespace smr::tool
