// The store's option table (store/options_table.h): every row parses its own default,
// refuses values of the wrong type and outside its range without changing anything, an
// unknown key names the nearest valid ones, the stored encoding round-trips, and
// Store::Mkfs refuses out-of-range options before touching a drive.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "common/testing/test_util.h"
#include "device/testing/device_test_backends.h"
#include "store/options_table.h"
#include "store/store.h"

namespace smr {
namespace {

std::string Text(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// Values just outside a row's range, as text (none for rows without one).
std::vector<std::string> OutsideValues(const OptionSpec& s) {
  std::vector<std::string> out;
  const bool integer = s.type == OptionType::kU32 || s.type == OptionType::kU64;
  switch (s.range) {
    case OptionRange::kNone:
      break;
    case OptionRange::kClosed:
    case OptionRange::kBlock:
    case OptionRange::kZeroOr:
      if (s.lo > 0 && !(s.range == OptionRange::kZeroOr && s.lo == 1)) {
        out.push_back(integer ? std::to_string(static_cast<uint64_t>(s.lo) - 1) : Text(s.lo - 1e-6));
      }
      if (s.hi < UINT32_MAX) {
        out.push_back(integer ? std::to_string(static_cast<uint64_t>(s.hi) + 1) : Text(s.hi + 1e-6));
      }
      if (s.range == OptionRange::kBlock) out.push_back(std::to_string(static_cast<uint64_t>(s.lo) + 1));
      break;
    case OptionRange::kHalfOpen:
      out.push_back(Text(s.hi));  // the open end
      if (s.lo > -1e300) out.push_back(Text(s.lo - 1e-6));
      break;
  }
  return out;
}

// Values that are no value of the row's type.
std::vector<std::string> WrongTypeValues(const OptionSpec& s) {
  switch (s.type) {
    case OptionType::kU32:
    case OptionType::kU64: return {"", "-3", "1.5", "abc", "12X", "99999999999999999999"};
    case OptionType::kDouble: return {"", "1%", "abc", "nan", "inf", "0.1.2"};
    case OptionType::kBool: return {"", "maybe", "2", "auto"};
    case OptionType::kAutoBool: return {"", "sometimes", "2"};
    case OptionType::kPolicy: return {"", "lfs", "Greedy"};
    default: return {""};
  }
}

TEST(OptionsTable, EveryRowParsesItsDefaultAndTheDefaultsAreStoreOptions) {
  ASSERT_FALSE(StoreOptionSpecs().empty());
  for (const OptionSpec& s : StoreOptionSpecs()) {
    SCOPED_TRACE(s.name);
    StoreOptions o;
    ASSERT_OK(SetStoreOption(&o, s.name, s.default_text));
    EXPECT_TRUE(StoreOptionsEqual(o, StoreOptions()));
    EXPECT_EQ(*GetStoreOption(StoreOptions(), s.name), s.default_text);
    EXPECT_FALSE(s.help.empty());
  }
  EXPECT_OK(ValidateStoreOptions(StoreOptions()));
}

TEST(OptionsTable, OutOfRangeAndWrongTypeAreRefusedAndChangeNothing) {
  size_t checked = 0;
  for (const OptionSpec& s : StoreOptionSpecs()) {
    std::vector<std::string> bad = OutsideValues(s);
    for (const std::string& w : WrongTypeValues(s)) bad.push_back(w);
    for (const std::string& v : bad) {
      SCOPED_TRACE(s.name + " = '" + v + "'");
      StoreOptions o;
      Status st = SetStoreOption(&o, s.name, v);
      EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
      EXPECT_NE(st.ToString().find(s.name), std::string::npos) << st.ToString();
      EXPECT_NE(st.ToString().find("expected"), std::string::npos) << st.ToString();
      EXPECT_TRUE(StoreOptionsEqual(o, StoreOptions()));
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u);
}

// The ends of every range are taken; one step beyond is refused (above), for values set
// in code as for text (ValidateStoreOptions, what Store::Mkfs runs).
TEST(OptionsTable, RangeEndsAreTakenAndCodeSetValuesAreCheckedToo) {
  for (const OptionSpec& s : StoreOptionSpecs()) {
    if (s.range == OptionRange::kNone) continue;
    SCOPED_TRACE(s.name);
    const bool integer = s.type == OptionType::kU32;
    std::vector<std::string> ok = {integer ? std::to_string(static_cast<uint64_t>(s.lo)) : Text(s.lo)};
    if (s.range != OptionRange::kHalfOpen) {
      ok.push_back(integer ? std::to_string(static_cast<uint64_t>(s.hi)) : Text(s.hi));
    }
    if (s.range == OptionRange::kZeroOr) ok.push_back("0");
    for (const std::string& v : ok) {
      SCOPED_TRACE(v);
      StoreOptions o;
      EXPECT_OK(SetStoreOption(&o, s.name, v));
    }
  }
  // Set in code, outside the table's ranges: refused by the same rows.
  StoreOptions o;
  o.pack_max = kMaxPackPayload + 1;
  EXPECT_NE(ValidateStoreOptions(o).ToString().find("pack_max"), std::string::npos);
  o = StoreOptions();
  o.gc_idle_slice = kMinGcIdleSlice - 1;
  EXPECT_NE(ValidateStoreOptions(o).ToString().find("gc_idle_slice"), std::string::npos);
  o = StoreOptions();
  o.max_record_payload = 4096 + 512;
  EXPECT_NE(ValidateStoreOptions(o).ToString().find("max_record_payload"), std::string::npos);
  o = StoreOptions();
  o.gc_reserve_zones = 0;
  EXPECT_NE(ValidateStoreOptions(o).ToString().find("gc_reserve_zones"), std::string::npos);
  o = StoreOptions();
  o.hybrid_shrink_free = o.hybrid_convert_free + 0.05;
  EXPECT_NE(ValidateStoreOptions(o).ToString().find("hybrid_shrink_free"), std::string::npos);
}

TEST(OptionsTable, AnUnknownKeyNamesTheNearestValidOnes) {
  StoreOptions o;
  Status st = SetStoreOption(&o, "gc_polcy", "greedy");
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.ToString().find("unknown key 'gc_polcy'"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find("nearest: gc_policy"), std::string::npos) << st.ToString();
  st = SetStoreOption(&o, "pack-max", "0");
  EXPECT_NE(st.ToString().find("nearest: pack_max"), std::string::npos) << st.ToString();
  EXPECT_TRUE(StoreOptionsEqual(o, StoreOptions()));
  EXPECT_FALSE(GetStoreOption(o, "nope").ok());
}

TEST(OptionsTable, TheStoredEncodingRoundTripsAndRefusesWhatItDoesNotKnow) {
  StoreOptions o;
  o.gc_policy = VictimPolicy::kGreedy;
  o.gc_start_free = 0.015;
  o.gc_urgent_free = 0.005;
  o.gc_stop_free = 0.025;
  o.gc_read_ahead = false;
  o.journal_with_data = true;
  o.pack_max = 0;
  o.separate_streams = false;
  auto back = DecodeStoreOptions(EncodeStoreOptions(o));
  ASSERT_OK(back.status());
  EXPECT_TRUE(StoreOptionsEqual(*back, o));
  // The encoding before the table (bools as 1/0, doubles with six decimals) still reads.
  auto old = DecodeStoreOptions("max_record_payload=1048576\ngc_policy=greedy\n"
                                "separate_streams=0\ngc_start_free=0.030000\n"
                                "gc_read_ahead=auto\njournal_with_data=1\n");
  ASSERT_OK(old.status());
  EXPECT_EQ(old->gc_policy, VictimPolicy::kGreedy);
  EXPECT_FALSE(old->separate_streams);
  EXPECT_FALSE(old->gc_read_ahead.has_value());
  EXPECT_EQ(old->journal_with_data, std::optional<bool>(true));
  EXPECT_TRUE(DecodeStoreOptions("gc_polcy=greedy\n").status().IsCorruption());
  EXPECT_TRUE(DecodeStoreOptions("pack_max=2000000\n").status().IsCorruption());
  EXPECT_TRUE(DecodeStoreOptions("gc_stop_free=0.001\n").status().IsCorruption());
}

TEST(OptionsTable, MkfsRefusesAnOutOfRangeOptionBeforeTouchingADrive) {
  smr::testing::ScratchDir dir;
  const std::string spec = "emu:" + dir.path() + "/d0.img?zones=16&zone_mib=4&conv=1";
  StoreOptions o;
  o.inline_max = 65537;
  Status st = Store::Mkfs(dir.path() + "/store", {spec}, o);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.ToString().find("inline_max"), std::string::npos) << st.ToString();
  struct stat sb;
  EXPECT_NE(::stat((dir.path() + "/d0.img").c_str(), &sb), 0) << "a refused mkfs made a drive";
  EXPECT_NE(::stat((dir.path() + "/store/meta").c_str(), &sb), 0);
}

TEST(OptionsTable, TheMarkdownHasARowPerOption) {
  const std::string md = RenderOptionsMarkdown("Store options", StoreOptionSpecs());
  for (const OptionSpec& s : StoreOptionSpecs()) {
    EXPECT_NE(md.find("| `" + s.name + "` |"), std::string::npos) << s.name;
  }
}

}  // namespace
}  // namespace smr
