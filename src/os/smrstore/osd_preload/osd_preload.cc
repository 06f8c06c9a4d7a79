// osd_preload: see osd_preload.h for the contract.
#include "osd_preload/osd_preload.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "objectstore/SMRStore.h"
#include "osd_preload/selftest.h"

namespace smr::osd_preload {
namespace {

// Pacific's ObjectStore::create, as ceph-osd and ceph-objectstore-tool export it.
constexpr const char* kCreateSymbol =
    "_ZN11ObjectStore6createEPN4ceph6common11CephContextERKNSt7__cxx1112basic_stringIcSt11"
    "char_traitsIcESaIcEEESB_SB_j";
constexpr size_t kPrologueLen = 13;  // push %rbp; mov %rsp,%rbp; push %r15; lea d(%rip),%r15
constexpr size_t kPatchLen = 12;     // movabs $hook,%rax; jmp *%rax

// One binary we know how to patch: read off the binary itself (nm -D for the entry,
// objdump -d for its first instructions; the Option layout from ceph-osd-dbg, checked by
// qa/ceph/abi/check-abi.sh). Another build (a Ceph package update) has another build-id and
// is refused until it is added here after the same checks.
struct KnownBinary {
  const char* name;
  const char* build_id;
  uint64_t create_offset;               // ObjectStore::create, from the load base
  uint8_t prologue[kPrologueLen];       // the bytes expected there
  size_t option_size;                   // sizeof(Option)
  size_t option_name_offset;            // Option::name (std::string)
  size_t option_enum_allowed_offset;    // Option::enum_allowed (std::vector<const char*>)
};

constexpr KnownBinary kKnown[] = {
    {"ceph-osd 16.2.15+ds-0+deb12u2", "fb66b3cec5f264a2f863d96fa875eb4ae39bb0bf", 0xa7d8d0,
     {0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x4c, 0x8d, 0x3d, 0xe3, 0xcb, 0x9b, 0x00},
     432, 0, 376},
    {"ceph-objectstore-tool 16.2.15+ds-0+deb12u2", "f4d5c4b80689405e442f6540cbb978b43dba7c45",
     0x8e0de0,
     {0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x4c, 0x8d, 0x3d, 0x49, 0xdb, 0x54, 0x00},
     432, 0, 376},
};

PreloadState g_state;

using CreateFn = ObjectStore* (*)(CephContext*, const std::string&, const std::string&,
                                  const std::string&, osflagbits_t);
CreateFn g_ceph_create = nullptr;  // the trampoline into Ceph's own create

void Say(const std::string& msg) {
  const std::string line = "smrstore-osd-preload: " + msg + "\n";
  (void)!::write(2, line.data(), line.size());
}

struct MainObject {
  uintptr_t base = 0;
  std::string build_id;
};

int FindMain(struct dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<MainObject*>(data);
  out->base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
    const uint8_t* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* nh = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const uint8_t* name = p + sizeof(ElfW(Nhdr));
      const uint8_t* desc = name + ((nh->n_namesz + 3) & ~3u);
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        static const char* hex = "0123456789abcdef";
        for (uint32_t k = 0; k < nh->n_descsz; ++k) {
          out->build_id += hex[desc[k] >> 4];
          out->build_id += hex[desc[k] & 15];
        }
        return 1;
      }
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return 1;  // only the first object (the executable) matters
}

std::string Hex(const uint8_t* p, size_t n) {
  std::string s;
  char b[4];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof(b), "%02x ", p[i]);
    s += b;
  }
  if (!s.empty()) s.pop_back();
  return s;
}

// SMRStore for "smrstore", Ceph's own code for everything else.
ObjectStore* SmrCreate(CephContext* cct, const std::string& type, const std::string& data,
                       const std::string& journal, osflagbits_t flags) {
  if (type == "smrstore") return new SMRStore(cct, data);
  return g_ceph_create(cct, type, data, journal, flags);
}

// Executable code is never made by changing a mapping's protection: systemd's
// MemoryDenyWriteExecute= (on in Debian's ceph-osd@.service) refuses every mprotect that
// adds PROT_EXEC and every writable+executable mapping. Instead the bytes are written to a
// memfd, which is then mapped read+execute (as the dynamic loader maps a library): at `at`
// with MAP_FIXED (replacing those pages of the executable), or anywhere when `at` is null.
// Returns the mapping, or MAP_FAILED with *why set.
void* MapCode(void* at, const uint8_t* bytes, size_t len, std::string* why) {
  const int fd = static_cast<int>(::syscall(SYS_memfd_create, "smrstore-osd-code", MFD_CLOEXEC));
  if (fd < 0) {
    *why = std::string("memfd_create failed: ") + std::strerror(errno);
    return MAP_FAILED;
  }
  size_t done = 0;
  while (done < len) {
    const ssize_t n = ::write(fd, bytes + done, len - done);
    if (n <= 0) {
      *why = std::string("writing the code to a memfd failed: ") + std::strerror(errno);
      ::close(fd);
      return MAP_FAILED;
    }
    done += static_cast<size_t>(n);
  }
  void* mem = ::mmap(at, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | (at ? MAP_FIXED : 0), fd, 0);
  if (mem == MAP_FAILED) *why = std::string("mapping the code failed: ") + std::strerror(errno);
  ::close(fd);
  return mem;
}

