#!/usr/bin/env python3
"""Writes the normalized layout file of the ABI types, read from a binary's DWARF with gdb.

  pacific_layouts.py [-o OUT] [--fallback PROBE.o] BINARY
        the layout of BINARY (ours: built RelWithDebInfo); types BINARY's debug info lacks
        are read from PROBE.o (layout_probe.py: our compat headers with full class info)
  pacific_layouts.py --cached [BINARY]        Pacific's: prints the path of the cached
        pacific-<build-id>.layout (next to this module) of BINARY (default /usr/bin/ceph-osd); only when
        there is none for that build-id (or it was made from another type table) it is
        generated, which needs ceph-osd-dbg (installed with apt-get if missing).

Per type (TYPES below), from `gdb -batch -ex 'ptype /o TYPE'`:
  @type KEY = SPELLING             the spelling gdb accepted (several are tried)
  KEY sizeof N
  KEY bases public A, ...          base classes (their members are not listed)
  KEY.member OFFSET SIZE           every data member; members gdb expands (a class type not
  KEY.member.sub OFFSET SIZE       named through a typedef) one level further. Offsets are
                                   from the start of KEY (gdb's); bitfields OFFSET:BIT.
and for the classes whose vtables ceph-osd uses, from `ptype TYPE` (declaration order):
  KEY virtual I DECLARATION        each virtual method, normalized; the destructor too
                                   (gdb does not print `virtual` on it; it is in a dynamic
                                   class: 2 vtable slots at its position)
A type gdb cannot find in any spelling is `@missing KEY tried: ...`.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from .abi_names import normalize_declaration, normalize_signature
from .vtable_slots import DEBUG_DIR, DEBUG_ROOT

HERE = os.path.dirname(os.path.abspath(__file__))

DEFAULT_OSD = "/usr/bin/ceph-osd"
FORMAT_VERSION = "1"


@dataclass(frozen=True)
class TypeSpec:
    key: str
    spellings: Tuple[str, ...]
    members: Optional[Tuple[str, ...]] = None   # None: all; (): sizeof only
    decls: bool = False                         # record virtual declaration order


TYPES: Tuple[TypeSpec, ...] = (
    TypeSpec("ObjectStore", ("ObjectStore",), decls=True),
    TypeSpec("ObjectStore::CollectionImpl", ("ObjectStore::CollectionImpl",), decls=True),
    TypeSpec("ceph::common::RefCountedObject",
             ("ceph::common::RefCountedObject", "RefCountedObject", "ceph::RefCountedObject",
              "'ceph::common::RefCountedObject'", "struct ceph::common::RefCountedObject")),
    TypeSpec("Context", ("Context",), decls=True),
    TypeSpec("ContextQueue", ("ContextQueue",)),
    TypeSpec("ceph::os::Transaction", ("ceph::os::Transaction", "'ceph::os::Transaction'")),
    TypeSpec("ceph::os::Transaction::Op",
             ("ceph::os::Transaction::Op", "'ceph::os::Transaction::Op'")),
    TypeSpec("ceph::os::Transaction::TransactionData",
             ("ceph::os::Transaction::TransactionData",
              "'ceph::os::Transaction::TransactionData'")),
    TypeSpec("store_statfs_t", ("store_statfs_t",)),
    TypeSpec("objectstore_perf_stat_t", ("objectstore_perf_stat_t",)),
    # Pacific 16.2.15 has no class ObjectMap::ObjectMapIteratorImpl: ObjectMap::ObjectMapIterator
    # is std::shared_ptr<KeyValueDB::SimplestIteratorImpl>, the class MemStore's iterator
    # derives from. The last spelling finds it.
    TypeSpec("ObjectMap::ObjectMapIteratorImpl",
             ("ObjectMap::ObjectMapIteratorImpl", "'ObjectMap::ObjectMapIteratorImpl'",
              "struct 'ObjectMap::ObjectMapIteratorImpl'", "KeyValueDB::SimplestIteratorImpl"),
             decls=True),
    TypeSpec("TrackedOp", ("TrackedOp",), members=()),
    TypeSpec("coll_t", ("coll_t",)),
    TypeSpec("ghobject_t", ("ghobject_t",)),
    TypeSpec("hobject_t", ("hobject_t",)),
    TypeSpec("Option", ("Option",), members=("name", "enum_allowed")),
    # Ceph's logging, which objectstore/ceph_log.cc feeds (common/log.h in our compat).
    TypeSpec("ceph::logging::Entry", ("ceph::logging::Entry", "'ceph::logging::Entry'"), decls=True),
    # The heartbeat handle queue_transactions resets while it waits (common/WorkQueue.h).
    TypeSpec("HBHandle", ("HBHandle",), decls=True),
    # Only the offset of _log (ceph_context.h's kLogMemberOffset; check_constants.py).
    TypeSpec("ceph::common::CephContext", ("ceph::common::CephContext",), members=("_log",)),
)


class LayoutError(Exception):
    pass


# --- gdb ---------------------------------------------------------------------------------------

MARK = "@@ABI"


def gdb_script(types: Sequence[TypeSpec]) -> List[str]:
    """gdb -ex arguments: every spelling of every type, each output after a marker line."""
    ex = ["set width 0", "set height 0", "set print type hex off"]
    for ti, spec in enumerate(types):
        for si, spelling in enumerate(spec.spellings):
            ex += [f"echo {MARK} o {ti} {si}\\n", f"ptype /o {spelling}"]
            if spec.decls:
                ex += [f"echo {MARK} d {ti} {si}\\n", f"ptype {spelling}"]
    ex.append(f"echo {MARK} end\\n")
    return ex


def run_gdb(binary: str, types: Sequence[TypeSpec]) -> Dict[Tuple[str, int, int], str]:
    if not shutil.which("gdb"):
        raise LayoutError("gdb is not installed (apt-get install gdb)")
    cmd = ["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off",
           "-iex", f"set debug-file-directory {DEBUG_DIR}"]
    for e in gdb_script(types):
        cmd += ["-ex", e]
    cmd.append(binary)
    res = subprocess.run(cmd, capture_output=True, text=True)
    out = res.stdout + "\n" + res.stderr
    return split_marked(res.stdout if MARK in res.stdout else out)


def split_marked(text: str) -> Dict[Tuple[str, int, int], str]:
    """gdb's stdout cut at the marker lines: (kind, type index, spelling index) -> output."""
    parts: Dict[Tuple[str, int, int], str] = {}
    key: Optional[Tuple[str, int, int]] = None
    buf: List[str] = []
    for line in text.splitlines():
        if line.startswith(MARK):
            if key:
                parts[key] = "\n".join(buf)
            fields = line.split()
            key = (fields[1], int(fields[2]), int(fields[3])) if len(fields) == 4 else None
            buf = []
        else:
            buf.append(line)
    return parts


