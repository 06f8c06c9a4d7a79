// Collection split at the widest mask (issue 43, semantic mutants, doc/testing.md "Semantic
// mutants"): split_bits of 32 compares the whole 32-bit hash. Killed mutant: the planner's
// mask test `bits >= 32` written `bits > 32` (store/txn_planner.cc, MoveMatching), which
// shifts a 32-bit 1 by 32 (undefined; on x86 the mask becomes 0 and a split by rem 0 moves
// every object); every other split test uses fewer bits and passed with it.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "store/testing/store_conformance_fixture.h"
#include "store/transaction.h"

namespace smr::conformance {
namespace {

TEST_F(StoreConformance, SplitByAll32BitsMovesOnlyTheObjectWithThatWholeHash) {
  const std::string a = "1.0_head", b = "1.1_head";
  MkColl(a, 2);
  MkColl(b, 2);
  const ObjectId zero = ObjH("zero", 0), top = ObjH("top", 0x80000000u),
                 low = ObjH("low", 0x00010000u), ones = ObjH("ones", 0xffffffffu);
  {
    Transaction t;
    for (const ObjectId& o : {zero, top, low, ones}) t.Write(a, o, 0, o.name);
    ASSERT_OK(Apply(std::move(t)));
  }
  {
    Transaction t;
    t.SplitCollection(a, 32, 0, b);  // only hash 0x00000000 matches
    ASSERT_OK(Apply(std::move(t)));
  }
  CheckAndRemount([&] {
    EXPECT_TRUE(store_->Exists(b, zero));
    for (const ObjectId& o : {top, low, ones}) {
      EXPECT_TRUE(store_->Exists(a, o)) << o.name;
      EXPECT_FALSE(store_->Exists(b, o)) << o.name;
    }
  });
}

}  // namespace
}  // namespace smr::conformance
