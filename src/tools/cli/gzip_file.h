// The whole of a file that may be gzip-compressed (zlib's gzread reads plain files as
// they are): qa/traces' captures, trace.json.gz, for `replay` and `what-if`.
// Errors: kNotFound (cannot open), kCorruption (not a readable gzip stream).
// Thread safety: a pure function of the file.
#pragma once

#include <string>

#include "common/result.h"

namespace smr::tool {

Result<std::string> ReadGzipOrPlain(const std::string& path);

}  // namespace smr::tool
