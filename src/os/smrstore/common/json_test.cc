// common/json: ParseJson's rules on top of nlohmann::json (whole input one value, depth cap,
// unique member names, errors as Status), FlattenJson's paths, JsonEscape, JsonU64.
#include "common/json.h"

#include <gtest/gtest.h>

#include <string>

namespace smr {
namespace {

TEST(ParseJson, RefusesMalformedDocumentsAsCorruption) {
  for (const char* bad : {"", "{", "{\"a\": }", "{\"a\": 1,}", "[1 2]", "{\"a\": nan}",
                          "{\"a\": 1} x", "\"tab\there\"", "{'a': 1}", "[1] [2]"}) {
    auto r = ParseJson(bad);
    ASSERT_FALSE(r.ok()) << "accepted: " << bad;
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    EXPECT_EQ(r.status().ToString().find("JSON: "), r.status().ToString().find("JSON"))
        << r.status().ToString();
  }
  auto ok = ParseJson(" {\"k\": [1, -2.5e3, true, null, \"q\\\"\"]}\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->at("k").size(), 5u);
  EXPECT_EQ(ok->at("k").at(1).get<double>(), -2500);
  EXPECT_EQ(ok->at("k").at(4).get<std::string>(), "q\"");
}

// nlohmann's lexer ends the input at a NUL byte: "0\0s,..." was accepted as 0 (the
// stats_json fuzzer's first finding). A NUL anywhere is refused.
TEST(ParseJson, ANulByteAnywhereIsRefused) {
  for (const std::string& bad : {std::string("0\0s,****{", 9), std::string("{\"a\": 1}\0x", 10),
                                std::string("\"a\0b\"", 5), std::string("\0", 1)}) {
    auto r = ParseJson(bad);
    ASSERT_FALSE(r.ok()) << "accepted a NUL byte";
    EXPECT_NE(r.status().ToString().find("NUL byte"), std::string::npos) << r.status().ToString();
  }
}

// A UTF-8 byte order mark is skipped as the input's first bytes only (the library's rule;
// the stats_json fuzzer's property had assumed none).
TEST(ParseJson, AByteOrderMarkIsAcceptedOnlyAtTheVeryStart) {
  const std::string bom = "\xEF\xBB\xBF";
  auto first = ParseJson(bom + "33333333");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->get<uint64_t>(), 33333333u);
  EXPECT_FALSE(ParseJson(" " + bom + "1").ok());
  EXPECT_FALSE(ParseJson("[" + bom + "1]").ok());
}

TEST(ParseJson, ANameTwiceInOneObjectIsRefusedButNotAcrossObjects) {
  auto dup = ParseJson("{\"a\": 1, \"b\": {\"a\": 2}, \"a\": 3}");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().ToString().find("\"a\" appears twice"), std::string::npos)
      << dup.status().ToString();
  auto nested = ParseJson("{\"a\": {\"a\": {\"a\": 1}}, \"b\": [{\"a\": 1}, {\"a\": 2}]}");
  EXPECT_TRUE(nested.ok()) << nested.status().ToString();
}

TEST(ParseJson, NestingIsCappedAt64Levels) {
  auto nest = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
  EXPECT_TRUE(ParseJson(nest(kMaxJsonDepth)).ok());
  auto deep = ParseJson(nest(kMaxJsonDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().ToString().find("nested deeper than 64 levels"), std::string::npos)
      << deep.status().ToString();
  std::string objects;
  for (int i = 0; i <= kMaxJsonDepth; ++i) objects += "{\"a\":";
  EXPECT_FALSE(ParseJson(objects + "1" + std::string(kMaxJsonDepth + 1, '}')).ok());
  // A hostile file: two million '[' (it once overflowed the tool's stack).
  EXPECT_FALSE(ParseJson(std::string(2000000, '[')).ok());
}

TEST(FlattenJson, PathsInDocumentOrderStringsUnquoted) {
  auto doc = ParseJson(
      "{\"z\": {\"b\": 1, \"a\": \"x y\"}, \"arr\": [true, null, 2.5, {\"k\": []}], \"e\": {}}");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  const auto kv = FlattenJson(*doc);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"z.b", "1"}, {"z.a", "x y"}, {"arr[0]", "true"}, {"arr[1]", "null"}, {"arr[2]", "2.5"}};
  EXPECT_EQ(kv, want);
}

TEST(JsonEscape, ControlCharactersQuotesAndBadUtf8GiveValidJson) {
  EXPECT_EQ(JsonEscape("plain"), "plain");
  EXPECT_EQ(JsonEscape("a\"b\\c\nd\te\x01"), "a\\\"b\\\\c\\nd\\te\\u0001");
  const std::string bad = "x\xff" "y";
  auto round = ParseJson("\"" + JsonEscape(bad) + "\"");
  ASSERT_TRUE(round.ok()) << round.status().ToString();
  EXPECT_EQ(round->get<std::string>(), "x\xef\xbf\xbdy");  // U+FFFD
  const std::string name = "we\"ird\\name\t1\x7f\xc3\xa9";
  auto back = ParseJson("\"" + JsonEscape(name) + "\"");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->get<std::string>(), name);
}

TEST(JsonU64, OnlyNonNegativeIntegralNumbers) {
  auto v = ParseJson("[0, 18446744073709551615, 3.0, -1, 2.5, \"7\", null, 1e30]");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*JsonU64(v->at(0), "a"), 0u);
  EXPECT_EQ(*JsonU64(v->at(1), "a"), UINT64_MAX);
  EXPECT_EQ(*JsonU64(v->at(2), "a"), 3u);
  for (size_t i = 3; i < v->size(); ++i) {
    auto r = JsonU64(v->at(i), "field 'size'");
    ASSERT_FALSE(r.ok()) << v->at(i).dump();
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().ToString().find("field 'size'"), std::string::npos);
  }
}

}  // namespace
}  // namespace smr
