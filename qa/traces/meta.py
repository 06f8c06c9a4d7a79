"""meta.json of a capture: when, which Ceph, which client commands, and counts."""
from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional

from model import load_json


def describe(name: str, seconds: int, commands: List[str], dump_bytes: int,
             trace: Dict[str, Any], expected: Dict[str, Any], ceph_version: str) -> Dict[str, Any]:
    ops = collections.Counter(op["op"] for t in trace["transactions"] for op in t["ops"])
    return {
        "format": "smrstore.capture-meta/1",
        "name": name,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "ceph_version": ceph_version,
        "source": "filestore-dump (Debian ceph-osd, osd objectstore = filestore)",
        "workload_seconds": seconds,
        "client_commands": commands,
        "counts": {
            "raw_dump_bytes": dump_bytes,
            "transactions": len(trace["transactions"]),
            "ops": sum(ops.values()),
            "ops_by_name": dict(sorted(ops.items())),
            "seed_collections": len(trace["seed"]["collections"]),
            "seed_objects": len(trace["seed"]["objects"]),
            "expected_objects": sum(len(c["objects"]) for c in expected["collections"].values()),
            "absent_objects": len(expected["absent"]),
        },
        "cross_check": "every expected object and absent object matched ceph-objectstore-tool "
                       "on the stopped OSD (size, xattr names+lengths, omap keys, value lengths "
                       "for objects with <= 32 keys, omap header length)",
    }


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser()
    for a in ("--name", "--commands", "--dump", "--trace", "--expected"):
        ap.add_argument(a, required=True)
    ap.add_argument("--seconds", type=int, required=True)
    a = ap.parse_args(argv)
    with open(a.commands, encoding="utf-8") as f:
        cmds = [line.rstrip("\n") for line in f if line.strip()]
    ver = subprocess.run(["ceph", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    doc = describe(a.name, a.seconds, cmds, os.path.getsize(a.dump), load_json(a.trace),
                   load_json(a.expected), ver)
    json.dump(doc, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
