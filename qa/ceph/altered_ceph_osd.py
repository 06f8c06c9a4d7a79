#!/usr/bin/python3
"""Two altered copies of a ceph-osd binary, for the refusal tests of the preload library and
of `ceph-volume smrstore check-ceph`:

  altered_ceph_osd.py --guarded SRC  -> "WHAT OFFSET" lines: every byte the preload's guard
                                   must check (13 prologue bytes, 20 build-id bytes)
  altered_ceph_osd.py SRC DIR   -> DIR/ceph-osd-other-build  one byte of the GNU build-id flipped
                                   DIR/ceph-osd-other-bytes  one byte inside ObjectStore::create's
                                                             prologue flipped ("mov %rsp,%rbp")
Both still run (the code of the first is unchanged; the second breaks only if its
ObjectStore::create is called). Used by qa/ceph/check-preload.sh, qa/ceph/0010_check_ceph.sh
and src/ceph-volume/tests/test_check_ceph.py.
"""
from __future__ import annotations

import os
import subprocess
import sys
from typing import Tuple

CREATE = ("_ZN11ObjectStore6createEPN4ceph6common11CephContextERKNSt7__cxx1112basic_stringIcSt11"
          "char_traitsIcESaIcEEESB_SB_j")


def build_id(path: str) -> str:
    note = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    return note.split("Build ID:")[1].split()[0]


def create_file_offset(path: str) -> int:
    """ObjectStore::create's file offset: vaddr - segment vaddr + segment offset."""
    sym = subprocess.run(["nm", "-D", path], capture_output=True, text=True).stdout
    addr = next(int(x.split()[0], 16) for x in sym.splitlines() if x.endswith(" " + CREATE))
    ph = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    for x in ph.splitlines():
        p = x.split()
        if p and p[0] == "LOAD":
            off, va, sz = int(p[1], 16), int(p[2], 16), int(p[4], 16)
            if va <= addr < va + sz:
                return addr - va + off
    raise ValueError("ObjectStore::create is in no LOAD segment of %s" % path)


def make(src: str, out_dir: str) -> Tuple[str, str]:
    """Writes both copies into out_dir; returns (other_build, other_bytes)."""
    with open(src, "rb") as f:
        data = f.read()
    other_build = bytearray(data)
    other_build[data.find(bytes.fromhex(build_id(src)))] ^= 0xff
    other_bytes = bytearray(data)
    other_bytes[create_file_offset(src) + 3] ^= 0x01
    paths = []
    for name, blob in (("ceph-osd-other-build", other_build), ("ceph-osd-other-bytes", other_bytes)):
        p = os.path.join(out_dir, name)
        with open(p, "wb") as f:
            f.write(bytes(blob))
        os.chmod(p, 0o755)
        paths.append(p)
    return paths[0], paths[1]


PROLOGUE_LEN = 13  # the bytes the preload displaces and compares (osd_preload.cc kPrologueLen)


def guarded_offsets(src: str) -> list:
    """(what, file offset) of every byte the preload's guard must check: the displaced
    prologue of ObjectStore::create and each byte of the GNU build-id."""
    with open(src, "rb") as f:
        data = f.read()
    bid = bytes.fromhex(build_id(src))
    at = data.find(bid)
    fo = create_file_offset(src)
    return [("create+%d" % k, fo + k) for k in range(PROLOGUE_LEN)] + \
        [("build-id+%d" % k, at + k) for k in range(len(bid))]


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--guarded":
        print("\n".join("%s %d" % wo for wo in guarded_offsets(sys.argv[2])))
        sys.exit(0)
    if len(sys.argv) != 3:
        sys.exit("usage: altered_ceph_osd.py SRC DIR | --guarded SRC")
    print("\n".join(make(sys.argv[1], sys.argv[2])))
