// smrstore.conf through the option tables (objectstore/smrstore_settings.h): every store
// option is a key of the file, bad input names the file, line and key and yields nothing,
// a mkfs-time key that differs from the store is refused for every option, and
// doc/options.md is what the tables generate (SMR_UPDATE_DOCS=1 rewrites it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "common/testing/test_util.h"
#include "objectstore/smrstore_settings.h"
#include "store/options_table.h"

namespace smr::ceph_adapter {
namespace {

// A valid value of `s` other than its default.
std::string OtherValue(const OptionSpec& s) {
  switch (s.type) {
    case OptionType::kBool: return s.default_text == "true" ? "false" : "true";
    case OptionType::kAutoBool: return s.default_text == "auto" ? "true" : "auto";
    case OptionType::kPolicy: return s.default_text == "greedy" ? "lifetime" : "greedy";
    case OptionType::kDouble: return s.default_text == "0.5" ? "0.25" : "0.5";
    default: {
      const uint64_t lo = static_cast<uint64_t>(s.lo);
      const std::string v = std::to_string(s.range == OptionRange::kZeroOr ? 0 : lo);
      return v != s.default_text ? v : std::to_string(lo + (s.range == OptionRange::kBlock ? 4096 : 1));
    }
  }
}

TEST(SettingsFile, EveryStoreOptionIsAMkfsKeyThatMustMatchTheStore) {
  for (const OptionSpec& s : StoreOptionSpecs()) {
    SCOPED_TRACE(s.name);
    const std::string other = OtherValue(s);
    auto set = ParseAdapterSettings(s.name + " = " + other + "\n", "smrstore.conf");
    ASSERT_OK(set.status());
    EXPECT_EQ(set->mkfs_keys.count(s.name), 1u);
    EXPECT_EQ(*GetStoreOption(set->store, s.name), *GetStoreOption([&] {
      StoreOptions o;
      EXPECT_OK(SetStoreOption(&o, s.name, other));
      return o;
    }(), s.name));
    // A store made with the defaults refuses a file that names another value...
    Status st = CheckMkfsKeys(*set, StoreOptions(), "smrstore.conf");
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_NE(st.ToString().find(s.name + " = " + other + " is a mkfs-time setting"),
              std::string::npos) << st.ToString();
    // ... and takes one that restates its value.
    auto same = ParseAdapterSettings(s.name + " = " + s.default_text, "smrstore.conf");
    ASSERT_OK(same.status());
    EXPECT_OK(CheckMkfsKeys(*same, StoreOptions(), "smrstore.conf"));
  }
}

TEST(SettingsFile, BadInputNamesTheLineAndKey) {
  auto st = ParseAdapterSettings("device_class = smr\n# c\ngc_polcy = greedy\n", "x.conf");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().ToString().find("x.conf:3: unknown key 'gc_polcy' (nearest: gc_policy"),
            std::string::npos) << st.status().ToString();
  st = ParseAdapterSettings("throttle_bytes = 100", "x.conf");
  EXPECT_NE(st.status().ToString().find("x.conf:1: throttle_bytes = '100': expected"),
            std::string::npos) << st.status().ToString();
  st = ParseAdapterSettings("on_transaction_error = sometimes", "x.conf");
  EXPECT_NE(st.status().ToString().find("abort / report"), std::string::npos)
      << st.status().ToString();
  st = ParseAdapterSettings("pack_max = 2000000", "x.conf");
  EXPECT_NE(st.status().ToString().find("pack_max = '2000000': expected"), std::string::npos)
      << st.status().ToString();
  st = ParseAdapterSettings("gc_stop_free = 1", "x.conf");
  EXPECT_FALSE(st.ok());
  st = ParseAdapterSettings("inline_max", "x.conf");
  EXPECT_NE(st.status().ToString().find("expected 'key = value'"), std::string::npos);
  auto ok = ParseAdapterSettings(
      "on_transaction_error = report\nthrottle_bytes = 4096\ndevice_class = smr\n", "x.conf");
  ASSERT_OK(ok.status());
  EXPECT_FALSE(ok->abort_on_error);
  EXPECT_EQ(ok->throttle_bytes, 4096u);
  EXPECT_EQ(ok->device_class, "smr");
  EXPECT_TRUE(ok->mkfs_keys.empty());
}

TEST(OptionsDoc, CommittedDocMatchesTheTable) {
  const std::string want = RenderSettingsMarkdown();
  if (const char* u = std::getenv("SMR_UPDATE_DOCS"); u != nullptr && std::string(u) == "1") {
    std::ofstream(SMRSTORE_OPTIONS_DOC) << want;
  }
  std::ifstream f(SMRSTORE_OPTIONS_DOC);
  ASSERT_TRUE(f) << SMRSTORE_OPTIONS_DOC << " is missing (SMR_UPDATE_DOCS=1 ctest -R OptionsDoc)";
  std::stringstream have;
  have << f.rdbuf();
  EXPECT_EQ(have.str(), want)
      << SMRSTORE_OPTIONS_DOC << " is not what the option tables generate; regenerate it with "
      << "SMR_UPDATE_DOCS=1 ctest -R OptionsDoc";
}

}  // namespace
}  // namespace smr::ceph_adapter
