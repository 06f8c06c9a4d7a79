#include "common/pattern.h"

#include <cstring>

namespace smr {

namespace {

// splitmix64 of (seed, 8-byte word index): cheap and well mixed.
uint64_t Word(uint64_t seed, uint64_t word_index) {
  uint64_t x = seed * 0x100000001b3ull ^ word_index;
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint8_t Byte(uint64_t seed, uint64_t pos) {
  return static_cast<uint8_t>(Word(seed, pos >> 3) >> (8 * (pos & 7)));
}

}  // namespace

void FillPattern(uint64_t seed, uint64_t offset, void* buf, size_t len) {
  auto* p = static_cast<uint8_t*>(buf);
  size_t i = 0;
  for (; i < len && ((offset + i) & 7) != 0; ++i) p[i] = Byte(seed, offset + i);
  for (; i + 8 <= len; i += 8) {
    const uint64_t w = Word(seed, (offset + i) >> 3);
    uint8_t bytes[8];
    for (int b = 0; b < 8; ++b) bytes[b] = static_cast<uint8_t>(w >> (8 * b));
    std::memcpy(p + i, bytes, 8);
  }
  for (; i < len; ++i) p[i] = Byte(seed, offset + i);
}

bool CheckPattern(uint64_t seed, uint64_t offset, const void* buf, size_t len) {
  const auto* p = static_cast<const uint8_t*>(buf);
  uint8_t chunk[4096];
  for (size_t done = 0; done < len;) {
    const size_t n = len - done < sizeof(chunk) ? len - done : sizeof(chunk);
    FillPattern(seed, offset + done, chunk, n);
    if (std::memcmp(chunk, p + done, n) != 0) return false;
    done += n;
  }
  return true;
}

}  // namespace smr
