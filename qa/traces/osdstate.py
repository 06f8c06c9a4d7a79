"""A stopped FileStore OSD's real objects, read with ceph-objectstore-tool.

    osdstate.py list  OSD_DATA > objects.json          # every object: [coll, oid_text]
    osdstate.py check OSD_DATA EXPECTED.json [--omap-value-max N]
        # reads each expected object's real state and each absent object's absence; prints
        # every difference and exits 1 if there is any.

Object names are given in the ghobject_t text form the FileStore dump prints
('#2:7800b0f3:::o1:head#'), built here from the tool's JSON ids.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any, Dict, List, Optional, Tuple

from model import compare_expected, load_json

SNAP_HEAD = -2      # CEPH_NOSNAP as the tool prints it
SNAP_SNAPDIR = -1   # CEPH_SNAPDIR


def _escape(s: str) -> str:
    """hobject_t's text escaping of namespace, key and name."""
    out = []
    for ch in s:
        b = ord(ch)
        if ch in "%:/" or b <= 0x20 or b >= 0x7F:
            out.append("".join(f"%{x:02x}" for x in ch.encode("utf-8", "surrogateescape")))
        else:
            out.append(ch)
    return "".join(out)


def reverse32(h: int) -> int:
    return int(f"{h & 0xFFFFFFFF:032b}"[::-1], 2)


def oid_text(j: Dict[str, Any]) -> str:
    snap = int(j["snapid"])
    if snap == SNAP_HEAD:
        s = "head"
    elif snap == SNAP_SNAPDIR:
        s = "snapdir"
    else:
        s = f"{snap:x}"
    return (f"#{j['pool']}:{reverse32(int(j['hash'])):08x}:{_escape(j['namespace'])}:"
            f"{_escape(j['key'])}:{_escape(j['oid'])}:{s}#")


def pgmeta_text(pgid: str) -> str:
    pool, ps = pgid.split("s")[0].split(".")
    return f"#{pool}:{reverse32(int(ps, 16)):08x}::::head#"


class Tool:
    def __init__(self, data: str) -> None:
        self.base = ["ceph-objectstore-tool", "--type", "filestore", "--data-path", data,
                     "--journal-path", f"{data}/journal", "--no-mon-config"]

    def run(self, *args: str) -> bytes:
        p = subprocess.run(self.base + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise RuntimeError(f"ceph-objectstore-tool {' '.join(args)}: exit {p.returncode}: "
                               f"{p.stderr.decode(errors='replace').strip()[-400:]}")
        return p.stdout

    def objects(self) -> Dict[Tuple[str, str], List[str]]:
        """(coll, oid_text) -> the tool's positional object arguments."""
        out: Dict[Tuple[str, str], List[str]] = {}
        for pgid, coll, j in json.loads(self.run("--op", "list", "--format", "json") or b"[]"):
            out[(coll, oid_text(j))] = [json.dumps([pgid, j])]
        for pgid in self.run("--op", "list-pgs").decode().split():
            out[(f"{pgid}_head", pgmeta_text(pgid))] = ["--pgid", pgid, ""]
        for line in self.run("--op", "meta-list").decode().splitlines():
            if line.strip():
                coll, j = json.loads(line)
                out[(coll, oid_text(j))] = [line.strip()]
        return out

    def state(self, spec: List[str], omap_value_max: int) -> Dict[str, Any]:
        size = len(self.run(*spec, "get-bytes", "-"))
        names = [n for n in self.run(*spec, "list-attrs").decode("utf-8", "surrogateescape").split("\n") if n]
        xattrs = {n: len(self.run(*spec, "get-attr", n)) for n in names}
        keys = [k for k in self.run(*spec, "list-omap").decode("utf-8", "surrogateescape").split("\n") if k]
        omap: Dict[str, Optional[int]] = {}
        for k in keys:
            omap[k] = len(self.run(*spec, "get-omap", k)) if len(keys) <= omap_value_max else None
        header = len(self.run(*spec, "get-omaphdr"))
        return {"size": size, "xattrs": xattrs, "omap": omap, "omap_header": header}


def check(data: str, expected: Dict[str, Any], omap_value_max: int) -> List[str]:
    tool = Tool(data)
    objs = tool.objects()
    real_colls: Dict[str, Any] = {}
    want_colls: Dict[str, Any] = {}
    notes: List[str] = []
    for cname, c in expected.get("collections", {}).items():
        for oid, want in c["objects"].items():
            spec = objs.get((cname, oid))
            if spec is None:
                notes.append(f"{cname} {oid}: expected by the model but not in the OSD")
                continue
            got = tool.state(spec, omap_value_max)
            w = dict(want)
            if any(v is None for v in got["omap"].values()):
                # Too many keys to read every value: compare the key sets only.
                got["omap"] = {k: 0 for k in got["omap"]}
                w["omap"] = {k: 0 for k in want["omap"]}
            real_colls.setdefault(cname, {"objects": {}})["objects"][oid] = got
            want_colls.setdefault(cname, {"objects": {}})["objects"][oid] = w
    for cname, oid in expected.get("absent", []):
        if (cname, oid) in objs:
            notes.append(f"{cname} {oid}: the model removed it but the OSD still has it")
    diffs = compare_expected({"collections": real_colls}, {"collections": want_colls})
    return notes + [f"OSD vs model: {d}" for d in diffs]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="read a stopped FileStore OSD with ceph-objectstore-tool")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("data")
    ck = sub.add_parser("check")
    ck.add_argument("data")
    ck.add_argument("expected")
    ck.add_argument("--omap-value-max", type=int, default=32,
                    help="read omap value lengths only for objects with at most this many keys")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "list":
            json.dump(sorted([c, o] for c, o in Tool(a.data).objects()), sys.stdout)
            print()
            return 0
        diffs = check(a.data, load_json(a.expected), a.omap_value_max)
    except (RuntimeError, OSError, json.JSONDecodeError) as e:
        print(f"osdstate: {e}", file=sys.stderr)
        return 1
    exp = load_json(a.expected)
    n = sum(len(c["objects"]) for c in exp["collections"].values())
    for d in diffs:
        print(f"osdstate: MISMATCH {d}", file=sys.stderr)
    if diffs:
        print(f"osdstate: {len(diffs)} differences between the OSD and the model", file=sys.stderr)
        return 1
    print(f"osdstate: the OSD matches the model: {n} objects (size, xattr names+lengths, omap keys"
          f"{'+lengths' if a.omap_value_max > 0 else ''}, header length), {len(exp['absent'])} absent")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
