// smrstore-tool's collection and object commands (object_commands.cc), registered by
// AddStoreCommands (store_commands.cc). Each takes the parsed command line and returns the
// exit code: 0 ok, 1 the operation failed, 2 usage (cli.h).
#pragma once

#include "cli/cli.h"

namespace smr::tool {

int CmdMkcoll(const Args& args);
int CmdRmcoll(const Args& args);
int CmdLscoll(const Args& args);
int CmdPut(const Args& args);
int CmdGet(const Args& args);
int CmdRm(const Args& args);
int CmdLs(const Args& args);
int CmdStat(const Args& args);
int CmdSetxattr(const Args& args);
int CmdGetxattr(const Args& args);
int CmdListxattr(const Args& args);
int CmdSetomapval(const Args& args);
int CmdSetomapvals(const Args& args);
int CmdGetomapval(const Args& args);
int CmdListomapkeys(const Args& args);

}  // namespace smr::tool
