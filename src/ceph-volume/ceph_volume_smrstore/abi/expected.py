#!/usr/bin/env python3
"""A ceph-osd binary against what smrstore's preload library was verified against.

  python3 -m ceph_volume_smrstore.abi.expected [BINARY...]     check (default /usr/bin/ceph-osd)
  python3 -m ceph_volume_smrstore.abi.expected --write [BINARY] record pacific-vtables.txt

The record: for every pair of pairs.txt, the slots of the Pacific vtable (e.g. MemStore's,
which is ObjectStore's) read from the verified ceph-osd, as vtable_slots.py names them;
`@vtable LABEL SYMBOL SLOTS COUNT` then `LABEL INDEX NAME[ | ALIAS...]` per slot. qa's
check-abi.sh compares our library with those same vtables, so a binary whose vtables equal
the record is one our vtables fit.
Checks: vtables: each recorded vtable read from the binary (symbol table + relocations),
slot by slot (a slot matches when any of its names does; an `all` vtable must also have the
same number of slots). Layouts: only when the binary's debug info is installed (its -dbg
package): its layout file (pacific_layouts.py, cached per build-id in
/var/cache/smrstore/abi) against each recorded pacific-<build-id>.layout; equal to one of
them is a pass.
Exit status: 0 equal, 1 a difference, 2 could not check.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from . import PAIRS, RECORDED_VTABLES, recorded_layouts
from .compare_layouts import compare_layouts, parse_layout
from .compare_vtables import Pair, compare_slots, read_pairs, resolve_count
from .pacific_layouts import LayoutError, cache_is_current, generate, has_debug_info
from .vtable_slots import ElfImage, Slot, ToolError, build_id, read_vtable

DEFAULT_OSD = "/usr/bin/ceph-osd"
CACHE_DIR = os.environ.get("CEPH_VOLUME_SMRSTORE_ABI_CACHE", "/var/cache/smrstore/abi")


@dataclass
class Check:
    """One check's outcome: status ok | differ | skipped | error, a summary line, the
    difference lines, and the first difference (for a one-line reason)."""
    name: str
    status: str
    summary: str
    lines: List[str] = field(default_factory=list)
    first: str = ""


@dataclass
class RecordedVtable:
    label: str
    symbol: str
    spec: str                 # pairs.txt's SLOTS: all, N or decl:TYPE
    slots: List[Slot]


# --- the record -----------------------------------------------------------------------------

def layout_for(bid: Optional[str]) -> Optional[str]:
    """The recorded layout of build-id bid, else any recorded one (for decl:TYPE counts)."""
    files = recorded_layouts()
    same = [f for f in files if bid and f.endswith(f"pacific-{bid}.layout")]
    found = same or files
    return found[0] if found else None


def record_text(binary: str, pairs: List[Pair]) -> str:
    img = ElfImage(binary)
    bid = build_id(binary)
    out = ["# The Pacific vtables smrstore's vtables were verified against (pairs.txt),",
           f"# read from {binary} build-id {bid}",
           "# by `python3 -m ceph_volume_smrstore.abi.expected --write`. check-ceph compares",
           "# an installed ceph-osd with these slots."]
    for p in pairs:
        vt = read_vtable(img, p.ref_symbol)
        count = resolve_count(p.slots, vt, layout_for(bid))
        out.append(f"@vtable {p.label} {p.ref_symbol} {p.slots} {count}")
        out += [f"{p.label} {s.index} {' | '.join(s.names())}" for s in vt.slots[:count]]
    return "\n".join(out) + "\n"


def parse_record(text: str) -> List[RecordedVtable]:
    tables: List[RecordedVtable] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@vtable "):
            parts = line.split()
            if len(parts) != 5:
                raise ToolError(f"line {n}: want @vtable LABEL SYMBOL SLOTS COUNT")
            tables.append(RecordedVtable(parts[1], parts[2], parts[3], []))
            continue
        label, index, names = line.split(" ", 2)
        if not tables or tables[-1].label != label or int(index) != len(tables[-1].slots):
            raise ToolError(f"line {n}: slot {label} {index} out of order")
        alts = tuple(x.strip() for x in names.split(" | "))
        tables[-1].slots.append(Slot(int(index), None, None, alts[0], alts[0],
                                     alts if len(alts) > 1 else ()))
    return tables


def read_record(path: str = RECORDED_VTABLES) -> List[RecordedVtable]:
    try:
        with open(path) as f:
            return parse_record(f.read())
    except OSError as e:
        raise ToolError(f"{path}: {e}") from e


# --- checks ---------------------------------------------------------------------------------

def compare_vtable(rec: RecordedVtable, got: List[Slot]) -> Tuple[List[str], int]:
    """Difference lines and how many slots differ (a different slot count of an `all`
    vtable counts as one)."""
    res = compare_slots(rec.label, rec.slots, got, len(rec.slots), extra_note=False,
                        sides=("recorded", "binary"))
    diffs = [x for x in res.lines if x.startswith("slot ")]
    if rec.spec == "all" and len(got) != len(rec.slots):
        diffs.append(f"{len(got)} slots, recorded {len(rec.slots)}")
    return [f"{rec.label} {d}" for d in diffs], len(diffs)


def check_vtables(binary: str, record: Optional[List[RecordedVtable]] = None) -> Check:
    try:
        tables = record if record is not None else read_record()
        img = ElfImage(binary)
    except ToolError as e:
        return Check("vtables", "error", f"not checked: {e}", first=str(e))
    lines: List[str] = []
    compared = 0
    for rec in tables:
        try:
            got = read_vtable(img, rec.symbol).slots
        except ToolError as e:
            lines.append(f"{rec.label}: {e}")
            continue
        diffs, _ = compare_vtable(rec, got)
        compared += len(rec.slots)
        lines += diffs
    per = ", ".join(f"{t.label} {len(t.slots)}" for t in tables)
    summary = (f"{len(tables)} vtables, {compared} slots compared with the record "
               f"({per}), {len(lines)} differ")
    return Check("vtables", "differ" if lines else "ok", summary, lines,
                 lines[0] if lines else "")


def _dpkg_query(*args: str) -> str:
    try:
        p = subprocess.run(["dpkg-query", *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return p.stdout.strip() if p.returncode == 0 else ""


def owner_package(binary: str) -> Tuple[str, str]:
    """(package, version) of the Debian package that installed binary; ('', '') for a file
    no package owns (a copy, a binary extracted from a downloaded .deb)."""
    owner = _dpkg_query("-S", os.path.realpath(binary)).split(":", 1)[0].strip()
    if not owner or " " in owner:
        return "", ""
    return owner, _dpkg_query("-W", "-f", "${Version}", owner)


def dbg_package(binary: str) -> str:
    """The -dbg package with binary's debug info: its package's name + -dbg."""
    return (owner_package(binary)[0] or "ceph-osd") + "-dbg"


def cached_layout_path(bid: str) -> str:
    return os.path.join(CACHE_DIR, f"{bid}.layout")


def binary_layout(binary: str, bid: str) -> str:
    """binary's layout file text, from the cache when it holds one for this build-id."""
    path = cached_layout_path(bid)
    if cache_is_current(path):
        with open(path) as f:
            return f.read()
    text = generate(binary)
    try:
        os.makedirs(CACHE_DIR, exist_ok=True)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    except OSError:
        pass  # not cached (a read-only or foreign cache directory): generated again next time
    return text