# --- ptype /o ----------------------------------------------------------------------------------

_OFFSET_RE = re.compile(r"^/\*\s*(\d+)(?::\s*(\d+))?\s*\|\s*(\d+)\s*\*/(.*)$")
_TOTAL_RE = re.compile(r"/\*\s*total size \(bytes\):\s*(\d+)\s*\*/")
_CLOSE_RE = re.compile(r"^\s*\}\s*([A-Za-z_]\w*)?\s*(\[[^\]]*\])*\s*;?\s*$")


@dataclass
class Member:
    name: str
    offset: str       # "8" or "8:3" for a bitfield
    size: int
    children: List["Member"] = field(default_factory=list)


@dataclass
class Layout:
    sizeof: int
    bases: str
    members: List[Member]


def member_name(decl: str) -> str:
    decl = decl.strip().rstrip(";").strip()
    decl = re.sub(r"\s*:\s*\d+$", "", decl)                # bitfield width
    m = re.search(r"\(\s*[*&]+\s*(\w+)\s*\)\s*\(", decl)    # function pointer
    if m:
        return m.group(1)
    decl = re.sub(r"(\s*\[[^\]]*\])+$", "", decl)           # array bounds
    m = re.search(r"(\w+)$", decl)
    return m.group(1) if m else decl


def header_bases(header: str) -> str:
    """'type = class X : public A, private B {' -> 'public A, private B'."""
    text = re.sub(r"\s*\{\s*$", "", header.split("type =", 1)[-1])
    text = re.sub(r"\s\[with [^\]]*\]", "", text)
    depth = 0
    for i, ch in enumerate(text):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == ":" and depth == 0 and text[i - 1:i] != ":" and text[i + 1:i + 2] != ":":
            return normalize_signature(text[i + 1:])
    return ""


