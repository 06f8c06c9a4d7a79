#!/usr/bin/python3
"""Pacific layout facts our code holds as constants, against the Pacific layout file.

Usage: check_constants.py PACIFIC_LAYOUT REPO_ROOT

Some layouts cannot be compared by type because our code reaches into a class it does not
declare: osd_preload.cc's per-build-id Option constants (sizeof, name and enum_allowed
offsets, used to add "smrstore" to osd_objectstore's permitted values) and ceph_context.h's
kLogMemberOffset (CephContext::_log, used by ceph_log.cc). Each is read from our source and
compared with the Pacific layout; exit 1 on any difference, 2 on bad input.
"""
from __future__ import annotations

import re
import sys
from typing import Dict, List, Optional


def pacific_facts(layout_text: str) -> Dict[str, int]:
    facts: Dict[str, int] = {}
    for line in layout_text.splitlines():
        m = re.match(r"^Option sizeof (\d+)$", line)
        if m:
            facts["Option sizeof"] = int(m.group(1))
        m = re.match(r"^(Option\.name|Option\.enum_allowed|ceph::common::CephContext\._log) (\d+) ",
                     line)
        if m:
            facts[m.group(1)] = int(m.group(2))
    return facts


def our_facts(preload_cc: str, ceph_context_h: str) -> Dict[str, List[int]]:
    ours: Dict[str, List[int]] = {"Option sizeof": [], "Option.name": [], "Option.enum_allowed": [],
                                  "ceph::common::CephContext._log": []}
    # Each KnownBinary entry ends with "..., OPTION_SIZE, NAME_OFFSET, ENUM_ALLOWED_OFFSET},"
    for m in re.finditer(r"\},\s*(\d+),\s*(\d+),\s*(\d+)\}", preload_cc):
        ours["Option sizeof"].append(int(m.group(1)))
        ours["Option.name"].append(int(m.group(2)))
        ours["Option.enum_allowed"].append(int(m.group(3)))
    m2 = re.search(r"kLogMemberOffset\s*=\s*(\d+)", ceph_context_h)
    if m2:
        ours["ceph::common::CephContext._log"].append(int(m2.group(1)))
    return ours


def compare(pacific: Dict[str, int], ours: Dict[str, List[int]]) -> List[str]:
    fails: List[str] = []
    for key, values in ours.items():
        want: Optional[int] = pacific.get(key)
        if want is None:
            fails.append(f"{key}: not in the Pacific layout file")
            continue
        if not values:
            fails.append(f"{key}: not found in our source")
            continue
        for v in values:
            if v != want:
                fails.append(f"{key}: ours {v}, Pacific {want}")
        print(f"constants: {key} = {want}: {len(values)} use(s) in our source, "
              f"{sum(1 for v in values if v != want)} differ")
    return fails


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print("usage: check_constants.py PACIFIC_LAYOUT REPO_ROOT", file=sys.stderr)
        return 2
    layout, root = argv
    with open(layout, encoding="utf-8") as f:
        pacific = pacific_facts(f.read())
    with open(f"{root}/src/os/smrstore/osd_preload/osd_preload.cc", encoding="utf-8") as f:
        preload = f.read()
    with open(f"{root}/src/os/smrstore/objectstore/ceph_compat/common/ceph_context.h",
              encoding="utf-8") as f:
        cctx = f.read()
    fails = compare(pacific, our_facts(preload, cctx))
    for x in fails:
        print(f"constants: FAIL {x}")
    print(f"constants: {'all agree' if not fails else f'{len(fails)} difference(s)'}")
    return 0 if not fails else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
