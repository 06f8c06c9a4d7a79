#!/usr/bin/env python3
"""Compares two layout files (pacific_layouts.py): Pacific's and ours.

  compare_layouts.py [--allow FILE] PACIFIC.layout OURS.layout

Per type: sizeof, base classes, every member's offset and size (members matched by name;
missing and extra members are differences), and the order of the virtual declarations by
method name (signatures are the vtable check's job: gdb spells them through typedefs).
A nested member is compared only when both sides expand its parent (gdb does not expand a
member declared through a typedef); the parent's offset and size are compared regardless.
Differences listed in the allowlist (default layout-allowlist.txt next to this
module) are printed
as `allowed:` and do not fail. Summary lines:
  ceph::os::Transaction: sizeof 264 = 264, 25 members, 0 differ
  ObjectStore virtual declarations: 75 = 75, 0 differ
Exit status: 0 equal, 1 any difference, 2 unreadable input.
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from .abi_names import method_name_only

HERE = os.path.dirname(os.path.abspath(__file__))

DEFAULT_ALLOWLIST = os.path.join(HERE, "layout-allowlist.txt")


@dataclass
class TypeLayout:
    key: str
    spelling: str = ""
    missing: bool = False
    tried: str = ""
    sizeof: Optional[int] = None
    bases: str = ""
    members: Dict[str, Tuple[str, int]] = field(default_factory=dict)  # path -> (off, size)
    virtuals: List[str] = field(default_factory=list)


class LayoutFileError(Exception):
    pass


def parse_layout(text: str) -> Dict[str, TypeLayout]:
    types: Dict[str, TypeLayout] = {}
    cur: Optional[TypeLayout] = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@type "):
            key, _, spelling = line[len("@type "):].partition(" = ")
            cur = types.setdefault(key, TypeLayout(key))
            cur.spelling = spelling
            continue
        if line.startswith("@missing "):
            key, _, tried = line[len("@missing "):].partition(" tried: ")
            types[key] = TypeLayout(key, missing=True, tried=tried)
            cur = None
            continue
        if cur is None:
            raise LayoutFileError(f"line {n}: {line!r} outside a @type block")
        parse_type_line(cur, line, n)
    return types


def parse_type_line(cur: TypeLayout, line: str, n: int) -> None:
    k = cur.key
    if line.startswith(f"{k} sizeof "):
        cur.sizeof = int(line.split()[-1])
    elif line.startswith(f"{k} bases "):
        cur.bases = line[len(f"{k} bases "):]
    elif line.startswith(f"{k} virtual "):
        _, decl = line[len(f"{k} virtual "):].split(" ", 1)
        cur.virtuals.append(decl)
    elif line.startswith(f"{k}."):
        path, off, size = line[len(k) + 1:].rsplit(" ", 2)
        cur.members[path] = (off, int(size))
    else:
        raise LayoutFileError(f"line {n}: unknown line for {k}: {line!r}")


def read_layout(path: str) -> Dict[str, TypeLayout]:
    try:
        with open(path) as f:
            return parse_layout(f.read())
    except OSError as e:
        raise LayoutFileError(f"{path}: {e}") from e


def read_allowlist(path: Optional[str]) -> Dict[str, str]:
    """Lines 'ID  reason': ID is TYPE, TYPE.member, 'TYPE sizeof', 'TYPE bases',
    'TYPE virtual' or 'TYPE absent' (ours does not define the type); the reason is the
    free text after two spaces."""
    allowed: Dict[str, str] = {}
    if not path or not os.path.exists(path):
        return allowed
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            ident, _, reason = line.partition("  ")
            ident = ident.split("#", 1)[0].strip()
            allowed[ident] = reason.strip().lstrip("#").strip()
    return allowed


@dataclass
class Diffs:
    key: str
    allowed_ids: Dict[str, str]
    lines: List[str] = field(default_factory=list)
    count: int = 0
    allowed: int = 0

    def add(self, ident: str, text: str) -> None:
        # 'TYPE absent' allows only the type's absence; 'TYPE' allows any of its differences.
        reason = self.allowed_ids.get(ident, self.allowed_ids.get(self.key))
        if reason is not None:
            self.allowed += 1
            self.lines.append(f"  allowed: {text}  ({reason})")
        else:
            self.count += 1
            self.lines.append(f"  {text}")


def parent_unexpanded(path: str, other: Dict[str, Tuple[str, int]]) -> bool:
    """A nested member whose parent the other side has but does not expand."""
    if "." not in path:
        return False
    parent = path.rsplit(".", 1)[0]
    return parent in other and not any(p.startswith(parent + ".") for p in other)


def compare_members(pac: TypeLayout, ours: TypeLayout, d: Diffs) -> int:
    compared = 0
    for path, (off, size) in pac.members.items():
        ident = f"{pac.key}.{path}"
        if path in ours.members:
            compared += 1
            o_off, o_size = ours.members[path]
            if (off, size) != (o_off, o_size):
                d.add(ident, f"{ident}: pacific offset {off} size {size} / "
                             f"ours offset {o_off} size {o_size}")
        elif not parent_unexpanded(path, ours.members):
            compared += 1
            d.add(ident, f"{ident}: missing in ours (pacific offset {off} size {size})")
    for path, (off, size) in ours.members.items():
        if path not in pac.members and not parent_unexpanded(path, pac.members):
            ident = f"{pac.key}.{path}"
            d.add(ident, f"{ident}: only in ours (offset {off} size {size})")
    return compared


def virtual_names(t: TypeLayout) -> List[str]:
    """Method names in declaration order, the destructor as '~' (its class name may differ).
    A derived class's destructor is left out: it overrides its base's slots wherever it is
    declared (or when it is implicit)."""
    names = ["~" if n.startswith("~") else n for n in map(method_name_only, t.virtuals)]
    return [n for n in names if n != "~"] if t.bases else names


def compare_virtuals(pac: TypeLayout, ours: TypeLayout, allowed: Dict[str, str]) -> List[str]:
    a, b = virtual_names(pac), virtual_names(ours)
    d = Diffs(pac.key, allowed)
    if a != b:
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            d.add(f"{pac.key} virtual",
                  f"{pac.key} virtual declarations {i1}..{i2 - 1}: pacific "
                  f"{a[i1:i2] or '-'} / ours {b[j1:j2] or '-'}")
    differ = sum(1 for i in range(max(len(a), len(b)))
                 if i >= len(a) or i >= len(b) or a[i] != b[i]) if d.count else 0
    return d.lines + [f"{pac.key} virtual declarations: {len(a)} = {len(b)}, {differ} differ"
                      if len(a) == len(b) else
                      f"{pac.key} virtual declarations: {len(a)} != {len(b)}, {differ} differ"]


def compare_type(pac: TypeLayout, ours: Optional[TypeLayout],
                 allowed: Dict[str, str]) -> Tuple[List[str], int]:
    d = Diffs(pac.key, allowed)
    if pac.missing:
        d.add(pac.key, f"{pac.key}: not in the pacific layout (tried: {pac.tried})")
        return d.lines + [f"{pac.key}: missing in pacific, {d.count} differ"], d.count
    if ours is None or ours.missing:
        tried = f" (tried: {ours.tried})" if ours else ""
        d.add(f"{pac.key} absent", f"{pac.key}: not found in ours{tried}")
        return d.lines + [f"{pac.key}: sizeof {pac.sizeof} / ours missing, "
                          f"{d.count} differ" + (" (allowed)" if d.allowed else "")], d.count
    if pac.sizeof != ours.sizeof:
        d.add(f"{pac.key} sizeof", f"{pac.key}: sizeof pacific {pac.sizeof} / ours {ours.sizeof}")
    if pac.bases != ours.bases:
        d.add(f"{pac.key} bases", f"{pac.key}: bases pacific '{pac.bases}' / ours '{ours.bases}'")
    compared = compare_members(pac, ours, d)
    rel = "=" if pac.sizeof == ours.sizeof else "!="
    out = d.lines + [f"{pac.key}: sizeof {pac.sizeof} {rel} {ours.sizeof}, {compared} members, "
                     f"{d.count} differ" + (f" ({d.allowed} allowed)" if d.allowed else "")]
    count = d.count
    if pac.virtuals or ours.virtuals:
        vlines = compare_virtuals(pac, ours, allowed)
        out += vlines
        count += 0 if vlines[-1].endswith(" 0 differ") else 1
    return out, count


def compare_layouts(pac: Dict[str, TypeLayout], ours: Dict[str, TypeLayout],
                    allowed: Dict[str, str]) -> Tuple[List[str], int]:
    lines: List[str] = []
    total = 0
    for key, p in pac.items():
        out, n = compare_type(p, ours.get(key), allowed)
        lines += out
        total += n
    extra = sorted(set(ours) - set(pac))
    if extra:
        lines.append(f"note: types only in ours (not compared): {', '.join(extra)}")
    return lines, total


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--allow", default=DEFAULT_ALLOWLIST, help="allowlist file")
    ap.add_argument("pacific")
    ap.add_argument("ours")
    args = ap.parse_args(argv)
    try:
        pac, ours = read_layout(args.pacific), read_layout(args.ours)
    except (LayoutFileError, ValueError) as e:
        print(f"compare_layouts: {e}", file=sys.stderr)
        return 2
    lines, total = compare_layouts(pac, ours, read_allowlist(args.allow))
    print("\n".join(lines))
    print(f"layouts: {len(pac)} types compared, {total} differences")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