def parse_ptype_o(text: str) -> Optional[Layout]:
    """gdb's `ptype /o` output -> sizeof, bases and the member tree (None: not a type)."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if "type =" in l), None)
    if start is None:
        return None
    bases = header_bases(lines[start])
    root: List[Member] = []
    stack: List[Tuple[Member, List[Member]]] = []   # open nested member, its parent list
    sizeof: Optional[int] = None
    for line in lines[start + 1:]:
        m = _OFFSET_RE.match(line.strip())
        if m:
            off = m.group(1) + (f":{m.group(2)}" if m.group(2) is not None else "")
            rest = m.group(4).rstrip()
            current = stack[-1][0].children if stack else root
            if rest.endswith("{"):
                node = Member("", off, int(m.group(3)))
                stack.append((node, current))
            elif rest.strip():
                current.append(Member(member_name(rest), off, int(m.group(3))))
            continue
        total = _TOTAL_RE.search(line)
        if total and not stack:
            sizeof = int(total.group(1))
            continue
        close = _CLOSE_RE.match(line)
        if close and stack:
            node, parent = stack.pop()
            if close.group(1):
                node.name = close.group(1)
                parent.append(node)
            else:                                    # anonymous union/struct: C++ hoists
                parent.extend(node.children)
    if sizeof is None:
        return None
    return Layout(sizeof, bases, root)


def flatten(key: str, members: List[Member], only: Optional[Tuple[str, ...]]) -> List[str]:
    out = []
    for mem in members:
        if only is not None and mem.name not in only:
            continue
        out.append(f"{key}.{mem.name} {mem.offset} {mem.size}")
        if only is None:
            out += [f"{key}.{mem.name}.{c.name} {c.offset} {c.size}" for c in mem.children]
    return out


# --- ptype (declarations) ----------------------------------------------------------------------

def parse_virtual_decls(text: str) -> List[str]:
    """The class's own virtual methods and destructor, in declaration order, normalized."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if "type =" in l), None)
    if start is None:
        return []
    decls: List[str] = []
    has_virtual = False
    for line in lines[start + 1:]:
        if not line.startswith("    ") or line.startswith("     "):
            continue                                  # only the class's own members
        body = line.strip()
        if body.startswith("virtual "):
            has_virtual = True
            decls.append(normalize_declaration(body))
        elif body.startswith("~"):
            decls.append(normalize_declaration(body))
    return decls if has_virtual else []


# --- the layout file ---------------------------------------------------------------------------

def types_fingerprint(types: Sequence[TypeSpec]) -> str:
    return hashlib.sha1(repr((FORMAT_VERSION, types)).encode()).hexdigest()[:12]


def type_lines(parts: Dict[Tuple[str, int, int], str], ti: int,
               spec: TypeSpec) -> Optional[List[str]]:
    """The layout lines of one type from gdb's output, or None when no spelling was found."""
    for si, spelling in enumerate(spec.spellings):
        lay = parse_ptype_o(parts.get(("o", ti, si), ""))
        if lay is None:
            continue
        out = [f"@type {spec.key} = {spelling}", f"{spec.key} sizeof {lay.sizeof}"]
        if spec.members != ():
            if lay.bases:
                out.append(f"{spec.key} bases {lay.bases}")
            out += flatten(spec.key, lay.members, spec.members)
        if spec.decls:
            for i, decl in enumerate(parse_virtual_decls(parts.get(("d", ti, si), ""))):
                out.append(f"{spec.key} virtual {i} {decl}")
        return out
    return None


def layout_lines(binary: str, types: Sequence[TypeSpec],
                 fallback: Optional[str] = None) -> List[str]:
    """Every type's lines from binary; the types it lacks from fallback (layout_probe.py)."""
    found = {}
    parts = run_gdb(binary, types)
    for ti, spec in enumerate(types):
        found[spec.key] = type_lines(parts, ti, spec)
    missing = [spec for spec in types if found[spec.key] is None]
    if fallback and missing:
        parts = run_gdb(fallback, missing)
        for ti, spec in enumerate(missing):
            lines = type_lines(parts, ti, spec)
            if lines:
                found[spec.key] = [f"# {spec.key}: from {fallback}, not in {binary}'s debug "
                                   f"info (a dynamic class described only with its vtable)"
                                   ] + lines
    out: List[str] = []
    for spec in types:
        out += found[spec.key] or [f"@missing {spec.key} tried: {'; '.join(spec.spellings)}"]
    return out


def build_id(binary: str) -> Optional[str]:
    res = subprocess.run(["readelf", "-n", binary], capture_output=True, text=True)
    m = re.search(r"Build ID:\s*([0-9a-f]+)", res.stdout)
    return m.group(1) if m else None


