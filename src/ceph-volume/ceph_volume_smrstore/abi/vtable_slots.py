#!/usr/bin/env python3
"""Prints the virtual-function slots of C++ vtables, read from an ELF binary.

  vtable_slots.py [-v] BINARY VTABLE_SYMBOL...      e.g. /usr/bin/ceph-osd _ZTV8MemStore

The vtable symbol's address and size come from the symbol table (`nm -S`: .symtab, which
also has LOCAL symbols such as hidden vtables, else `nm -DS`: .dynsym). The slots are the
8-byte entries in [address+16, address+size): the dynamic relocation at each entry
(`readelf -rW`: R_X86_64_RELATIVE, whose addend is the function's address, or
R_X86_64_64 / GLOB_DAT against a named symbol), else the entry's bytes in the file (a
non-PIE binary). An address is named by the function symbol there: .symtab, else .dynsym,
else the separate debug file of the binary's build-id (/usr/lib/debug/.build-id/..).
A slot prints as its method without the class (normalized, see abi_names.py), destructors
as ~D1 (complete) / ~D0 (deleting), pure slots as __cxa_pure_virtual. A secondary vtable
(multiple inheritance) ends the primary one. Virtual bases are not supported.
"""
from __future__ import annotations

import argparse
import os
import re
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .abi_names import split_function_name, unqualified_method

WORD = 8
FUNCTION_KINDS = "TtWwi"
# Separate debug files (the -dbg packages); the environment override is for tests that
# extract a -dbg package without installing it.
DEBUG_DIR = os.environ.get("CEPH_VOLUME_SMRSTORE_DEBUG_DIR", "/usr/lib/debug")
DEBUG_ROOT = os.path.join(DEBUG_DIR, ".build-id")


class ToolError(Exception):
    """A binary or symbol the tools cannot read (exit status 2)."""


@dataclass(frozen=True)
class Symbol:
    name: str      # mangled
    addr: int
    size: int
    kind: str      # nm's letter


@dataclass
class SymbolTable:
    by_name: Dict[str, List[Symbol]] = field(default_factory=dict)
    by_addr: Dict[int, List[Symbol]] = field(default_factory=dict)

    def add(self, sym: Symbol) -> None:
        self.by_name.setdefault(sym.name, []).append(sym)
        self.by_addr.setdefault(sym.addr, []).append(sym)

    def __len__(self) -> int:
        return len(self.by_name)


@dataclass(frozen=True)
class Reloc:
    kind: str               # R_X86_64_RELATIVE, R_X86_64_64, ...
    addend: int
    symbol: Optional[str]   # mangled, version suffix removed; None for RELATIVE


@dataclass(frozen=True)
class Slot:
    index: int
    target: Optional[int]   # function address, when known
    mangled: Optional[str]
    demangled: str
    display: str            # unqualified normalized method, ~D1/~D0, __cxa_pure_virtual
    # Every name of the function at target: identical functions folded into one (GCC's
    # -fipa-icf aliases, e.g. three `return false;` methods) make the slot any of them.
    alternatives: Tuple[str, ...] = ()

    def names(self) -> Tuple[str, ...]:
        return self.alternatives or (self.display,)


@dataclass
class Vtable:
    symbol: str
    demangled: str
    address: int
    size: int
    slots: List[Slot]
    notes: List[str]


# --- running the binutils ---------------------------------------------------------------------

def run(cmd: Sequence[str], stdin: Optional[str] = None) -> str:
    try:
        res = subprocess.run(list(cmd), input=stdin, capture_output=True, text=True)
    except FileNotFoundError as e:
        raise ToolError(f"{cmd[0]} not found (install binutils): {e}") from e
    if res.returncode != 0 and "no symbols" not in res.stderr:
        raise ToolError(f"{' '.join(cmd)} failed: {res.stderr.strip()}")
    return res.stdout


def demangle_all(names: Iterable[str]) -> Dict[str, str]:
    names = sorted(set(names))
    if not names:
        return {}
    out = run(["c++filt"], stdin="\n".join(names) + "\n").splitlines()
    if len(out) != len(names):
        raise ToolError("c++filt returned a different number of lines")
    return dict(zip(names, out))


def parse_nm(text: str) -> SymbolTable:
    """`nm -S --defined-only` lines: 'addr [size] kind name' (mangled)."""
    table = SymbolTable()
    for line in text.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and len(parts[2]) == 1:
            addr, size, kind, name = parts
        elif len(parts) == 3 and len(parts[1]) == 1:
            (addr, kind, name), size = parts, "0"
        else:
            continue
        try:
            table.add(Symbol(name.split("@")[0], int(addr, 16), int(size, 16), kind))
        except ValueError:
            continue
    return table