def check_layouts(binary: str, generate_missing: bool = True) -> Check:
    """generate_missing=False: only from the cache (gdb over the debug info takes minutes;
    too long for a unit's ExecStartPre)."""
    try:
        bid = build_id(binary) or ""
        if not has_debug_info(binary):
            return Check("layouts", "skipped", f"not checked ({dbg_package(binary)} not installed)")
        if not generate_missing and not cache_is_current(cached_layout_path(bid)):
            return Check("layouts", "skipped",
                         f"not checked (not read from its debug info yet: run `ceph-volume "
                         f"smrstore check-ceph --binary {binary}` once, it takes minutes)")
        ours = parse_layout(binary_layout(binary, bid))
    except (ToolError, LayoutError, OSError, ValueError) as e:
        return Check("layouts", "error", f"not checked: {e}", first=str(e))
    # A type the binary's debug info does not describe (GCC describes a dynamic class only
    # where its vtable is: ceph-objectstore-tool's RefCountedObject is in libceph-common) is
    # not compared, and said.
    absent = sorted(k for k, t in ours.items() if t.missing)
    best: Optional[Tuple[int, str, List[str]]] = None
    for path in recorded_layouts():
        with open(path) as f:
            rec = {k: t for k, t in parse_layout(f.read()).items() if k not in absent}
        lines, total = compare_layouts(rec, ours, {})
        if best is None or total < best[0]:
            best = (total, os.path.basename(path), [x.strip() for x in lines if x.startswith("  ")])
    if best is None:
        return Check("layouts", "error", "not checked: no recorded layout in the package",
                     first="no recorded layout in the package")
    total, name, diffs = best
    summary = (f"{len(ours) - len(absent)} types from its debug info against {name}, "
               f"{total} differ")
    if absent:
        summary += f" (not in its debug info, not compared: {', '.join(absent)})"
    return Check("layouts", "differ" if total else "ok", summary, diffs,
                 diffs[0] if diffs else "")


# --- command ------------------------------------------------------------------------------

def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"record {RECORDED_VTABLES}")
    ap.add_argument("binaries", nargs="*", default=[DEFAULT_OSD])
    args = ap.parse_args(argv)
    if args.write:
        try:
            text = record_text(args.binaries[0], read_pairs(PAIRS))
        except ToolError as e:
            print(f"expected: {e}", file=sys.stderr)
            return 2
        with open(RECORDED_VTABLES, "w") as f:
            f.write(text)
        print(f"expected: wrote {RECORDED_VTABLES}")
        return 0
    status = 0
    for b in args.binaries:
        for c in (check_vtables(b), check_layouts(b)):
            print(f"{b}: {c.name}: {c.summary}")
            for x in c.lines:
                print(f"  {x}")
            status = max(status, {"ok": 0, "skipped": 0, "differ": 1}.get(c.status, 2))
    return status


if __name__ == "__main__":
    sys.exit(main())
