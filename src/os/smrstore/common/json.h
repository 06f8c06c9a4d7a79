// JSON text helpers shared by the engine's stats and the tools (no JSON library needed for
// the small documents smrstore prints). Thread safety: pure functions.
#pragma once

#include <string>

namespace smr {

// Escapes `s` for use inside a JSON string literal (quotes not added): backslash, quote
// and control characters.
std::string JsonEscape(const std::string& s);

}  // namespace smr