def read_symbols(binary: str, dynamic: bool) -> SymbolTable:
    flags = ["-S", "--defined-only"] + (["-D"] if dynamic else [])
    return parse_nm(run(["nm", *flags, binary]))


_RELOC_RE = re.compile(r"^([0-9a-f]+)\s+([0-9a-f]+)\s+(R_\w+)\s*(.*)$")


def parse_relocs(text: str) -> Dict[int, Reloc]:
    """`readelf -rW` dynamic relocations by offset."""
    relocs: Dict[int, Reloc] = {}
    for line in text.splitlines():
        m = _RELOC_RE.match(line.strip())
        if not m:
            continue
        offset, kind, rest = int(m.group(1), 16), m.group(3), m.group(4).split()
        if kind.endswith("_RELATIVE"):
            relocs[offset] = Reloc(kind, int(rest[-1], 16) if rest else 0, None)
        elif len(rest) >= 2:
            # 'symval name + addend' or 'symval name - addend' or 'symval name'
            name = rest[1].split("@")[0]
            addend = 0
            if len(rest) >= 4 and rest[2] in "+-":
                addend = int(rest[3], 16) * (-1 if rest[2] == "-" else 1)
            relocs[offset] = Reloc(kind, addend, name)
    return relocs


@dataclass(frozen=True)
class Segment:
    vaddr: int
    offset: int
    filesz: int


def parse_load_segments(text: str) -> List[Segment]:
    """`readelf -lW` LOAD lines: Type Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align."""
    segs = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[0] == "LOAD":
            segs.append(Segment(int(parts[2], 16), int(parts[1], 16), int(parts[4], 16)))
    return segs


def build_id(binary: str) -> Optional[str]:
    m = re.search(r"Build ID:\s*([0-9a-f]+)", run(["readelf", "-n", binary]))
    return m.group(1) if m else None


def debug_file_for(binary: str) -> Optional[str]:
    bid = build_id(binary)
    if not bid:
        return None
    path = os.path.join(DEBUG_ROOT, bid[:2], bid[2:] + ".debug")
    return path if os.path.exists(path) else None


# --- the binary ----------------------------------------------------------------------------------

class ElfImage:
    """One binary's symbols, relocations and loadable bytes, read once."""

    def __init__(self, path: str) -> None:
        if not os.path.isfile(path):
            raise ToolError(f"no such binary: {path}")
        self.path = path
        self.symtab = read_symbols(path, dynamic=False)
        self.dynsym = read_symbols(path, dynamic=True)
        self.relocs = parse_relocs(run(["readelf", "-rW", path]))
        self.segments = parse_load_segments(run(["readelf", "-lW", path]))
        self._debug: Optional[SymbolTable] = None
        self._debug_tried = False

    def find_symbol(self, name: str) -> Tuple[Symbol, str]:
        for table, where in ((self.symtab, ".symtab"), (self.dynsym, ".dynsym")):
            found = {(s.addr, s.size) for s in table.by_name.get(name, [])}
            if len(found) == 1:
                return table.by_name[name][0], where
            if len(found) > 1:
                raise ToolError(f"{name} is defined {len(found)} times in {self.path} "
                                f"({where}; local symbols of several files?)")
        raise ToolError(f"{name} not found in {self.path} (.symtab, .dynsym)")

    def debug_symbols(self) -> Optional[SymbolTable]:
        if not self._debug_tried:
            self._debug_tried = True
            dbg = debug_file_for(self.path)
            if dbg:
                self._debug = read_symbols(dbg, dynamic=False)
        return self._debug

    def symbols_at(self, addr: int) -> List[Symbol]:
        for table in (self.symtab, self.dynsym):
            if addr in table.by_addr:
                return table.by_addr[addr]
        dbg = self.debug_symbols()
        return dbg.by_addr.get(addr, []) if dbg else []

    def read_word(self, addr: int) -> Optional[int]:
        for seg in self.segments:
            if seg.vaddr <= addr and addr + WORD <= seg.vaddr + seg.filesz:
                with open(self.path, "rb") as f:
                    f.seek(seg.offset + addr - seg.vaddr)
                    value: int = struct.unpack("<Q", f.read(WORD))[0]
                    return value
        return None


# --- slots ---------------------------------------------------------------------------------------

_DTOR_RE = re.compile(r"D([0125])Ev$")


def class_of_vtable(demangled_vtable: str) -> str:
    return demangled_vtable[len("vtable for "):] if demangled_vtable.startswith(
        "vtable for ") else demangled_vtable


def pick_symbol(cands: List[Symbol], demangled: Dict[str, str], cls: str) -> Symbol:
    """Several names at one address (aliases): prefer functions, the vtable's own class, the
    complete-object destructor D1 over its alias D2, global over local."""
    def rank(s: Symbol) -> Tuple[int, int, int, int, str]:
        qual, _, _ = split_function_name(demangled.get(s.name, s.name))
        dtor = _DTOR_RE.search(s.name)
        return (0 if s.kind in FUNCTION_KINDS else 1,
                0 if qual == cls else 1,
                0 if not dtor or dtor.group(1) in "01" else 1,
                0 if s.kind.isupper() else 1,
                s.name)
    return sorted(cands, key=rank)[0]


