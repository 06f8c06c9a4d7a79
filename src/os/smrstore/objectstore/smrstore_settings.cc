#include "objectstore/smrstore_settings.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace smr::ceph_adapter {
namespace {

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// Sets the adapter setting `key`; false when `key` is not one.
Result<bool> SetAdapterSetting(AdapterSettings* s, const std::string& key,
                               const std::string& value) {
  const OptionSpec* spec = FindOptionSpec(AdapterSettingSpecs(), key);
  if (spec == nullptr) return false;
  if (key == "on_transaction_error") {
    std::string v;
    SMR_RETURN_IF_ERROR(ParseOptionValue(*spec, value, &v));
    s->abort_on_error = v == "abort";
  } else if (key == "throttle_bytes") {
    SMR_RETURN_IF_ERROR(ParseOptionValue(*spec, value, &s->throttle_bytes));
  } else if (key == "device_class") {
    SMR_RETURN_IF_ERROR(ParseOptionValue(*spec, value, &s->device_class));
  } else {
    return Status::Corruption("adapter setting " + key + " has a row but no field");
  }
  return true;
}

}  // namespace

const std::vector<OptionSpec>& AdapterSettingSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"on_transaction_error", OptionType::kEnum, OptionScope::kMount, 0, 0, OptionRange::kNone,
       "abort: a transaction the engine refuses or cannot commit stops the OSD (as BlueStore "
       "does); report: its callbacks get the negative errno (tests and tools only)",
       "abort", "abort / report"},
      {"throttle_bytes", OptionType::kU64, OptionScope::kMount, 4096, 1ull << 40,
       OptionRange::kClosed,
       "queued, uncommitted transaction bytes before queue_transactions waits (keeping the "
       "OSD op thread's heartbeat alive while it does)",
       std::to_string(AdapterSettings().throttle_bytes), ""},
      {"device_class", OptionType::kString, OptionScope::kMount, 0, 0, OptionRange::kNone,
       "the OSD's default device class (CRUSH rules by class; `ceph osd tree`)",
       AdapterSettings().device_class, ""},
  };
  return specs;
}

std::string RenderSettingsMarkdown() {
  return "# Options\n\n"
         "Generated from the option tables (src/os/smrstore/store/options.def and "
         "AdapterSettingSpecs in\nsrc/os/smrstore/objectstore/smrstore_settings.cc) by "
         "`SMR_UPDATE_DOCS=1 ctest -R OptionsDoc`;\nctest checks that this file matches "
         "them. Do not edit by hand.\n\n"
         "Every option is a `key = value` line of an OSD's `smrstore.conf`. The store options "
         "are also\n`smrstore-tool mkfs --opt KEY=VALUE` and `smrstore-tool bench --opt "
         "KEY=VALUE`. **mkfs** options are\nkept in the store when it is made: a later "
         "smrstore.conf that names one with a different value\nrefuses the mount. **mount** "
         "options are read at every mount.\n\n" +
         RenderOptionsMarkdown("The OSD adapter's settings (smrstore.conf only)",
                               AdapterSettingSpecs()) +
         "\n" + RenderOptionsMarkdown("Store options", StoreOptionSpecs());
}

Result<AdapterSettings> ParseAdapterSettings(const std::string& text, const std::string& name) {
  AdapterSettings s;
  std::istringstream in(text);
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line = Trim(line);
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    const std::string where = name + ":" + std::to_string(no) + ": ";
    if (eq == std::string::npos) {
      return Status::InvalidArgument(where + "expected 'key = value', got '" + line + "'");
    }
    const std::string key = Trim(line.substr(0, eq));
    const std::string value = Trim(line.substr(eq + 1));
    auto adapter = SetAdapterSetting(&s, key, value);
    if (!adapter.ok()) return adapter.status().WithContext(name + ":" + std::to_string(no));
    if (*adapter) continue;
    if (FindOptionSpec(StoreOptionSpecs(), key) == nullptr) {
      std::vector<OptionSpec> all = AdapterSettingSpecs();
      all.insert(all.end(), StoreOptionSpecs().begin(), StoreOptionSpecs().end());
      return UnknownOption(all, key).WithContext(name + ":" + std::to_string(no));
    }
    Status st = SetStoreOption(&s.store, key, value);
    if (!st.ok()) return st.WithContext(name + ":" + std::to_string(no));
    s.mkfs_keys[key] = value;
  }
  return s;
}

Result<AdapterSettings> LoadAdapterSettings(const std::string& path) {
  std::ifstream f(path);
  if (!f) {
    if (errno == ENOENT) return AdapterSettings();
    return Status::IOError(path + ": " + std::strerror(errno));
  }
  std::stringstream buf;
  buf << f.rdbuf();
  return ParseAdapterSettings(buf.str(), path);
}

Status CheckMkfsKeys(const AdapterSettings& s, const StoreOptions& actual,
                     const std::string& name) {
  for (const auto& [key, value] : s.mkfs_keys) {
    // Both sides as the table formats them (a value read back from text compares equal to
    // the one the store keeps, 0.030 and 0.03 alike).
    const std::string have = *GetStoreOption(actual, key);
    if (have == *GetStoreOption(s.store, key)) continue;
    return Status::InvalidArgument(name + ": " + key + " = " + value +
                                   " is a mkfs-time setting; this store was made with " +
                                   have + " (edit the file or make a new OSD)");
  }
  return Status::OK();
}

}  // namespace smr::ceph_adapter
