#include "common/crc32c.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace smr {
namespace {

TEST(Crc32c, StandardVectors) {
  EXPECT_EQ(crc32c::Value("123456789", 9), 0xE3069283u);
  EXPECT_EQ(crc32c::Value("", 0), 0u);
  std::string zeros(32, '\0');
  EXPECT_EQ(crc32c::Value(zeros.data(), zeros.size()), 0x8A9136AAu);  // RFC 3720 B.4
  std::string ones(32, '\xff');
  EXPECT_EQ(crc32c::Value(ones.data(), ones.size()), 0x62A8AB43u);
}

TEST(Crc32c, ExtendEqualsWhole) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7 + 3));
  const uint32_t whole = crc32c::Value(data.data(), data.size());
  for (size_t cut : {0, 1, 7, 8, 9, 500, 999, 1000}) {
    uint32_t c = crc32c::Value(data.data(), cut);
    c = crc32c::Extend(c, data.data() + cut, data.size() - cut);
    EXPECT_EQ(c, whole) << "cut at " << cut;
  }
}

TEST(Crc32c, UnalignedStartsAgree) {
  std::string data(4100, 'x');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i ^ (i >> 8));
  // The same 4000 bytes at different alignments give the same crc.
  const uint32_t ref = crc32c::Value(data.data() + 8, 4000);
  std::string copy = data.substr(8, 4000);
  for (size_t shift = 1; shift < 8; ++shift) {
    std::string buf(shift, '\0');
    buf += copy;
    EXPECT_EQ(crc32c::Value(buf.data() + shift, 4000), ref);
  }
}

TEST(Crc32c, LargeBuffersAgreeWithSmallPieces) {
  // Buffers of 24 KiB and more take the three-stream path; pieces under 24 KiB never do.
  std::string data(300000 + 13, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 131) ^ (i >> 9));
  for (size_t len : {24576ul, 24577ul, 49152ul, 100000ul, data.size()}) {
    for (size_t start : {0ul, 3ul}) {
      uint32_t pieces = 0;
      for (size_t off = 0; off < len; off += 10000) {
        pieces = crc32c::Extend(pieces, data.data() + start + off, std::min<size_t>(10000, len - off));
      }
      EXPECT_EQ(crc32c::Value(data.data() + start, len), pieces) << len << " at " << start;
    }
  }
}

}  // namespace
}  // namespace smr
