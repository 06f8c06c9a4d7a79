// A small subcommand framework for smrstore-tool: each subcommand declares its positional
// arguments and options; parsing, --help and error messages are uniform.
//
// Contract: Run() parses argv, prints help for `--help` (exit 0), prints a one-line error
// and the usage hint for bad arguments (exit 2), otherwise returns the command's exit code.
// Commands report failures as one line on stderr ("smrstore-tool CMD: <reason>") and a
// non-zero exit. Thread safety: single-threaded use from main().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/json.h"
#include "common/status.h"

namespace smr::tool {

struct OptionSpec {
  std::string name;  // without leading dashes
  std::string value_name;  // empty for a flag
  std::string help;
};

class Args {
 public:
  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // Integer option with optional K/M/G/T (binary) suffix, e.g. "64M".
  Result<uint64_t> size(const std::string& name, uint64_t fallback) const;
  Result<uint64_t> number(const std::string& name, uint64_t fallback) const;

 private:
  friend class Cli;
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
};

struct CommandSpec {
  std::string name;
  std::string positional_usage;  // e.g. "SPEC"
  std::string summary;
  std::string description;  // shown by --help
  size_t min_positional = 0;
  size_t max_positional = 0;
  std::vector<OptionSpec> options;
  std::function<int(const Args&)> run;
};

class Cli {
 public:
  explicit Cli(std::string program) : program_(std::move(program)) {}
  void Add(CommandSpec spec) { commands_.push_back(std::move(spec)); }
  int Run(int argc, char** argv) const;

 private:
  void PrintOverview() const;
  void PrintCommandHelp(const CommandSpec& cmd) const;
  std::string program_;
  std::vector<CommandSpec> commands_;
};

// Parses "123", "64K", "256M", "1G", "2T" (binary multiples). Errors name the text.
Result<uint64_t> ParseSize(const std::string& text);
// Prints "smrstore-tool CMD: <status>" to stderr and returns 1.
int Fail(const std::string& command, const Status& status);
// JSON string escaping for the commands' JSON output.
using ::smr::JsonEscape;

}  // namespace smr::tool
