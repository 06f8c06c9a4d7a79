#include "common/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace smr::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;  // reflected Castagnoli polynomial

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kTable = MakeTable();

uint32_t ExtendSoftware(uint32_t crc, const uint8_t* p, size_t n) {
  uint32_t c = ~crc;
  for (size_t i = 0; i < n; ++i) c = kTable[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__)
// Large buffers: three independent crc32 instruction chains over three adjacent blocks of
// kStripe bytes run in parallel in the CPU (the instruction has a 3-cycle latency but a
// 1-cycle throughput), then are joined: with R0(X) the register after X from state 0,
//   R(A B C) = shift(shift(R(A)) ^ R0(B)) ^ R0(C),   shift(x) = x advanced over kStripe zeros.
// shift is linear over GF(2), so it is a 4 x 256-entry table built once from 32 basis states.
constexpr size_t kStripe = 8192;

__attribute__((target("sse4.2"))) uint64_t Chain(uint64_t c, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v;
    std::memcpy(&v, p + i, 8);
    c = _mm_crc32_u64(c, v);
  }
  return c;
}

struct ShiftTable {
  uint32_t t[4][256];
  ShiftTable() {
    static const uint8_t zeros[kStripe] = {};
    uint32_t basis[32];
    for (int b = 0; b < 32; ++b) basis[b] = static_cast<uint32_t>(Chain(1u << b, zeros, kStripe));
    for (int k = 0; k < 4; ++k) {
      for (uint32_t v = 0; v < 256; ++v) {
        uint32_t r = 0;
        for (int bit = 0; bit < 8; ++bit) {
          if (v & (1u << bit)) r ^= basis[8 * k + bit];
        }
        t[k][v] = r;
      }
    }
  }
  uint32_t Shift(uint32_t x) const {
    return t[0][x & 0xff] ^ t[1][(x >> 8) & 0xff] ^ t[2][(x >> 16) & 0xff] ^ t[3][x >> 24];
  }
};

__attribute__((target("sse4.2"))) uint64_t ThreeWay(uint64_t c, const uint8_t* p, size_t n,
                                                    size_t* consumed) {
  static const ShiftTable table;
  size_t done = 0;
  while (n - done >= 3 * kStripe) {
    const uint8_t* a = p + done;
    const uint8_t* b = a + kStripe;
    const uint8_t* d = b + kStripe;
    uint64_t ca = c, cb = 0, cc = 0;
    for (size_t i = 0; i < kStripe; i += 8) {
      uint64_t va, vb, vc;
      std::memcpy(&va, a + i, 8);
      std::memcpy(&vb, b + i, 8);
      std::memcpy(&vc, d + i, 8);
      ca = _mm_crc32_u64(ca, va);
      cb = _mm_crc32_u64(cb, vb);
      cc = _mm_crc32_u64(cc, vc);
    }
    const uint32_t ab = table.Shift(static_cast<uint32_t>(ca)) ^ static_cast<uint32_t>(cb);
    c = table.Shift(ab) ^ static_cast<uint32_t>(cc);
    done += 3 * kStripe;
  }
  *consumed = done;
  return c;
}

__attribute__((target("sse4.2"))) uint32_t ExtendHardware(uint32_t crc, const uint8_t* p,
                                                          size_t n) {
  uint64_t c = ~crc;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    --n;
  }
  if (n >= 3 * kStripe) {
    size_t consumed = 0;
    c = ThreeWay(c, p, n, &consumed);
    p += consumed;
    n -= consumed;
  }
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = _mm_crc32_u64(c, v);
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    --n;
  }
  return ~static_cast<uint32_t>(c);
}

bool DetectHardware() { return __builtin_cpu_supports("sse4.2"); }
#else
bool DetectHardware() { return false; }
#endif

const bool kHardware = DetectHardware();

}  // namespace

uint32_t Extend(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
#if defined(__x86_64__)
  if (kHardware) return ExtendHardware(crc, p, n);
#endif
  return ExtendSoftware(crc, p, n);
}

bool IsHardwareAccelerated() { return kHardware; }

}  // namespace smr::crc32c
