// CRC-32C (Castagnoli), the checksum of every smrstore on-disk structure.
//
// Contract: Value(data, n) is the standard CRC-32C (iSCSI, RFC 3720: init ~0, final xor ~0),
// e.g. Value("123456789") == 0xE3069283. Extend(crc, data, n) continues a previous Value,
// so Extend(Value(a), b) == Value(a ++ b). Uses the SSE4.2 crc32 instruction when the CPU
// has it (checked once at run time), else a table; both give identical results.
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace smr::crc32c {

uint32_t Extend(uint32_t crc, const void* data, size_t n);
inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }
// True when the hardware path is in use (for benchmarks and logs).
bool IsHardwareAccelerated();

}  // namespace smr::crc32c
