// FUZZ_CHECK: a property a fuzz target asserts. A failure prints the condition and aborts,
// which libFuzzer reports as a crash and saves the input (crash-<sha1>).
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                          \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, \
                   #cond);                                                        \
      std::abort();                                                               \
    }                                                                             \
  } while (0)
