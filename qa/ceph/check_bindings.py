#!/usr/bin/python3
"""Checks the dynamic-linker bindings of a Ceph binary running smrstore's preload library.

Usage: check_bindings.py HOST_BINARY LD_DEBUG_FILE...

Reads the output of LD_DEBUG=bindings (one file per process) of HOST_BINARY (ceph-osd or
ceph-objectstore-tool) started with LD_PRELOAD=libsmrstore_osd.so and run far enough that the
store mounted (the kv plugin and RocksDB loaded). Rules, each printed with its counts:
  1. nothing of ours replaces Ceph's: no object binds a symbol to libsmrstore_osd.so except
     the __libc_start_main wrapper;
  2. our Ceph references use the host's Ceph code: libsmrstore_osd.so's bindings of Ceph
     symbols (ceph::, ghobject_t, coll_t, PerfCounters...) go to the host binary or, for
     ceph-objectstore-tool, to the libceph-common it links, never to a second copy;
  3. RocksDB stays behind its boundary: no binding from libsmrstore_kv_rocksdb.so or
     librocksdb.so.* to the host binary (which carries its own, older RocksDB), except
     STB_GNU_UNIQUE objects, which the dynamic linker shares process-wide by design;
  4. the boundary was exercised: librocksdb.so.* and libsmrstore_kv_rocksdb.so made
     bindings (the store mounted).
Exit 0 when all hold, 1 otherwise (every offending binding is printed), 2 on bad input.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass

LINE = re.compile(
    r"binding file (?P<src>\S+) \[\d+\] to (?P<dst>\S+) \[\d+\]: \S+ symbol `(?P<sym>[^']+)'"
)
CEPH_SYMBOL = re.compile(
    r"ceph|ghobject_t|hobject_t|coll_t|spg_t|pg_t|PerfCounters|AdminSocket|RefCountedObject"
)


@dataclass(frozen=True)
class Binding:
    src: str
    dst: str
    sym: str


def parse(paths: list[str]) -> list[Binding]:
    out: list[Binding] = []
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = LINE.search(line)
                if m:
                    out.append(Binding(m["src"], m["dst"], m["sym"]))
    return out


def unique_symbols(binary: str) -> set[str]:
    """Symbols the binary defines as STB_GNU_UNIQUE ('u' in nm -D)."""
    res = subprocess.run(["nm", "-D", "--defined-only", binary], capture_output=True,
                         text=True, check=True)
    return {parts[2] for parts in (l.split() for l in res.stdout.splitlines())
            if len(parts) == 3 and parts[1] == "u"}


def base(path: str) -> str:
    return os.path.basename(path)


def check(host: str, bindings: list[Binding], uniques: set[str]) -> list[str]:
    """The failures, one line each (empty: all rules hold). Prints the counts."""
    fails: list[str] = []
    host_b = base(host)
    ours = "libsmrstore_osd.so"
    plugin = "libsmrstore_kv_rocksdb.so"

    into_ours = [b for b in bindings if base(b.dst) == ours and base(b.src) != ours]
    bad = [b for b in into_ours if b.sym != "__libc_start_main"]
    print(f"bindings: rule 1: {len(into_ours)} binding(s) into {ours}, "
          f"{len(into_ours) - len(bad)} of them __libc_start_main, {len(bad)} other")
    fails += [f"rule 1: {b.src} binds {b.sym} to {ours}" for b in bad]

    ceph_refs = [b for b in bindings if base(b.src) == ours and CEPH_SYMBOL.search(b.sym)]
    allowed = {host_b, "libceph-common.so.2"}
    wrong = [b for b in ceph_refs if base(b.dst) not in allowed]
    to_host = sum(1 for b in ceph_refs if base(b.dst) == host_b)
    print(f"bindings: rule 2: {len(ceph_refs)} Ceph symbol binding(s) of {ours}: "
          f"{to_host} to {host_b}, {len(ceph_refs) - to_host - len(wrong)} to "
          f"libceph-common.so.2, {len(wrong)} elsewhere")
    fails += [f"rule 2: {ours} binds {b.sym} to {b.dst}" for b in wrong]
    if not ceph_refs:
        fails.append(f"rule 2: no Ceph symbol binding of {ours} seen (did it load?)")

    rocks_side = [b for b in bindings
                  if base(b.src) == plugin or base(b.src).startswith("librocksdb.so")]
    leak = [b for b in rocks_side if base(b.dst) == host_b]
    shared = [b for b in leak if b.sym in uniques]
    real_leak = [b for b in leak if b.sym not in uniques]
    print(f"bindings: rule 3: {len(rocks_side)} binding(s) of the RocksDB side, "
          f"{len(leak)} to {host_b} ({len(shared)} STB_GNU_UNIQUE, shared by design: "
          f"{', '.join(sorted({b.sym for b in shared})) or 'none'})")
    fails += [f"rule 3: {b.src} binds {b.sym} to {host_b}" for b in real_leak]

    rocks = sum(1 for b in rocks_side if base(b.src).startswith("librocksdb.so"))
    plug = sum(1 for b in rocks_side if base(b.src) == plugin)
    print(f"bindings: rule 4: librocksdb made {rocks}, {plugin} made {plug} binding(s)")
    if rocks == 0 or plug == 0:
        fails.append("rule 4: the RocksDB plugin was not loaded (the store did not mount?)")
    return fails


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    host, files = argv[0], argv[1:]
    bindings = parse(files)
    if not bindings:
        print(f"bindings: no binding lines in {' '.join(files)}", file=sys.stderr)
        return 2
    fails = check(host, bindings, unique_symbols(host))
    for f in fails[:50]:
        print(f"bindings: FAIL {f}")
    if len(fails) > 50:
        print(f"bindings: ... and {len(fails) - 50} more")
    print(f"bindings: {len(bindings)} bindings of {base(host)} read, "
          f"{'all rules hold' if not fails else f'{len(fails)} violation(s)'}")
    return 0 if not fails else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
