#include "cli.h"

#include "store/options_table.h"
#include "store/store.h"

#include <cstdlib>

#include <cstdio>
#include <iostream>

namespace smr::tool {

bool Args::has(const std::string& name) const {
  return flags_.count(name) > 0 || values_.count(name) > 0;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

Result<uint64_t> Args::size(const std::string& name, uint64_t fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  auto v = ParseSize(it->second);
  if (!v.ok()) return v.status().WithContext("--" + name);
  return v;
}

Result<uint64_t> Args::number(const std::string& name, uint64_t fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& s = it->second;
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19) {
    return Status::InvalidArgument("--" + name + ": '" + s + "' is not a non-negative integer");
  }
  return std::stoull(s);
}

const char* const kStoreOptHelp =
    "store options as KEY=VALUE[,KEY=VALUE...]: any of doc/options.md (smrstore-tool options)";

Status ApplyStoreOptionArgs(const Args& args,
                            const std::vector<std::pair<std::string, std::string>>& flags,
                            bool gc_free, StoreOptions* o, std::set<std::string>* given) {
  StoreOptions next = *o;
  std::set<std::string> keys = *given;
  for (const auto& [flag, key] : flags) {
    if (!args.has(flag)) continue;
    if (Status s = SetStoreOption(&next, key, args.get(flag)); !s.ok()) {
      return s.WithContext("--" + flag);
    }
    keys.insert(key);
  }
  if (gc_free && args.has("gc-free")) {
    auto w = ParseGcFree(args.get("gc-free"));
    if (!w.ok()) return w.status().WithContext("--gc-free");
    next.gc_start_free = (*w)[0];
    next.gc_urgent_free = (*w)[1];
    next.gc_stop_free = (*w)[2];
    keys.insert({"gc_start_free", "gc_urgent_free", "gc_stop_free"});
  }
  if (args.has("opt")) {
    const std::string text = args.get("opt");
    size_t start = 0;
    while (start <= text.size()) {
      size_t comma = text.find(',', start);
      if (comma == std::string::npos) comma = text.size();
      const std::string item = text.substr(start, comma - start);
      const size_t eq = item.find('=');
      if (eq == std::string::npos) {
        return Status::InvalidArgument("--opt: '" + item + "' is not KEY=VALUE");
      }
      const std::string key = item.substr(0, eq);
      if (Status s = SetStoreOption(&next, key, item.substr(eq + 1)); !s.ok()) {
        return s.WithContext("--opt");
      }
      keys.insert(key);
      start = comma + 1;
    }
  }
  *o = next;
  *given = std::move(keys);
  return Status::OK();
}

std::string StoreOptionHelp(const std::string& key) {
  const smr::OptionSpec* spec = FindOptionSpec(StoreOptionSpecs(), key);
  if (spec == nullptr) return "(no such store option: " + key + ")";
  return spec->help + " (store option " + key + "; default " + spec->default_text + ")";
}

Result<std::array<double, 3>> ParseGcFree(const std::string& text) {
  std::array<double, 3> w{};
  size_t at = 0;
  bool ok = true;
  for (size_t i = 0; ok && i < 3; ++i) {
    const size_t colon = i < 2 ? text.find(':', at) : text.size();
    if (colon == std::string::npos) {
      ok = false;
      break;
    }
    const std::string part = text.substr(at, colon - at);
    char* end = nullptr;
    w[i] = part.empty() ? -1 : std::strtod(part.c_str(), &end);
    ok = !part.empty() && end == part.c_str() + part.size();
    at = colon + 1;
  }
  if (!ok || text.find(':', at) != std::string::npos ||
      !(w[1] >= 0 && w[1] <= w[0] && w[0] <= w[2] && w[2] < 1)) {
    return Status::InvalidArgument(
        "'" + text +
        "' is not START:URGENT:STOP free fractions with 0 <= URGENT <= START <= STOP < 1");
  }
  return w;
}

Result<uint64_t> ParseSize(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 19) {
    return Status::InvalidArgument("'" + text + "' is not a size (e.g. 4096, 64K, 256M, 1G)");
  }
  uint64_t v = std::stoull(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  int shift = 0;
  if (suffix.empty() || suffix == "B") {
    shift = 0;
  } else if (suffix == "K" || suffix == "KiB" || suffix == "k") {
    shift = 10;
  } else if (suffix == "M" || suffix == "MiB") {
    shift = 20;
  } else if (suffix == "G" || suffix == "GiB") {
    shift = 30;
  } else if (suffix == "T" || suffix == "TiB") {
    shift = 40;
  } else {
    return Status::InvalidArgument("'" + text + "': unknown size suffix '" + suffix + "'");
  }
  if (shift > 0 && (v >> (64 - shift)) != 0) {
    return Status::InvalidArgument("'" + text + "' is too large");
  }
  return v << shift;
}

int Fail(const std::string& command, const Status& status) {
  std::cerr << "smrstore-tool " << command << ": " << PrintableName(status.ToString()) << "\n";
  return kExitFailed;
}

int UsageFail(const std::string& command, const Status& status) {
  std::cerr << "smrstore-tool " << command << ": " << PrintableName(status.ToString())
            << " (see smrstore-tool " << command << " --help)\n";
  return kExitUsage;
}

std::string PrintableName(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (unsigned char c : name) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}


void Cli::PrintOverview() const {
  std::cout << "usage: " << program_ << " COMMAND [ARGS] [OPTIONS]\n\n"
            << "Commands:\n";
  for (const auto& c : commands_) {
    std::string head = "  " + c.name;
    head.resize(std::max<size_t>(head.size() + 2, 16), ' ');
    std::cout << head << c.summary << "\n";
  }
  std::cout << "\nRun '" << program_ << " COMMAND --help' for a command's arguments.\n"
            << "Devices are named by spec strings: emu:PATH?zones=N&zone_mib=N&... or "
               "zbd:/dev/NODE (see doc/tools/smrstore-tool.md).\n"
            << "Exit status: 0 ok, 1 the operation failed, 2 usage error (unknown command or\n"
               "option, missing or invalid argument); errors are one line on stderr.\n";
}

void Cli::PrintCommandHelp(const CommandSpec& cmd) const {
  std::cout << "usage: " << program_ << " " << cmd.name;
  if (!cmd.positional_usage.empty()) std::cout << " " << cmd.positional_usage;
  if (!cmd.options.empty()) std::cout << " [OPTIONS]";
  std::cout << "\n\n" << cmd.summary << "\n";
  if (!cmd.description.empty()) std::cout << "\n" << cmd.description << "\n";
  // Every command's help has the same shape (usage, summary, description, Options:, exit
  // status): doc/tools/gen_tool_reference.py parses it into the generated reference,
  // doc/tools/smrstore-tool-reference.md.
  std::cout << "\nOptions:\n";
  if (!cmd.options.empty()) {
    for (const auto& o : cmd.options) {
      std::string head = "  --" + o.name + (o.value_name.empty() ? "" : " " + o.value_name);
      head.resize(std::max<size_t>(head.size() + 2, 26), ' ');
      std::cout << head << o.help << "\n";
    }
  }
  std::cout << "  --help                  show this help\n"
            << "\nExit status: 0 ok, 1 the operation failed, 2 usage error.\n";
}

int Cli::Run(int argc, char** argv) const {
  if (argc < 2) {
    std::cerr << program_ << ": no command (see " << program_ << " --help)\n";
    return kExitUsage;
  }
  if (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    PrintOverview();
    return kExitOk;
  }
  const std::string name = argv[1];
  const CommandSpec* cmd = nullptr;
  for (const auto& c : commands_) {
    if (c.name == name) cmd = &c;
  }
  if (cmd == nullptr) {
    std::cerr << program_ << ": unknown command '" << PrintableName(name) << "' (see " << program_
              << " --help)\n";
    return 2;
  }
  auto usage_error = [&](const std::string& msg) {
    std::cerr << program_ << " " << cmd->name << ": " << PrintableName(msg) << " (see " << program_ << " "
              << cmd->name << " --help)\n";
    return 2;
  };
  Args args;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      PrintCommandHelp(*cmd);
      return 0;
    }
    if (a.rfind("--", 0) == 0 && a.size() > 2) {
      std::string key = a.substr(2), value;
      bool inline_value = false;
      if (size_t eq = key.find('='); eq != std::string::npos) {
        value = key.substr(eq + 1);
        key = key.substr(0, eq);
        inline_value = true;
      }
      const OptionSpec* opt = nullptr;
      for (const auto& o : cmd->options) {
        if (o.name == key) opt = &o;
      }
      if (opt == nullptr) return usage_error("unknown option --" + key);
      if (opt->value_name.empty()) {
        if (inline_value) return usage_error("--" + key + " takes no value");
        args.flags_.insert(key);
        continue;
      }
      if (!inline_value) {
        if (i + 1 >= argc) return usage_error("--" + key + " needs a value");
        value = argv[++i];
      }
      if (args.values_.count(key)) return usage_error("--" + key + " given twice");
      args.values_[key] = value;
      continue;
    }
    args.positional_.push_back(a);
  }
  if (args.positional_.size() < cmd->min_positional ||
      args.positional_.size() > cmd->max_positional) {
    return usage_error("expects " + (cmd->positional_usage.empty() ? std::string("no arguments")
                                                                   : cmd->positional_usage));
  }
  return cmd->run(args);
}

}  // namespace smr::tool
