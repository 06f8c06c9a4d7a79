"""The C++ ABI smrstore's preload library shares with Debian's ceph-osd (Pacific 16.2.15):
the tools that read it from a binary and compare it, and what was recorded from the builds
smrstore was verified against. One copy, used by two callers:

- `ceph-volume smrstore check-ceph` (check_ceph.py), on an OSD host without the repository:
  an installed (or downloaded) ceph-osd against the recorded expectations;
- the repository's `qa/ceph/abi/check-abi.sh` (ctest ceph_abi): our library against ceph-osd.

Modules: abi_names (the name normalizer), vtable_slots (a vtable's slots from the ELF
relocations), compare_vtables, pacific_layouts (a layout file from DWARF via gdb),
compare_layouts, expected (the recorded vtables, and a binary checked against them and the
recorded layouts). Each of the first five also runs as a command (`python3 -m
ceph_volume_smrstore.abi.vtable_slots ...`).

Data files next to the modules (installed with the package):
  pairs.txt                      Pacific vtables / ours / slots compared
  pacific-vtables.txt            those Pacific vtables' slots, as recorded (expected.py)
  pacific-<build-id>.layout      Pacific's layouts from that build's debug info
  layout-allowlist.txt           documented differences of OUR layouts (check-abi.sh only)
"""
from __future__ import annotations

import glob
import os
from typing import List

HERE = os.path.dirname(os.path.abspath(__file__))
PAIRS = os.path.join(HERE, "pairs.txt")
RECORDED_VTABLES = os.path.join(HERE, "pacific-vtables.txt")


def recorded_layouts() -> List[str]:
    """The recorded Pacific layout files, one per verified ceph-osd build-id."""
    return sorted(glob.glob(os.path.join(HERE, "pacific-*.layout")))