// Appends "smrstore" to osd_objectstore's permitted values. Refuses (false + reason) when the
// table does not look like the one recorded for this build.
bool PatchOption(const KnownBinary& k, std::string* why) {
  void* sym = ::dlsym(RTLD_DEFAULT, "ceph_options");
  if (sym == nullptr) {
    *why = "no ceph_options table in the process";
    return false;
  }
  // A std::vector's first two words are its begin and end pointers.
  auto* const* words = static_cast<char* const*>(sym);
  char* begin = words[0];
  char* end = words[1];
  if (begin == nullptr || end <= begin || (end - begin) % k.option_size != 0) {
    *why = "ceph_options is empty or not a table of " + std::to_string(k.option_size) +
           "-byte Options (called before Ceph's static initializers?)";
    return false;
  }
  for (char* o = begin; o < end; o += k.option_size) {
    const auto* name = reinterpret_cast<const std::string*>(o + k.option_name_offset);
    if (*name != "osd_objectstore") continue;
    auto* allowed = reinterpret_cast<std::vector<const char*>*>(o + k.option_enum_allowed_offset);
    bool has_bluestore = false;
    for (const char* v : *allowed) {
      if (std::strcmp(v, "smrstore") == 0) return true;  // already there
      if (std::strcmp(v, "bluestore") == 0) has_bluestore = true;
    }
    if (!has_bluestore) {
      *why = "osd_objectstore's permitted values do not include bluestore: not the layout "
             "recorded for this build";
      return false;
    }
    allowed->push_back("smrstore");
    return true;
  }
  *why = "no osd_objectstore entry in ceph_options";
  return false;
}

bool PatchCreate(uintptr_t base, const KnownBinary& k, std::string* why) {
  void* sym = ::dlsym(RTLD_DEFAULT, kCreateSymbol);
  auto* entry = static_cast<uint8_t*>(sym);
  if (reinterpret_cast<uintptr_t>(entry) != base + k.create_offset) {
    *why = "ObjectStore::create is not at the recorded offset 0x" + [&] {
      char b[32];
      std::snprintf(b, sizeof(b), "%llx", static_cast<unsigned long long>(k.create_offset));
      return std::string(b);
    }();
    return false;
  }
  if (std::memcmp(entry, k.prologue, kPrologueLen) != 0) {
    *why = "the first bytes of ObjectStore::create are " + Hex(entry, kPrologueLen) +
           ", expected " + Hex(k.prologue, kPrologueLen);
    return false;
  }
  // The trampoline: the displaced prologue (the rip-relative lea becomes an absolute movabs),
  // then an indirect jump back to the first instruction not displaced.
  int32_t disp;
  std::memcpy(&disp, entry + 9, sizeof(disp));
  const uint64_t lea_target = reinterpret_cast<uint64_t>(entry) + kPrologueLen + disp;
  const uint64_t resume = reinterpret_cast<uint64_t>(entry) + kPrologueLen;
  std::vector<uint8_t> t = {0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x49, 0xbf};  // ... movabs r15
  for (int i = 0; i < 8; ++i) t.push_back(static_cast<uint8_t>(lea_target >> (8 * i)));
  t.insert(t.end(), {0xff, 0x25, 0x00, 0x00, 0x00, 0x00});  // jmp *0(%rip)
  for (int i = 0; i < 8; ++i) t.push_back(static_cast<uint8_t>(resume >> (8 * i)));
  t.resize(4096, 0xcc);  // int3 past the code
  void* mem = MapCode(nullptr, t.data(), t.size(), why);
  if (mem == MAP_FAILED) {
    *why = "the trampoline: " + *why;
    return false;
  }
  g_ceph_create = reinterpret_cast<CreateFn>(mem);

  uint8_t patch[kPatchLen] = {0x48, 0xb8};  // movabs $SmrCreate, %rax
  const uint64_t hook = reinterpret_cast<uint64_t>(&SmrCreate);
  for (int i = 0; i < 8; ++i) patch[2 + i] = static_cast<uint8_t>(hook >> (8 * i));
  patch[10] = 0xff;  // jmp *%rax
  patch[11] = 0xe0;
  // The pages holding the entry, copied with the patch applied, mapped over the originals.
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t first = reinterpret_cast<uintptr_t>(entry) & ~(page - 1);
  const uintptr_t last = (reinterpret_cast<uintptr_t>(entry) + kPatchLen + page - 1) & ~(page - 1);
  std::vector<uint8_t> pages(reinterpret_cast<const uint8_t*>(first),
                             reinterpret_cast<const uint8_t*>(last));
  std::memcpy(pages.data() + (reinterpret_cast<uintptr_t>(entry) - first), patch, kPatchLen);
  void* mapped = MapCode(reinterpret_cast<void*>(first), pages.data(), pages.size(), why);
  if (mapped != reinterpret_cast<void*>(first)) {
    *why = "ObjectStore::create: " + *why;
    return false;
  }
  __builtin___clear_cache(reinterpret_cast<char*>(entry),
                          reinterpret_cast<char*>(entry) + kPatchLen);
  return true;
}

