// A small subcommand framework for smrstore-tool: each subcommand declares its positional
// arguments and options; parsing, --help and error messages are uniform.
//
// Contract: Run() parses argv, prints help for `--help` (exit 0), prints a one-line error
// and the usage hint for bad arguments (exit 2), otherwise returns the command's exit code.
// Commands report failures as one line on stderr ("smrstore-tool CMD: <reason>") and a
// non-zero exit. Thread safety: single-threaded use from main().
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/json.h"
#include "common/status.h"

namespace smr {
struct StoreOptions;
}

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
// Parses "START:URGENT:STOP", the store's GC watermarks as free fractions (StoreOptions::
// gc_start_free, gc_urgent_free, gc_stop_free; bench and what-if --gc-free);
// kInvalidArgument naming the text unless 0 <= URGENT <= START <= STOP < 1.
Result<std::array<double, 3>> ParseGcFree(const std::string& text);
// Store options from the command line, through the option table (store/options_table.h):
// `--opt KEY=VALUE[,KEY=VALUE...]` (any option) and the named flags in `flags` (flag name
// -> option key; each stands for one option), plus `--gc-free START:URGENT:STOP` when
// `gc_free` (the three watermarks). Each option given is set in `o` and its key added to
// `given`; an unknown key or a bad value is kInvalidArgument naming the flag, the key and
// what is expected (the nearest valid keys for an unknown one); on error `o` and `given`
// are unchanged. The cross-option rules are left to Store::Mkfs.
Status ApplyStoreOptionArgs(const Args& args,
                            const std::vector<std::pair<std::string, std::string>>& flags,
                            bool gc_free, StoreOptions* o, std::set<std::string>* given);
// The --help line of a flag standing for option `key`: the table's help and default.
std::string StoreOptionHelp(const std::string& key);
// The --help line of --opt.
extern const char* const kStoreOptHelp;

// Exit codes, one convention for every command (documented in --help and
// doc/operations.md): 0 ok; 1 the operation failed (device/store errors, a named object,
// collection or zone that does not exist, no space, a drive that belongs to a store...);
// 2 usage: the command line itself is wrong, decidable without touching a device or
// store (unknown command or option, wrong number of arguments, a value that does not
// parse or is outside its fixed range, missing or conflicting options).
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
// Prints "smrstore-tool CMD: <status>" to stderr and returns 1.
int Fail(const std::string& command, const Status& status);
// Prints "smrstore-tool CMD: <status> (see smrstore-tool CMD --help)" and returns 2.
int UsageFail(const std::string& command, const Status& status);
// A name (object, collection, xattr, omap key, path) made safe to print on a terminal:
// control bytes (< 0x20, 0x7f) and backslashes are escaped as \xNN (a backslash as \\),
// everything else (UTF-8 included) is kept. Every printer of names in the tool uses it.
std::string PrintableName(const std::string& name);
// JSON string escaping for the commands' JSON output.
using ::smr::JsonEscape;

}  // namespace smr::tool
