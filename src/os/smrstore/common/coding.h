// Little-endian fixed-width encoding helpers for on-disk structures.
// Contract: EncodeFixedN writes exactly N/8 bytes little-endian at `dst`; DecodeFixedN reads
// them back from any alignment. Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <cstring>

namespace smr {

inline void EncodeFixed16(char* dst, uint16_t v) {
  for (int i = 0; i < 2; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}
inline void EncodeFixed32(char* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}
inline void EncodeFixed64(char* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}
inline uint16_t DecodeFixed16(const char* src) {
  uint16_t v = 0;
  for (int i = 0; i < 2; ++i) v |= static_cast<uint16_t>(static_cast<uint8_t>(src[i])) << (8 * i);
  return v;
}
inline uint32_t DecodeFixed32(const char* src) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(src[i])) << (8 * i);
  return v;
}
inline uint64_t DecodeFixed64(const char* src) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(src[i])) << (8 * i);
  return v;
}

}  // namespace smr