def display_name(mangled: str, demangled: str) -> str:
    if mangled in ("__cxa_pure_virtual", "__cxa_deleted_virtual"):
        return mangled
    dtor = _DTOR_RE.search(mangled)
    if dtor and "~" in demangled:
        # D2 (base-object) aliases D1 when there are no virtual bases (none here).
        return "~D0" if dtor.group(1) == "0" else "~D1"
    return unqualified_method(demangled)


@dataclass
class RawSlot:
    target: Optional[int]
    symbol: Optional[str]   # a named relocation's symbol


def raw_slots(img: ElfImage, start: int, end: int) -> List[RawSlot]:
    out = []
    for addr in range(start, end, WORD):
        rel = img.relocs.get(addr)
        if rel and rel.symbol:
            out.append(RawSlot(rel.addend if rel.addend else None, rel.symbol))
        elif rel:
            out.append(RawSlot(rel.addend, None))
        else:
            out.append(RawSlot(img.read_word(addr), None))
    return out


def read_vtable(img: ElfImage, symbol: str) -> Vtable:
    sym, where = img.find_symbol(symbol)
    if sym.size < 2 * WORD:
        raise ToolError(f"{symbol} in {img.path} has size {sym.size}: not a vtable?")
    raws = raw_slots(img, sym.addr, sym.addr + sym.size)
    notes: List[str] = [f"{symbol} from {where}"]
    # Name every candidate symbol first, demangling in one c++filt run.
    cands: Dict[int, List[Symbol]] = {}
    for r in raws:
        if r.symbol is None and r.target is not None and r.target not in cands:
            cands[r.target] = img.symbols_at(r.target)
    names = {s.name for cs in cands.values() for s in cs}
    names |= {r.symbol for r in raws if r.symbol}
    names.add(symbol)
    dem = demangle_all(names)
    cls = class_of_vtable(dem[symbol])

    typeinfo = raws[1].symbol or _first_name(cands.get(raws[1].target or -1, []))
    if not (typeinfo or "").startswith("_ZTI"):
        notes.append("entry 1 is not a typeinfo (-fno-rtti, or virtual bases?)")
    slots: List[Slot] = []
    for i, r in enumerate(raws[2:]):
        mangled, target = r.symbol, r.target
        if mangled is None and target is not None and cands.get(target):
            mangled = pick_symbol(cands[target], dem, cls).name
        if mangled and mangled.startswith("_ZTI"):
            # A secondary vtable's typeinfo: the entry before it was its offset-to-top.
            slots = slots[:-1]
            notes.append(f"secondary vtable at slot {i - 1}: primary vtable ends there")
            break
        if mangled is None:
            text = "<null>" if not target else f"<unnamed 0x{target:x}>"
            slots.append(Slot(i, target, None, text, text))
            continue
        demangled = dem.get(mangled, mangled)
        display = display_name(mangled, demangled)
        alts = [display] + [display_name(c.name, dem.get(c.name, c.name))
                            for c in (cands.get(target, []) if target is not None else [])
                            if c.kind in FUNCTION_KINDS]
        alts = list(dict.fromkeys(alts))
        slots.append(Slot(i, target, mangled, demangled, display,
                          tuple(alts) if len(alts) > 1 else ()))
    return Vtable(symbol, dem[symbol], sym.addr, sym.size, slots, notes)


def _first_name(cands: List[Symbol]) -> Optional[str]:
    return cands[0].name if cands else None


def format_vtable(vt: Vtable, binary: str, verbose: bool) -> List[str]:
    lines = [f"# {vt.symbol} ({vt.demangled}) in {binary}: 0x{vt.address:x}, "
             f"{len(vt.slots)} slots"]
    for note in vt.notes[1:]:
        lines.append(f"# note: {note}")
    for s in vt.slots:
        line = f"{s.index:4d}  {' | '.join(s.names())}"
        if verbose:
            where = f"0x{s.target:x}" if s.target else "-"
            line += f"    [{where} {s.demangled}]"
        lines.append(line)
    return lines


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also print each slot's address and qualified demangled name")
    ap.add_argument("binary")
    ap.add_argument("symbols", nargs="+", metavar="VTABLE_SYMBOL")
    args = ap.parse_args(argv)
    try:
        img = ElfImage(args.binary)
        for sym in args.symbols:
            print("\n".join(format_vtable(read_vtable(img, sym), args.binary, args.verbose)))
    except ToolError as e:
        print(f"vtable_slots: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
