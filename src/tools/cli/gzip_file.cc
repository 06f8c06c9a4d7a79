#include "gzip_file.h"

#include <zlib.h>

#include <vector>

namespace smr::tool {

Result<std::string> ReadGzipOrPlain(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads uncompressed files as well
  if (f == nullptr) return Status::NotFound("cannot open " + path);
  std::string text;
  std::vector<char> chunk(1 << 16);
  int got = 0;
  while ((got = gzread(f, chunk.data(), static_cast<unsigned>(chunk.size()))) > 0) {
    text.append(chunk.data(), static_cast<size_t>(got));
  }
  gzclose(f);
  if (got < 0) return Status::Corruption(path + ": not a readable gzip file");
  return text;
}

}  // namespace smr::tool