def has_debug_info(binary: str) -> bool:
    res = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True)
    if ".debug_info" in res.stdout:
        return True
    bid = build_id(binary)
    return bid is not None and os.path.exists(debug_file_path(bid))


def debug_file_path(bid: str) -> str:
    return os.path.join(DEBUG_ROOT, bid[:2], bid[2:] + ".debug")


def generate(binary: str, types: Sequence[TypeSpec] = TYPES,
             fallback: Optional[str] = None) -> str:
    for path in [binary] + ([fallback] if fallback else []):
        if not os.path.isfile(path):
            raise LayoutError(f"no such binary: {path}")
        if not has_debug_info(path):
            raise LayoutError(f"{path} has no debug info (no .debug_info, no separate debug "
                              f"file): build it RelWithDebInfo, or install its -dbg package")
    body = layout_lines(binary, types, fallback)
    head = [
        "# ABI layout file: ceph_volume_smrstore/abi/pacific_layouts.py (compare with compare_layouts.py)",
        f"# binary: {binary}",
        f"# build-id: {build_id(binary) or 'none'}",
        f"# types: {types_fingerprint(types)}",
    ]
    return "\n".join(head + body) + "\n"


def cache_path(bid: str, cache_dir: str = HERE) -> str:
    return os.path.join(cache_dir, f"pacific-{bid}.layout")


def cache_is_current(path: str) -> bool:
    try:
        with open(path) as f:
            head = f.read(2000)
    except OSError:
        return False
    return f"# types: {types_fingerprint(TYPES)}" in head


def install_dbg(bid: str) -> None:
    """apt-get install ceph-osd-dbg (as root, else through sudo -n)."""
    print(f"pacific_layouts: no cached layout for ceph-osd build-id {bid} and no debug file "
          f"{debug_file_path(bid)}: installing ceph-osd-dbg with apt-get", file=sys.stderr)
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", "ceph-osd-dbg"]
    if os.geteuid() != 0:
        cmd = ["sudo", "-n"] + cmd
    try:
        res = subprocess.run(cmd, capture_output=True, text=True)
        ok, err = res.returncode == 0, res.stderr.strip()[-400:]
    except FileNotFoundError as e:
        ok, err = False, str(e)
    if not ok:
        raise LayoutError(f"could not install ceph-osd-dbg ({' '.join(cmd)}): {err}")


def cached(binary: str, cache_dir: str = HERE) -> str:
    """The cached Pacific layout of binary's build-id, generated if there is none."""
    if not os.path.isfile(binary):
        raise LayoutError(f"no such binary: {binary}")
    bid = build_id(binary)
    if not bid:
        raise LayoutError(f"{binary} has no build-id note")
    path = cache_path(bid, cache_dir)
    if cache_is_current(path):
        return path
    why = "no cached layout" if not os.path.exists(path) else \
        "the cached layout was made from another type table"
    if not os.path.exists(debug_file_path(bid)) and not has_debug_info(binary):
        install_dbg(bid)
        if not os.path.exists(debug_file_path(bid)):
            raise LayoutError(
                f"{why} for {binary} (build-id {bid}), and the installed ceph-osd-dbg has no "
                f"{debug_file_path(bid)}: its version differs from ceph-osd's. Install the "
                f"matching ceph-osd-dbg, or commit {os.path.basename(path)} generated where "
                f"it is installed")
    print(f"pacific_layouts: {why} for build-id {bid}: generating {path} (commit it)",
          file=sys.stderr)
    text = generate(binary)
    with open(path, "w") as f:
        f.write(text)
    return path


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cached", action="store_true",
                    help="print the path of the cached Pacific layout (generate if none)")
    ap.add_argument("--cache-dir", default=HERE)
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    ap.add_argument("--fallback", help="object to read the types BINARY's debug info lacks "
                                       "from (layout_probe.py's output)")
    ap.add_argument("binary", nargs="?", default=None)
    args = ap.parse_args(argv)
    try:
        if args.cached:
            print(cached(args.binary or DEFAULT_OSD, args.cache_dir))
            return 0
        if not args.binary:
            ap.error("give BINARY (or --cached)")
        text = generate(args.binary, fallback=args.fallback)
        if args.output:
            with open(args.output, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
    except LayoutError as e:
        print(f"pacific_layouts: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