// Children of the host (a shell, smartctl, ...) must not inherit the preload: they are not
// Ceph and cannot load this library (its Ceph references would not resolve).
void DropFromEnvironment() {
  const char* v = std::getenv("LD_PRELOAD");
  if (v == nullptr) return;
  std::string kept, item;
  std::string all(v);
  size_t i = 0;
  while (i <= all.size()) {
    const size_t j = all.find_first_of(": ", i);
    item = all.substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (!item.empty() && item.find("libsmrstore_osd.so") == std::string::npos) {
      if (!kept.empty()) kept += ':';
      kept += item;
    }
    if (j == std::string::npos) break;
    i = j + 1;
  }
  if (kept.empty()) {
    ::unsetenv("LD_PRELOAD");
  } else {
    ::setenv("LD_PRELOAD", kept.c_str(), 1);
  }
}

void Install() {
  DropFromEnvironment();
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  g_state.executable = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "?";
  if (::dlsym(RTLD_DEFAULT, kCreateSymbol) == nullptr) return;  // not a Ceph store host
  MainObject main_obj;
  ::dl_iterate_phdr(FindMain, &main_obj);
  g_state.build_id = main_obj.build_id;
  const KnownBinary* known = nullptr;
  for (const KnownBinary& k : kKnown) {
    if (main_obj.build_id == k.build_id) known = &k;
  }
  if (known == nullptr) {
    g_state.refusal = g_state.executable + " (build-id " +
                      (main_obj.build_id.empty() ? "none" : main_obj.build_id) +
                      ") is not a build smrstore was checked against (known: Debian's "
                      "ceph-osd and ceph-objectstore-tool 16.2.15+ds-0+deb12u2); nothing "
                      "patched, osd_objectstore=smrstore will not be accepted. Was Ceph "
                      "upgraded? See doc/ceph-integration.md, \"Ceph package updates\".";
    Say("refusing: " + g_state.refusal);
    return;
  }
  g_state.known_binary = true;
  std::string why;
  if (!PatchOption(*known, &why)) {
    g_state.refusal = why;
    Say("refusing to patch " + std::string(known->name) + ": " + why);
    return;
  }
  g_state.option_patched = true;
  if (!PatchCreate(main_obj.base, *known, &why)) {
    g_state.refusal = why;
    Say("refusing to patch " + std::string(known->name) + ": " + why);
    return;
  }
  g_state.create_patched = true;
  if (std::getenv("SMRSTORE_PRELOAD_VERBOSE") != nullptr) {
    Say(std::string(known->name) + " (build-id " + main_obj.build_id +
        "): osd_objectstore accepts smrstore; ObjectStore::create redirected");
  }
}

using MainFn = int (*)(int, char**, char**);
MainFn g_real_main = nullptr;

int WrappedMain(int argc, char** argv, char** envp) {
  Install();
  if (const char* st = std::getenv("SMRSTORE_PRELOAD_SELFTEST"); st != nullptr && *st) {
    // The in-process checks (selftest.cc) instead of the program: exit status is the result.
    return RunSelfTest(st, g_state);
  }
  return g_real_main(argc, argv, envp);
}

}  // namespace

const PreloadState& State() { return g_state; }

}  // namespace smr::osd_preload

extern "C" {

using LibcStartMain = int (*)(int (*)(int, char**, char**), int, char**, void (*)(), void (*)(),
                              void (*)(), void*);

// Interposes glibc's: the executable's _start calls this first; it wraps main.
__attribute__((visibility("default"))) int __libc_start_main(
    int (*main)(int, char**, char**), int argc, char** argv, void (*init)(), void (*fini)(),
    void (*rtld_fini)(), void* stack_end) {
  auto real = reinterpret_cast<LibcStartMain>(::dlsym(RTLD_NEXT, "__libc_start_main"));
  smr::osd_preload::g_real_main = main;
  return real(smr::osd_preload::WrappedMain, argc, argv, init, fini, rtld_fini, stack_end);
}

}  // extern "C"
