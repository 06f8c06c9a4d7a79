#!/usr/bin/env python3
"""Compares our vtables with Pacific's, slot by slot, by normalized method name + signature.

One pair:
  compare_vtables.py [--label L] [--slots N|all] REF_BINARY REF_VTABLE OUR_BINARY OUR_VTABLE
All pairs of a pairs file (pairs.txt next to this module), each ours overridable:
  compare_vtables.py --pairs pairs.txt [--layout PACIFIC.layout] [--set LABEL=OUR_VTABLE]...
                     REF_BINARY OUR_BINARY

Every differing slot prints as
  slot 7: pacific dump_perf_counters(ceph::Formatter*) / ours flush_cache(std::ostream*)
then one summary line per pair:
  ObjectStore vtable: 76 slots compared, 0 differ
Slots compared: N, or `all` of the reference's, or `decl:TYPE` = the slots TYPE's virtual
declarations make (destructor 2) in the Pacific layout file (--layout; for a class with no
virtual base, e.g. Context). Slots ours has beyond those are reported, not failed (ceph-osd
never calls them). A slot that is several folded functions matches any of its names.
Exit status: 0 all equal, 1 any difference or missing vtable, 2 a tool/usage error.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from .vtable_slots import ElfImage, Slot, ToolError, Vtable, read_vtable


@dataclass(frozen=True)
class Pair:
    label: str
    ref_symbol: str
    our_symbol: str
    slots: str          # "all", an integer, or "decl:TYPE"


@dataclass
class PairResult:
    lines: List[str]
    failed: bool


def slots_match(ref: Slot, ours: Slot) -> bool:
    return bool(set(ref.names()) & set(ours.names()))


def describe(slot: Optional[Slot]) -> str:
    if slot is None:
        return "<no slot>"
    return " | ".join(slot.names())


def compare_slots(label: str, ref: List[Slot], ours: List[Slot], count: int,
                  extra_note: bool = True, sides: Tuple[str, str] = ("pacific", "ours")
                  ) -> PairResult:
    """The core comparison, independent of ELF reading (tested with synthetic slots).
    `sides` names ref and ours in the difference lines."""
    lines: List[str] = []
    differ = 0
    if count > len(ref):
        lines.append(f"  note: the reference has only {len(ref)} slots, {count} requested")
        count = len(ref)
    for i in range(count):
        mine = ours[i] if i < len(ours) else None
        if mine is not None and slots_match(ref[i], mine):
            continue
        differ += 1
        lines.append(f"slot {i}: {sides[0]} {describe(ref[i])} / {sides[1]} {describe(mine)}")
    if extra_note and len(ours) > count and count == len(ref):
        lines.append(f"  note: ours has {len(ours) - count} more slots after pacific's "
                     f"{count} (not called by ceph-osd)")
    lines.append(f"{label} vtable: {count} slots compared, {differ} differ")
    return PairResult(lines, differ > 0)


def decl_slot_count(layout_file: str, type_key: str) -> int:
    """Slots of TYPE's own virtual declarations, from a layout file's 'TYPE virtual' lines."""
    count, seen = 0, False
    with open(layout_file) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 3)
            if len(parts) == 4 and parts[0] == type_key and parts[1] == "virtual":
                seen = True
                count += 2 if parts[3].lstrip().startswith("~") else 1
    if not seen:
        raise ToolError(f"no virtual declarations of {type_key} in {layout_file}")
    return count


def resolve_count(spec: str, ref: Vtable, layout_file: Optional[str]) -> int:
    if spec == "all":
        return len(ref.slots)
    if spec.startswith("decl:"):
        if not layout_file:
            raise ToolError(f"slot count {spec} needs --layout PACIFIC.layout")
        return decl_slot_count(layout_file, spec[len("decl:"):])
    try:
        return int(spec)
    except ValueError:
        raise ToolError(f"bad slot count {spec!r} (N, all or decl:TYPE)") from None


def compare_pair(pair: Pair, ref_img: ElfImage, our_img: ElfImage,
                 layout_file: Optional[str]) -> PairResult:
    ref = read_vtable(ref_img, pair.ref_symbol)
    count = resolve_count(pair.slots, ref, layout_file)
    try:
        ours = read_vtable(our_img, pair.our_symbol)
    except ToolError as e:
        return PairResult([f"{pair.label} vtable: ours missing: {e}"], True)
    res = compare_slots(pair.label, ref.slots, ours.slots, count)
    res.lines.insert(0, f"# {pair.label}: pacific {ref.symbol} ({ref.demangled}) / "
                        f"ours {ours.symbol} ({ours.demangled})")
    return res


def read_pairs(path: str) -> List[Pair]:
    """Lines 'LABEL REF_VTABLE OUR_VTABLE SLOTS'; '#' comments."""
    pairs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 4:
                raise ToolError(f"{path}:{n}: want LABEL REF_VTABLE OUR_VTABLE SLOTS")
            pairs.append(Pair(*parts))
    return pairs


def apply_overrides(pairs: List[Pair], overrides: Sequence[str]) -> List[Pair]:
    table: Dict[str, str] = {}
    for o in overrides:
        label, sep, sym = o.partition("=")
        if not sep or not sym:
            raise ToolError(f"--set wants LABEL=OUR_VTABLE, got {o!r}")
        if label not in {p.label for p in pairs}:
            raise ToolError(f"--set {label}: no such pair (have "
                            f"{', '.join(p.label for p in pairs)})")
        table[label] = sym
    return [Pair(p.label, p.ref_symbol, table.get(p.label, p.our_symbol), p.slots)
            for p in pairs]


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", help="pairs file: compare every pair in it")
    ap.add_argument("--set", action="append", default=[], metavar="LABEL=OUR_VTABLE",
                    help="with --pairs: our vtable symbol for LABEL")
    ap.add_argument("--layout", help="Pacific layout file (for decl:TYPE slot counts)")
    ap.add_argument("--label", default="", help="one pair: the summary's name")
    ap.add_argument("--slots", default="all", help="one pair: N, all or decl:TYPE")
    ap.add_argument("args", nargs="+",
                    help="REF_BINARY REF_VTABLE OUR_BINARY OUR_VTABLE, "
                         "or with --pairs: REF_BINARY OUR_BINARY")
    return ap.parse_args(argv)


def plan(args: argparse.Namespace) -> Tuple[str, str, List[Pair]]:
    if args.pairs:
        if len(args.args) != 2:
            raise ToolError("with --pairs give REF_BINARY OUR_BINARY")
        return args.args[0], args.args[1], apply_overrides(read_pairs(args.pairs), args.set)
    if len(args.args) != 4:
        raise ToolError("give REF_BINARY REF_VTABLE OUR_BINARY OUR_VTABLE")
    ref_bin, ref_sym, our_bin, our_sym = args.args
    return ref_bin, our_bin, [Pair(args.label or ref_sym, ref_sym, our_sym, args.slots)]


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    try:
        ref_bin, our_bin, pairs = plan(args)
        ref_img = ElfImage(ref_bin)
        our_img = ref_img if os.path.realpath(our_bin) == os.path.realpath(ref_bin) \
            else ElfImage(our_bin)
        failed = False
        for pair in pairs:
            res = compare_pair(pair, ref_img, our_img, args.layout)
            print("\n".join(res.lines))
            failed |= res.failed
    except ToolError as e:
        print(f"compare_vtables: {e}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
