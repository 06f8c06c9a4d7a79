// Deterministic data patterns: the bytes tools and tests write so they can verify them
// later without keeping a copy.
//
// Contract: byte at device offset `o` for `seed` is a fixed function of (seed, o), so any
// sub-range can be generated or checked on its own. Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace smr {

void FillPattern(uint64_t seed, uint64_t offset, void* buf, size_t len);
// True when `buf` equals FillPattern(seed, offset, ..., len).
bool CheckPattern(uint64_t seed, uint64_t offset, const void* buf, size_t len);

}  // namespace smr
