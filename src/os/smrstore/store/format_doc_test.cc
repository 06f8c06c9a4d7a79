// doc/format.md's "Versions" table against the code: every row names the version
// constants of its encoding (`ns::kName` in backticks) and a version ("1", or "1.0" for a
// major.minor pair), which must equal the constants' values; every version constant of
// the on-disk headers (format/, meta/, device/ *.h: `constexpr uintN_t k…Version|Major|Minor
// = …`) must be in kConstants below and named by some row. A new encoding or a version
// bump therefore fails here until the doc and this list say so.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "device/emulated_format.h"
#include "format/journal.h"
#include "format/record_format.h"
#include "meta/key_schema.h"
#include "meta/onode.h"

namespace smr {
namespace {

struct Constant {
  const char* header;  // path under src/os/smrstore
  const char* name;    // as declared
  uint64_t value;
};

// Qualified name (as the doc writes it) -> where it is declared and its value.
const std::map<std::string, Constant>& Constants() {
  static const std::map<std::string, Constant> m = {
      {"emufmt::kVersion", {"device/emulated_format.h", "kVersion", emufmt::kVersion}},
      {"emufmt::kHybridVersion",
       {"device/emulated_format.h", "kHybridVersion", emufmt::kHybridVersion}},
      {"recfmt::kVersion", {"format/record_format.h", "kVersion", recfmt::kVersion}},
      {"recfmt::kSuperblockMajor",
       {"format/record_format.h", "kSuperblockMajor", recfmt::kSuperblockMajor}},
      {"recfmt::kSuperblockMinor",
       {"format/record_format.h", "kSuperblockMinor", recfmt::kSuperblockMinor}},
      {"recfmt::kStoreFormatVersion",
       {"format/record_format.h", "kStoreFormatVersion", recfmt::kStoreFormatVersion}},
      {"journalfmt::kVersion", {"format/journal.h", "kVersion", journalfmt::kVersion}},
      {"keys::kFormatVersion", {"meta/key_schema.h", "kFormatVersion", keys::kFormatVersion}},
      {"valfmt::kOnodeVersion", {"meta/onode.h", "kOnodeVersion", valfmt::kOnodeVersion}},
      {"valfmt::kCollectionMetaVersion",
       {"meta/onode.h", "kCollectionMetaVersion", valfmt::kCollectionMetaVersion}},
      {"valfmt::kZoneMetaVersion",
       {"meta/onode.h", "kZoneMetaVersion", valfmt::kZoneMetaVersion}},
  };
  return m;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cell;
  for (size_t i = 1; i < row.size(); ++i) {  // row[0] is the leading '|'
    if (row[i] == '|') {
      out.push_back(cell);
      cell.clear();
    } else {
      cell.push_back(row[i]);
    }
  }
  for (std::string& c : out) {
    c.erase(0, c.find_first_not_of(' '));
    c.erase(c.find_last_not_of(' ') + 1);
  }
  return out;
}

// The rows of the table under "## Versions" (header and separator rows left out).
std::vector<std::string> VersionRows(const std::string& doc) {
  std::istringstream in(doc);
  std::string line;
  bool in_section = false, in_table = false;
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      if (in_section) break;
      in_section = line == "## Versions";
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("|", 0) == 0) {
      in_table = true;
      rows.push_back(line);
    } else if (in_table) {
      break;
    }
  }
  if (rows.size() >= 2) rows.erase(rows.begin(), rows.begin() + 2);
  return rows;
}

TEST(FormatDoc, VersionTableMatchesTheConstants) {
  const std::vector<std::string> rows = VersionRows(ReadFile(SMRSTORE_FORMAT_DOC));
  ASSERT_GE(rows.size(), 10u) << "no \"## Versions\" table in " << SMRSTORE_FORMAT_DOC;
  const std::regex constant_re("`([a-z]+::k[A-Za-z0-9]+)`");
  std::set<std::string> named;
  for (const std::string& row : rows) {
    const std::vector<std::string> cells = Cells(row);
    ASSERT_EQ(cells.size(), 4u) << row;
    std::vector<std::string> constants;
    for (std::sregex_iterator it(cells[1].begin(), cells[1].end(), constant_re), end; it != end;
         ++it) {
      constants.push_back((*it)[1]);
    }
    ASSERT_FALSE(constants.empty()) << "a row names no version constant: " << row;
    std::vector<uint64_t> versions;
    std::istringstream v(cells[2]);
    for (std::string part; std::getline(v, part, '.');) {
      ASSERT_FALSE(part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
          << "version \"" << cells[2] << "\" is not N or N.M: " << row;
      versions.push_back(std::stoull(part));
    }
    ASSERT_TRUE(versions.size() == 1 || versions.size() == constants.size()) << row;
    for (size_t i = 0; i < constants.size(); ++i) {
      auto c = Constants().find(constants[i]);
      ASSERT_NE(c, Constants().end()) << constants[i] << " is not a version constant: " << row;
      named.insert(constants[i]);
      const uint64_t want = versions.size() == 1 ? versions[0] : versions[i];
      EXPECT_EQ(c->second.value, want)
          << "doc/format.md says " << constants[i] << " is " << want << ", the code has "
          << c->second.value << ": " << row;
    }
  }
  for (const auto& [name, c] : Constants()) {
    EXPECT_TRUE(named.count(name)) << name << " (" << c.header << ") has no row in the table";
  }
}

// Every version constant declared in the on-disk headers is in Constants(), so the table
// cannot miss an encoding by this list missing it.
TEST(FormatDoc, EveryVersionConstantOfTheHeadersIsListed) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(SMRSTORE_FORMAT_DOC).parent_path().parent_path() /
                        "src" / "os" / "smrstore";
  const std::regex decl_re(
      R"(constexpr\s+uint(?:8|16|32|64)_t\s+(k\w*(?:Version|Major|Minor))\s*=)");
  std::set<std::pair<std::string, std::string>> listed;
  for (const auto& [name, c] : Constants()) listed.insert({c.header, c.name});
  size_t found = 0;
  for (const char* dir : {"format", "meta", "device"}) {
    for (const auto& entry : fs::directory_iterator(root / dir)) {
      if (entry.path().extension() != ".h") continue;
      const std::string text = ReadFile(entry.path().string());
      const std::string header = std::string(dir) + "/" + entry.path().filename().string();
      for (std::sregex_iterator it(text.begin(), text.end(), decl_re), end; it != end; ++it) {
        ++found;
        EXPECT_TRUE(listed.count({header, (*it)[1]}))
            << header << " declares " << (*it)[1]
            << ": add it to Constants() here and a row to doc/format.md \"Versions\"";
      }
    }
  }
  EXPECT_EQ(found, Constants().size());
}

}  // namespace
}  // namespace smr
